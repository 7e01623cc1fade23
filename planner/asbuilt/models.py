"""The as-built check: neighbour data uploaded from the built cluster, compared with a design's
cabling by a worker (`core.jobs`). Kept apart from `planner.models` (which imports it), as the
export job is."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.models import Job


class AsBuiltFormat(models.TextChoices):
    LLDP = "lldp", _("lldpctl JSON")
    CSV = "csv", _("Neighbour CSV")


class AsBuiltCheck(Job):
    """One upload and its comparison with the design as saved when it was uploaded.

    The uploaded file is immutable: stored once under a name carrying the design, the check's
    content hash and a random token, never rewritten; the worker checks the hash before reading
    it. `result` is the punch list (`planner.asbuilt.checking.compare`), set when done."""

    design = models.ForeignKey(
        "planner.Design",
        on_delete=models.CASCADE,
        related_name="asbuilt_checks",
        verbose_name=_("design"),
    )
    design_updated_at = models.DateTimeField(_("design saved at"))
    format = models.CharField(_("format"), max_length=8, choices=AsBuiltFormat.choices)
    original_name = models.CharField(_("file name"), max_length=255)
    file = models.FileField(_("file"), upload_to="asbuilt/", max_length=255)
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"))
    neighbours = models.PositiveIntegerField(_("neighbour lines"))
    result = models.JSONField(_("result"), null=True, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("uploaded by"),
    )

    class Meta(Job.Meta):
        verbose_name = _("as-built check")
        verbose_name_plural = _("as-built checks")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"design {self.design_id} as-built {self.pk} ({self.status})"
