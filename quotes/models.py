from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.models import Team


class Customer(models.Model):
    """A customer of EZMAX. `external_source` + `external_id` identify it in the CRM."""

    name_en = models.CharField(_("name (English)"), max_length=200)
    name_zh = models.CharField(_("name (Chinese)"), max_length=200, blank=True)
    external_source = models.CharField(_("CRM source"), max_length=50, blank=True)
    external_id = models.CharField(_("CRM id"), max_length=100, blank=True)
    preferred_language = models.CharField(
        _("preferred language"), max_length=10, choices=settings.LANGUAGES, default="zh-hans"
    )
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="customers", verbose_name=_("team")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("customer")
        verbose_name_plural = _("customers")
        ordering = ["name_en"]
        constraints = [
            models.UniqueConstraint(
                fields=["external_source", "external_id"],
                condition=~models.Q(external_id=""),
                name="customer_unique_external_id",
            )
        ]

    def __str__(self) -> str:
        return self.name_zh or self.name_en
