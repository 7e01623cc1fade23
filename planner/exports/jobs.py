"""Design exports within bounds: a small export streams in the request, a large one (more rows
than `EXPORT_SYNC_MAX_ROWS`) is a background job (`core.jobs`) that writes an immutable file.
The cable-label sheet (PDF) is the same kind of job above `LABELS_SYNC_MAX_CABLES` cables, rendered
in batches of whole pages so that its progress bar moves while WeasyPrint lays it out.

The row count is known before any row is made (`cables_total` and the BOM's lines are in the
stored result), so the choice costs nothing; the cabling of a 1,000,000-GPU design (about two
million rows, 290 MB) never runs inside a request, where gunicorn's timeout would cut it short
into a truncated file with a 200."""

import hashlib
import logging
import os
import resource
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, override

from catalog.models import ServerSpec
from core.errors import DomainError
from core.fair_use import jobs_fair_use_check
from core.jobs import (
    JobFailed,
    JobKind,
    Progress,
    job_queue,
    job_requeue,
    job_retry,
    job_run,
    job_stuck,
    jobs_sweep,
)
from core.services import user_signed_in
from engine.design import Design as EngineDesign
from planner import services
from planner.exports import files as exports
from planner.exports.models import ExportFormat, ExportJob
from planner.handover import label_sheet
from planner.handover.cable_ids import Cable, identified
from planner.handover.elevations import Elevations, ServerModel, design_elevations
from planner.handover.labels import LABELS_PER_PAGE, labels_html, sheet_labels
from planner.models import Design

logger = logging.getLogger(__name__)
# Progress is written about this many times per export (one UPDATE each).
PROGRESS_STEPS = 100
# The worker's bound is memory: every page's layout is kept until the one PDF is written (peak
# RSS 430 MB for 2,652 cables, about 125 KB a cable over a 100 MB worker), so 4,000 cables peak
# near 600 MB, under the workers' 800 MB recycling mark; their 40 s of CPU sit well inside the
# 300 s soft time limit. Beyond it the CSV goes to a label printer (a 16,384-GPU design has
# some 40,000 cables, 3,400 A4 pages that nobody prints from one file).
LABELS_JOB_MAX_CABLES = 4_000
# Pages rendered per batch: each batch reports progress; fewer batches cost less (about 8% more
# CPU than one render at 20 pages a batch for 1,024 GPUs).
LABEL_PAGES_PER_BATCH = 20
# Rendering takes this share of the bar; writing the PDF (one step, no progress inside) the rest.
LABELS_RENDER_PERCENT = 85


class DesignNotSized(DomainError):
    """A draft that does not size has nothing to export."""

    http_status = 404
    code = "not_found"


class ExportNotReady(DomainError):
    http_status = 409
    code = "export_not_ready"


class ExportCorrupt(DomainError):
    """The stored file is missing or its bytes differ from the recorded SHA-256."""

    http_status = 409
    code = "export_corrupt"


class LabelSheetTooLarge(DomainError):
    """More cables than one label sheet renders within a worker's time limit."""

    http_status = 409
    code = "label_sheet_too_large"

    def __init__(self, cables: int) -> None:
        super().__init__(
            _(
                "This design has %(cables)s cables, too many for one label sheet (at most "
                "%(limit)s); download the labels as CSV for a label printer."
            )
            % {"cables": f"{cables:,}", "limit": f"{LABELS_JOB_MAX_CABLES:,}"}
        )
        self.cables = cables


def sync_max_rows() -> int:
    return int(settings.EXPORT_SYNC_MAX_ROWS)


def xlsx_sync_max_rows() -> int:
    return int(settings.EXPORT_XLSX_SYNC_MAX_ROWS)  # the limit and its reason: config/settings


def labels_sync_max_cables() -> int:
    return int(settings.LABELS_SYNC_MAX_CABLES)  # the limit and its reason: config/settings


