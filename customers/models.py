"""Customers of EZMAX, their contacts and the CRM opportunities their quotes belong to.

Below planner and quotes in the layers: designs and quotes point here, never the reverse. The
tables kept their data when the models moved out of quotes (see migrations/0001_initial.py)."""

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.models import Team
from customers.sorting import sort_keys


class Customer(models.Model):
    """A customer of EZMAX. `external_source` + `external_id` identify it in the CRM."""

    # Either name may be the only one (a Chinese customer often has no English name): the
    # services require at least one.
    name_en = models.CharField(_("name (English)"), max_length=200, blank=True)
    name_zh = models.CharField(_("name (Chinese)"), max_length=200, blank=True)
    address = models.TextField(_("address"), blank=True)
    # 统一社会信用代码 (GB 32100-2015, checked by customers.tax_ids): what invoices are issued to.
    tax_id = models.CharField(_("unified social credit code"), max_length=18, blank=True)
    # One of the customer's own contacts (customers.services checks it is theirs).
    billing_contact = models.ForeignKey(
        "Contact",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("billing contact"),
    )
    external_source = models.CharField(_("CRM source"), max_length=50, blank=True)
    external_id = models.CharField(_("CRM id"), max_length=100, blank=True)
    # The names as each reader's lists sort them (customers.sorting), kept with the names.
    sort_en = models.CharField(max_length=1000, blank=True, editable=False)
    sort_zh = models.CharField(max_length=1000, blank=True, editable=False)
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
        ordering = ["sort_en", "id"]  # `in_reading_order` sorts for the reader
        constraints = [
            models.UniqueConstraint(
                fields=["external_source", "external_id"],
                condition=~models.Q(external_id=""),
                name="customer_unique_external_id",
            )
        ]

    def __str__(self) -> str:
        # The reader's language picks the name: an English page or PDF shows the English one.
        return self.names[0]

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Derived from the names, so written wherever they are (services, admin, imports).
        self.sort_en, self.sort_zh = sort_keys(self.name_en, self.name_zh)
        fields = kwargs.get("update_fields")
        if fields is not None and {"name_en", "name_zh"} & set(fields):
            kwargs["update_fields"] = {*fields, "sort_en", "sort_zh"}
        super().save(*args, **kwargs)

    @property
    def names(self) -> list[str]:
        """The customer's names, the one in the reader's (active) language first: both when it
        has both, one when it has one."""
        return reader_names(self.name_en, self.name_zh)


def reader_names(name_en: str, name_zh: str) -> list[str]:
    """A customer's names, the one in the reader's (active) language first; [""] for none."""
    names = [name_en, name_zh]
    if (get_language() or "").startswith("zh"):
        names.reverse()
    return [name for name in names if name] or [""]


class Contact(models.Model):
    customer = models.ForeignKey(
        Customer, on_delete=models.CASCADE, related_name="contacts", verbose_name=_("customer")
    )
    name = models.CharField(_("name"), max_length=120)
    email = models.EmailField(_("email"), blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    title = models.CharField(_("job title"), max_length=120, blank=True)
    is_primary = models.BooleanField(_("primary contact"), default=False)

    class Meta:
        verbose_name = _("contact")
        verbose_name_plural = _("contacts")
        ordering = ["-is_primary", "name"]

    def __str__(self) -> str:
        return self.name


class Opportunity(models.Model):
    """A sales opportunity (a deal in the CRM) a customer's quotes belong to. `external_source` +
    `external_id` identify it in the CRM, as for customers."""

    customer = models.ForeignKey(
        Customer, on_delete=models.PROTECT, related_name="opportunities", verbose_name=_("customer")
    )
    name = models.CharField(_("name"), max_length=200)
    external_source = models.CharField(_("CRM source"), max_length=50, blank=True)
    external_id = models.CharField(_("CRM id"), max_length=100, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="opportunities",
        verbose_name=_("owner"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("opportunity")
        verbose_name_plural = _("opportunities")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["external_source", "external_id"],
                condition=~models.Q(external_id=""),
                name="opportunity_unique_external_id",
            )
        ]

    def __str__(self) -> str:
        return self.name
