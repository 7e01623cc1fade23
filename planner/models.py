from functools import cached_property
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.models import Team
from engine.result import DesignResult, result_from_json


class Scenario(models.TextChoices):
    LLM_TRAINING = "llm_training", _("LLM training")
    INFERENCE = "inference", _("Inference")
    HPC = "hpc", _("HPC")
    STORAGE = "storage", _("Storage")


class SizingSnapshot(models.Model):
    """The catalog (products, media rules, unit prices and costs) a design was sized and priced
    with, stored once per content: a thousand designs sized on one catalog share one row."""

    sha256 = models.CharField(_("SHA-256"), max_length=64, unique=True)
    catalog_version = models.CharField(_("catalog version"), max_length=64, blank=True)
    # The default price list's currency when the snapshot was taken: its prices are in it.
    currency = models.CharField(_("currency"), max_length=3, blank=True)
    data = models.JSONField(_("catalog snapshot"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("sizing snapshot")
        verbose_name_plural = _("sizing snapshots")

    def __str__(self) -> str:
        return f"{self.catalog_version or self.sha256[:12]} ({self.currency or '-'})"


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
        "customers.Customer",
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
    archived_at = models.DateTimeField(_("archived at"), null=True, blank=True, db_index=True)
    request = models.JSONField(_("request"), default=dict)
    result = models.JSONField(_("result"), null=True, blank=True)
    # Denormalised from `result` for the list's filters and sorting.
    gpus = models.PositiveIntegerField(_("GPUs"), null=True, blank=True, db_index=True)
    catalog_version = models.CharField(_("catalog version"), max_length=64, blank=True)
    # What the design was sized with; pages, exports and documents never re-size against today's
    # catalog. Empty for drafts that do not size and for designs saved before snapshots existed.
    sizing_snapshot = models.ForeignKey(
        SizingSnapshot,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="designs",
        verbose_name=_("sizing snapshot"),
    )
    # Re-sizing a saved design against today's catalog saves a new row (`copied_from` the old
    # one, `version` one higher) rather than changing this one: quotes and their documents point
    # at the row they priced, and that must never change under them.
    version = models.PositiveIntegerField(_("version"), default=1)
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

    @property
    def typed_result(self) -> DesignResult | None:
        """The stored result read through the codec. Decoded on each read, never cached: the
        JSON may be changed in place between reads."""
        return None if self.result is None else result_from_json(self.result)


class FrozenDesign(models.Model):
    """A design as a quote froze it: its request, its result and the catalog snapshot it was
    sized with, never changed once written. A quote revision points at one (PROTECT); a revised
    revision shares its predecessor's. Stored once per content (`sha256` of `as_json()`), so the
    hundred revisions of one design's quotes share a row. The design it came from is kept as a
    number only: the design may be re-sized into a new row or deleted, the frozen copy may not."""

    sha256 = models.CharField(_("SHA-256"), max_length=64, unique=True)
    source_design_id = models.PositiveIntegerField(_("design"), null=True, blank=True)
    name = models.CharField(_("name"), max_length=200)
    catalog_version = models.CharField(_("catalog version"), max_length=64, blank=True)
    # Null for designs saved before snapshots were kept: documents then size against the
    # design's own catalog (planner.frozen).
    sizing_snapshot = models.ForeignKey(
        SizingSnapshot,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="frozen_designs",
        verbose_name=_("sizing snapshot"),
    )
    request = models.JSONField(_("request"), default=dict)
    result = models.JSONField(_("result"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("frozen design")
        verbose_name_plural = _("frozen designs")

    def __str__(self) -> str:
        return self.name

    @property
    def sizing_snapshot_sha256(self) -> str:
        """The snapshot's SHA-256, "" when none was kept."""
        return self.sizing_snapshot.sha256 if self.sizing_snapshot is not None else ""

    @property
    def gpus_total(self) -> int:
        """Every pool's GPUs (engine.pools)."""
        return self.typed_result.gpus_total if self.typed_result is not None else 0

    @property
    def servers_total(self) -> int:
        return self.typed_result.servers_total if self.typed_result is not None else 0

    @cached_property
    def typed_result(self) -> DesignResult | None:
        """The result read through the codec, once per instance: the row never changes."""
        return None if self.result is None else result_from_json(self.result)

    def as_json(self) -> dict[str, Any]:
        """The frozen design as one JSON value, with the keys quote revisions stored it under
        before it had a table of its own: the content a revision's hash covers."""
        return frozen_json(
            design_id=self.source_design_id,
            name=self.name,
            catalog_version=self.catalog_version,
            sizing_snapshot_sha256=self.sizing_snapshot_sha256,
            request=self.request,
            result=self.result,
        )


def frozen_json(
    *,
    design_id: int | None,
    name: str,
    catalog_version: str,
    sizing_snapshot_sha256: str,
    request: Any,
    result: Any,
) -> dict[str, Any]:
    return {
        "design_id": design_id,
        "name": name,
        "catalog_version": catalog_version,
        "sizing_snapshot": sizing_snapshot_sha256,
        "request": dict(request or {}),
        "result": result or None,
    }


from planner.asbuilt.models import AsBuiltCheck  # noqa: E402, F401  (registered with the app)
from planner.exports.models import ExportJob  # noqa: E402, F401  (registered with the app)