def export_rows_total(*, design: Design, format: str) -> int:
    """How many data rows the export has (cables, for the label sheet), from the stored result
    (nothing is enumerated)."""
    result = design.result
    if format == ExportFormat.BOM_CSV:
        return len((result or {}).get("bom") or ())  # a draft that does not size: empty
    if result is None:
        raise DesignNotSized(_("This draft does not size yet; fix its errors first."))
    if format in (ExportFormat.CABLING_CSV, ExportFormat.LABELS_PDF):
        return int(result.get("cables_total") or 0)
    if format == ExportFormat.BOM_XLSX:  # the BOM sheet's lines, then the capped cabling sheet
        cables = int(result.get("cables_total") or 0)
        return len(result.get("bom") or ()) + min(cables, exports.CABLING_ROWS_IN_XLSX)
    raise DomainError(_("Unknown export format: %(format)s.") % {"format": format}, field="format")


def export_is_large(*, design: Design, format: str) -> bool:
    rows = export_rows_total(design=design, format=format)
    if format == ExportFormat.LABELS_PDF:
        return rows > labels_sync_max_cables()
    if format == ExportFormat.BOM_XLSX:
        return rows > xlsx_sync_max_rows()
    return rows > sync_max_rows()


# --- The handover's cables, as the pages and the worker both read them ---------------------------


def design_customer_server(*, gpus_per_server: int) -> ServerModel:
    """The catalog's customer-supplied server with the design's GPUs per server, if it lists
    one: its SKU names the servers in the racks and in NetBox. The catalog holds neither its
    height nor its power, so both stay the elevations' stated defaults."""
    spec = (
        ServerSpec.objects.filter(gpus=gpus_per_server)
        .select_related("product")
        .order_by("product__sku")
        .first()
    )
    return ServerModel(name=spec.product.sku) if spec is not None else ServerModel()


def design_handover_elevations(*, design: Design, engine: EngineDesign) -> Elevations:
    return design_elevations(
        engine, server=design_customer_server(gpus_per_server=engine.gpus_per_server)
    )


def design_label_cables(*, design: Design) -> Iterator[Cable]:
    """Every cable of the saved design with its id, in the cabling schedule's order."""
    engine = services.design_engine(design=design)
    elevations = design_handover_elevations(design=design, engine=engine)
    return identified(services.design_cabling(design=design), elevations)


def label_captions() -> dict[str, str]:
    """The label's words, in the active language."""
    return {"this_end": _("This end"), "far_end": _("Far end"), "length": _("Length")}


