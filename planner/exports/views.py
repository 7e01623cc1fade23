"""Design export pages within bounds: the cabling schedule streams when small; a larger one
(over EXPORT_SYNC_MAX_ROWS rows) becomes a background job, shown with a progress bar that polls
until its file can be downloaded (the handover page's label sheet is such a job too). The BOM
workbook, whose cabling sheet runs to 100,000 rows, is one over EXPORT_XLSX_SYNC_MAX_ROWS rows.
These routes come first in planner/urls.py, so the design page's links reach them. (The BOM
CSV, one line per part, stays with planner.views.)"""

from django.contrib.auth.decorators import login_required
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from core.downloads import download, download_stream
from core.errors import DomainError
from core.view_errors import refused_as_message
from planner import selectors
from planner.exports import files as exports
from planner.exports import jobs as export_jobs
from planner.exports.models import CONTENT_TYPES, ExportFormat, ExportJob
from planner.models import Design
from planner.views import design_refusals


def _visible(request: HttpRequest, pk: int) -> Design:
    return get_object_or_404(selectors.designs_visible_to(request.user), pk=pk)


def _export(request: HttpRequest, pk: int, format: str) -> HttpResponseBase:
    design = _visible(request, pk)
    try:
        large = export_jobs.export_is_large(design=design, format=format)
    except export_jobs.DesignNotSized as exc:
        raise Http404(exc.message) from exc
    if not large and format == ExportFormat.BOM_XLSX:
        return download(
            exports.design_bom_xlsx(design=design),
            filename=f"design-{design.pk}-bom.xlsx",
            content_type=CONTENT_TYPES[format],
        )
    if not large:
        stem = format.split(".")[0]
        return download_stream(
            export_jobs.export_chunks(design=design, format=format),
            filename=f"design-{design.pk}-{stem}.csv",
            content_type="text/csv",
        )
    # Refused (too many jobs of this user or team under way): the design page says why.
    with refused_as_message(request):
        job = export_jobs.export_request(
            user=request.user, design=design, format=format, language=get_language() or ""
        )
        return render(
            request, "planner/export_job.html", {"job": job, "design": design}, status=202
        )
    return redirect("planner:design-detail", pk=design.pk)


@login_required
@require_GET
@design_refusals
def export_cabling_csv(request: HttpRequest, pk: int) -> HttpResponseBase:
    return _export(request, pk, ExportFormat.CABLING_CSV)


@login_required
@require_GET
@design_refusals
def export_bom_xlsx(request: HttpRequest, pk: int) -> HttpResponseBase:
    return _export(request, pk, ExportFormat.BOM_XLSX)


def _job(request: HttpRequest, pk: int, job_id: int) -> ExportJob:
    design = _visible(request, pk)
    return get_object_or_404(ExportJob.objects.select_related("design"), design=design, pk=job_id)


@login_required
@require_GET
def export_status(request: HttpRequest, pk: int, job_id: int) -> HttpResponse:
    """The job's progress: the partial for htmx polling, the page otherwise."""
    job = _job(request, pk, job_id)
    template = "planner/_export_job.html" if request.htmx else "planner/export_job.html"  # type: ignore[attr-defined]
    return render(request, template, {"job": job, "design": job.design})


@login_required
@require_GET
def export_download(request: HttpRequest, pk: int, job_id: int) -> HttpResponseBase:
    job = _job(request, pk, job_id)
    try:
        stored = export_jobs.export_file(job=job)
    except DomainError as exc:
        return render(
            request,
            "planner/export_job.html",
            {"job": job, "design": job.design, "problem": exc.message},
            status=exc.http_status,
        )
    response = FileResponse(
        stored, as_attachment=True, filename=job.filename, content_type=job.content_type
    )
    response["X-Content-SHA256"] = job.sha256
    return response
