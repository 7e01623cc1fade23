from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.models import Team


class Scenario(models.TextChoices):
    LLM_TRAINING = "llm_training", _("LLM training")
    INFERENCE = "inference", _("Inference")
    HPC = "hpc", _("HPC")
    STORAGE = "storage", _("Storage")


class Design(models.Model):
    """A sized network. `request` is the engine's request as JSON (the same body the API and the
    CLI accept); `result` is the engine's output for it, kept so that pages and quotes show exactly
    what was sized, even after the catalog changes. A draft may hold an incomplete request."""

    name = models.CharField(_("name"), max_length=200)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="designs",
        verbose_name=_("author"),
    )
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="designs", verbose_name=_("team")
    )
    customer = models.ForeignKey(
        "quotes.Customer",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="designs",
        verbose_name=_("customer"),
    )
    scenario = models.CharField(
        _("scenario"), max_length=20, choices=Scenario.choices, default=Scenario.LLM_TRAINING
    )
    is_draft = models.BooleanField(_("draft"), default=True)
    request = models.JSONField(_("request"), default=dict)
    result = models.JSONField(_("result"), null=True, blank=True)
    # Denormalised from `result` for the list's filters and sorting.
    gpus = models.PositiveIntegerField(_("GPUs"), null=True, blank=True, db_index=True)
    catalog_version = models.CharField(_("catalog version"), max_length=64, blank=True)
    copied_from = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="copies",
        verbose_name=_("copied from"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("design")
        verbose_name_plural = _("designs")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["team", "-created_at"])]

    def __str__(self) -> str:
        return self.name