def labels_sheet_pdf(
    cables: list[Cable],
    *,
    captions: dict[str, str],
    progress: Callable[[int], None] | None = None,
    pages_per_batch: int = LABEL_PAGES_PER_BATCH,
) -> bytes:
    """The label sheet `planner.handover.labels` lays out, two labels a cable, rendered a batch
    of whole pages at a time and joined into one PDF (WeasyPrint's documented way to merge
    documents), so that `progress(cables_done)` is called after every batch: one WeasyPrint
    render of the whole sheet says nothing until it ends. The pages are the single render's:
    each batch fills whole pages (labels sit at absolute places on their own page)."""
    per_batch = max(1, pages_per_batch * LABELS_PER_PAGE // 2)  # two labels a cable
    if label_sheet.available():
        # Drawn straight into PDF (planner.handover.label_sheet): the same pages, several times
        # faster; progress after every `pages_per_batch` pages, in cables (two labels each).
        labels = sheet_labels(cables, captions=captions)
        report = None if progress is None else (lambda labels_done: progress(labels_done // 2))
        return label_sheet.sheet_pdf(labels, progress=report, every=2 * per_batch)
    from weasyprint import HTML  # imported late: loading WeasyPrint costs a second at start-up
    from weasyprint.text.fonts import FontConfiguration

    fonts = FontConfiguration()  # fonts found once, not once a batch
    documents = []
    for start in range(0, len(cables), per_batch):
        html = labels_html(cables[start : start + per_batch], captions=captions)
        documents.append(HTML(string=html).render(font_config=fonts))
        if progress is not None:
            progress(min(len(cables), start + per_batch))
    if not documents:  # no cable: the empty sheet the single render gives
        documents.append(HTML(string=labels_html([], captions=captions)).render())
    pages = [page for document in documents for page in document.pages]
    pdf: bytes = documents[0].copy(pages).write_pdf()
    return pdf


def export_chunks(*, design: Design, format: str) -> Iterator[str]:
    """The export's CSV text: the cabling schedule made lazily row by row (constant memory), a
    header first and then one chunk per row; the BOM (one line per part, a few hundred at most)
    in one chunk, exactly as `exports.bom_csv` writes it for the pages."""
    if format == ExportFormat.CABLING_CSV:
        return exports.cabling_csv_chunks(services.design_cabling(design=design))
    if format == ExportFormat.BOM_CSV:
        return iter([exports.design_bom_csv(design=design).decode()])
    raise DomainError(_("Unknown export format: %(format)s.") % {"format": format}, field="format")


# --- The job ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WrittenExport:
    path: str  # a temporary file, moved into storage by `_keep`
    sha256: str
    size_bytes: int
    rows: int


def _write_labels(job: ExportJob, progress: Progress) -> WrittenExport:
    cables = list(design_label_cables(design=job.design))
    total = max(1, len(cables))

    def rendered(done: int) -> None:
        progress(done * LABELS_RENDER_PERCENT // total, "rendering")

    started, cpu = time.perf_counter(), time.process_time()
    with override(job.language or None):
        pdf = labels_sheet_pdf(cables, captions=label_captions(), progress=rendered)
    # CPU beside wall time: on a shared machine the wall time is mostly the neighbours'.
    logger.info(
        "export %s: label sheet of %s cables rendered in %.1f s, CPU %.1f s, peak RSS %s MB",
        job.pk,
        len(cables),
        time.perf_counter() - started,
        time.process_time() - cpu,
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,  # KiB on Linux
    )
    handle, path = tempfile.mkstemp(prefix=f"export-{job.pk}-", suffix=".pdf")
    with os.fdopen(handle, "wb") as out:
        out.write(pdf)
    return WrittenExport(
        path=path, sha256=hashlib.sha256(pdf).hexdigest(), size_bytes=len(pdf), rows=len(cables)
    )


def _write(job: ExportJob, progress: Progress) -> WrittenExport:
    try:
        return _written(job, progress)
    except services.DesignEngineChanged as exc:
        # Refused in words (the engine would no longer derive the saved design), not a crash.
        raise JobFailed(exc.message) from exc


def _write_workbook(job: ExportJob, progress: Progress) -> WrittenExport:
    """The BOM workbook, as the page's download writes it, in the requester's language; the bar
    moves with the cabling sheet's rows (openpyxl's own save is the last few percent)."""
    total = max(1, job.rows_total)

    def written(rows: int) -> None:
        progress(min(95, rows * 100 // total), "writing")

    with override(job.language or None):
        data = exports.design_bom_xlsx(design=job.design, progress=written)
    handle, path = tempfile.mkstemp(prefix=f"export-{job.pk}-", suffix=".xlsx")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    return WrittenExport(
        path=path,
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        rows=job.rows_total,  # every row of both sheets, the cabling sheet capped as counted
    )


def _written(job: ExportJob, progress: Progress) -> WrittenExport:
    if job.format == ExportFormat.LABELS_PDF:
        return _write_labels(job, progress)
    if job.format == ExportFormat.BOM_XLSX:
        return _write_workbook(job, progress)
    digest = hashlib.sha256()
    size = rows = 0
    every = max(1, job.rows_total // PROGRESS_STEPS)
    handle, path = tempfile.mkstemp(prefix=f"export-{job.pk}-", suffix=".csv")
    try:
        with os.fdopen(handle, "wb") as out:
            for number, chunk in enumerate(export_chunks(design=job.design, format=job.format)):
                data = chunk.encode()
                out.write(data)
                digest.update(data)
                size += len(data)
                rows = number  # the first chunk is the header
                if number % every == 0 and job.rows_total:
                    progress(min(99, number * 100 // job.rows_total), "writing")
    except BaseException:
        os.unlink(path)
        raise
    if job.format == ExportFormat.BOM_CSV:
        rows = job.rows_total  # one chunk, not one a row: nothing to count
    return WrittenExport(path=path, sha256=digest.hexdigest(), size_bytes=size, rows=rows)


def _keep(job: ExportJob, written: WrittenExport) -> None:
    try:
        if written.rows != job.rows_total:
            logger.error("export %s: %s rows, %s expected", job.pk, written.rows, job.rows_total)
            raise JobFailed(_("The export came out incomplete; please try again."))
        name = job.storage_name(written.sha256)
        if default_storage.exists(name):
            default_storage.delete(name)  # an earlier attempt of this very job died before done
        with open(written.path, "rb") as source:
            saved = default_storage.save(name, File(source))
        if saved != name or _sha256_of(name) != written.sha256:
            raise OSError(f"export {job.pk}: stored bytes differ from the written ones")
    except OSError:
        logger.exception("export %s: storing failed", job.pk)
        raise JobFailed(_("The export could not be stored; please try again later.")) from None
    finally:
        if os.path.exists(written.path):
            os.unlink(written.path)
    job.file.name = name
    job.sha256 = written.sha256
    job.size_bytes = written.size_bytes


EXPORTS: JobKind[ExportJob, WrittenExport] = JobKind(
    model=ExportJob,
    task="planner.tasks.export_design_task",
    work=_write,
    store=_keep,
    exhausted=gettext_lazy("The export was interrupted too many times; please try again."),
    timed_out=gettext_lazy("The export took too long; please try again."),
    crashed=gettext_lazy(
        "The export failed because of an error. The team has the details in the log; please "
        "try again later."
    ),
)


@transaction.atomic
def export_request(
    *,
    user: User | AnonymousUser,
    design: Design,
    format: str = ExportFormat.CABLING_CSV,
    language: str = "",
) -> ExportJob:
    """The export job for this design as it is now, queued if it is not done or under way. Asking
    again returns the same job; a failed or stuck one (its worker died, its message was lost) is
    queued again. `language` is the document's (the label sheet's captions); the CSV files have
    none, so it is ignored for them."""
    rows_total = export_rows_total(design=design, format=format)
    if format == ExportFormat.LABELS_PDF:
        if rows_total > LABELS_JOB_MAX_CABLES:
            raise LabelSheetTooLarge(rows_total)
    elif format != ExportFormat.BOM_XLSX:  # the workbook's headings are in the reader's language
        language = ""
    requester = user_signed_in(user)
    job, created = ExportJob.objects.select_for_update().get_or_create(
        design=design,
        format=format,
        design_updated_at=design.updated_at,
        language=language,
        defaults={"requested_by": requester, "rows_total": rows_total},
    )
    if created:
        jobs_fair_use_check(user=requester, job=job)
        job_queue(kind=EXPORTS, job=job)
    elif job.status == ExportJob.FAILED:
        jobs_fair_use_check(user=requester, job=job)
        job_retry(kind=EXPORTS, job=job)
    elif job_stuck(job=job, now=timezone.now()):
        job_requeue(kind=EXPORTS, job=job)
    return job


def export_run(*, job_id: int) -> ExportJob:
    """Write and store one export (its task). Idempotent: a done export is left alone."""
    return job_run(kind=EXPORTS, job_id=job_id)


def exports_sweep() -> dict[str, int]:
    return jobs_sweep(kind=EXPORTS)


def _sha256_of(name: str) -> str:
    digest = hashlib.sha256()
    with default_storage.open(name, "rb") as stored:
        for chunk in iter(lambda: stored.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def export_file(*, job: ExportJob) -> File[bytes]:
    """The stored file of a done export, opened, after its bytes were checked against the
    recorded SHA-256: a file that no longer matches is an error, never the wrong bytes."""
    if job.status != ExportJob.DONE or not job.file.name:
        raise ExportNotReady(_("This export is not ready yet."))
    try:
        matches = _sha256_of(job.file.name) == job.sha256
    except OSError:
        matches = False
    if not matches:
        logger.error("export %s: stored file missing or changed", job.pk)
        raise ExportCorrupt(_("The stored export is missing or damaged; ask for it again."))
    return default_storage.open(job.file.name, "rb")
