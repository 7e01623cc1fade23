"""The export job: a design export too large for one request (over `EXPORT_SYNC_MAX_ROWS` rows),
or a document rendered in a worker (the cable-label sheet), written to an immutable file. Kept
apart from `planner.models` (which imports it) so that the export feature stays in its own
modules."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from core.models import Job


class ExportFormat(models.TextChoices):
    CABLING_CSV = "cabling.csv", _("Cabling schedule (CSV)")
    BOM_CSV = "bom.csv", _("Bill of materials (CSV)")
    BOM_XLSX = "bom.xlsx", _("Bill of materials and cabling (XLSX)")
    LABELS_PDF = "labels.pdf", _("Cable labels (PDF, A4, 3 x 8)")


CONTENT_TYPES: dict[str, str] = {
    ExportFormat.CABLING_CSV: "text/csv",
    ExportFormat.BOM_CSV: "text/csv",
    ExportFormat.BOM_XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ExportFormat.LABELS_PDF: "application/pdf",
}


class ExportJob(Job):
    """One export of one design, and the job that writes it (`core.jobs`: lease, heartbeat,
    retries and sweep as for every job). One row per design, format, design revision (its
    `updated_at`) and language: asking again returns the same job.

    Its file is immutable: stored under a name carrying the job's id and the SHA-256 of the bytes,
    never shared with another export and never rewritten; every download checks the hash."""

    design = models.ForeignKey(
        "planner.Design",
        on_delete=models.CASCADE,
        related_name="export_jobs",
        verbose_name=_("design"),
    )
    format = models.CharField(_("format"), max_length=16, choices=ExportFormat.choices)
    # The design as it was when the export was asked for: a draft edited since gets a new export.
    design_updated_at = models.DateTimeField(_("design saved at"))
    # Rows of a CSV; cables of a label sheet (two labels each).
    rows_total = models.PositiveIntegerField(_("rows"))
    # The language a document is written in (the label sheet's captions): the requester's, since
    # the worker has no request to read it from. Empty for the CSV files, which have none.
    language = models.CharField(_("language"), max_length=16, blank=True, default="")
    file = models.FileField(_("file"), upload_to="exports/", blank=True, max_length=255)
    sha256 = models.CharField(_("SHA-256"), max_length=64, blank=True)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"), null=True, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("requested by"),
    )

    class Meta(Job.Meta):
        verbose_name = _("export")
        verbose_name_plural = _("exports")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["design", "format", "design_updated_at", "language"],
                name="export_once_per_design_format_revision_language",
            )
        ]

    def __str__(self) -> str:
        return f"design {self.design_id} {self.format} ({self.status})"

    @property
    def filename(self) -> str:
        """The name the reader's browser saves it under (not the storage name)."""
        return f"design-{self.design_id}-{self.format}"  # design-7-cabling.csv

    @property
    def content_type(self) -> str:
        return CONTENT_TYPES.get(self.format, "application/octet-stream")

    def storage_name(self, sha256: str) -> str:
        """The job's own id and the content's hash are in the name: no other export can write it."""
        stem, extension = self.format.split(".")
        return f"exports/design-{self.design_id}-{stem}-{extension}-{self.pk}-{sha256}.{extension}"
