"""Handover downloads for a saved design: rack elevations (SVG, XLSX), cable labels (PDF, CSV),
NetBox, containerlab, Slurm, the cabling schedule as JSON, the simulation and cluster exports
(NVIDIA Launch Kit, InfraGraph, SimAI), the bundle of them all, and the page listing them.

Access is the design pages': signed in, and the design visible to the user's team. Every file
comes from the design as saved (its request and the catalog snapshot it was sized with), never
from today's catalog."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from core.downloads import download, download_stream
from core.errors import TooManyJobs
from engine.design import Design as EngineDesign
from planner import selectors, services
from planner.exports import jobs as export_jobs
from planner.exports.models import ExportFormat
from planner.handover.cable_ids import Cable, identified
from planner.handover.containerlab import containerlab_yaml
from planner.handover.elevations import Elevations
from planner.handover.files import (
    KINDS,
    HandoverTooLarge,
    check_size,
    filename,
    handover_file,
    handover_of,
)
from planner.handover.labels import labels_csv_chunks, labels_pdf
from planner.handover.netbox import netbox_zip
from planner.handover.rack_sheet import rack_sheet_xlsx
from planner.handover.rack_svg import elevations_svg
from planner.handover.schedule_json import schedule_json_chunks
from planner.handover.services import design_page_elevations, handover_page, svg_labels
from planner.handover.slurm import topology_conf
from planner.models import Design
from planner.views import design_refusals


@dataclass(frozen=True)
class _Handover:
    design: Design
    engine: EngineDesign
    elevations: Elevations

    def cables(self) -> Iterator[Cable]:
        return identified(services.design_cabling(design=self.design), self.elevations)


def _sized(request: HttpRequest, pk: int) -> Design:
    design = get_object_or_404(selectors.designs_visible_to(request.user), pk=pk)
    if design.result is None:
        raise Http404(_("This draft does not size yet; fix its errors first."))
    return design


def _handover(request: HttpRequest, pk: int) -> _Handover:
    design = _sized(request, pk)
    engine = services.design_engine(design=design)
    elevations = export_jobs.design_handover_elevations(design=design, engine=engine)
    return _Handover(design=design, engine=engine, elevations=elevations)


@login_required
@require_GET
@design_refusals
def handover(request: HttpRequest, pk: int) -> HttpResponse:
    # The racks a page at a time: every rack of 1,000,000 GPUs (36,288) made 87 MB of HTML
    # that a browser never finished loading; the SVG and XLSX downloads carry them all.
    design = _sized(request, pk)
    context = handover_page(design=design, page=request.GET.get("page"))
    # A rack-scale rack has trays and power shelves, not servers and PDUs: the legend says so.
    rack_scale = bool((design.result or {}).get("scale_up"))
    return render(
        request,
        "planner/handover/handover.html",
        {"design": design, "rack_scale": rack_scale, **context},
    )


@login_required
@require_GET
@design_refusals
def design_elevations_section(request: HttpRequest, pk: int) -> HttpResponse:
    """The design page's elevations section, which the page of a very large design fetches
    once it has loaded (past `LARGE_DESIGN_SERVERS`)."""
    design = _sized(request, pk)
    context = design_page_elevations(design=design)
    return render(request, "planner/handover/_elevations.html", context)


@login_required
@require_GET
@design_refusals
def racks_svg(request: HttpRequest, pk: int) -> HttpResponse:
    data = _handover(request, pk)
    return download(
        elevations_svg(data.elevations, svg_labels()),
        filename=f"design-{pk}-racks.svg",
        content_type="image/svg+xml",
    )


@login_required
@require_GET
@design_refusals
def racks_xlsx(request: HttpRequest, pk: int) -> HttpResponse:
    data = _handover(request, pk)
    headers = {
        "rack": _("Rack"),
        "u": _("U"),
        "units": _("Height (U)"),
        "device": _("Device"),
        "model": _("Model"),
        "role": _("Role"),
        "power_w": _("Power, typical (W)"),
        "power_max_w": _("Power, maximum (W)"),
    }
    content = rack_sheet_xlsx(
        data.elevations,
        title=data.design.name,
        headers=headers,
        sheet_name=_("Rack and U position"),
    )
    return download(
        content,
        filename=f"design-{pk}-racks.xlsx",
        content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    )


@login_required
@require_GET
@design_refusals
def labels_pdf_view(request: HttpRequest, pk: int) -> HttpResponse:
    """A small design's sheet comes at once (a few hundred cables render in a second or two,
    and a job's page and polling would only slow it); a larger one is an export job rendered by
    a worker, whose page shows the progress bar and then the download. Asking again finds the
    same job."""
    design = _sized(request, pk)
    format = ExportFormat.LABELS_PDF
    if not export_jobs.export_is_large(design=design, format=format):
        cables = list(export_jobs.design_label_cables(design=design))
        content = labels_pdf(cables, captions=export_jobs.label_captions())
        return download(content, filename=f"design-{pk}-labels.pdf", content_type="application/pdf")
    try:
        job = export_jobs.export_request(
            user=request.user, design=design, format=format, language=get_language() or ""
        )
    except (export_jobs.LabelSheetTooLarge, TooManyJobs) as exc:
        messages.error(request, exc.message)
        return redirect("planner:handover", pk=pk)
    return redirect("planner:export-job", pk=pk, job_id=job.pk)


@login_required
@require_GET
@design_refusals
def labels_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    data = _handover(request, pk)
    return download_stream(
        labels_csv_chunks(data.cables()),
        filename=f"design-{pk}-labels.csv",
        content_type="text/csv",
    )


@login_required
@require_GET
@design_refusals
def netbox(request: HttpRequest, pk: int) -> HttpResponse:
    data = _handover(request, pk)
    catalog = services.design_catalog(design=data.design)
    vendors = {sku: product.vendor for sku, product in catalog.by_sku().items()}
    content = netbox_zip(data.engine, data.elevations, data.cables(), vendors=vendors)
    return download(content, filename=f"design-{pk}-netbox.zip", content_type="application/zip")


@login_required
@require_GET
@design_refusals
def containerlab(request: HttpRequest, pk: int) -> HttpResponse:
    data = _handover(request, pk)
    rows = services.design_cabling(design=data.design)
    content = containerlab_yaml(data.engine, rows, name=f"ezmax-design-{pk}")
    return download(content, filename=f"design-{pk}.clab.yml", content_type="application/yaml")


@login_required
@require_GET
@design_refusals
def slurm(request: HttpRequest, pk: int) -> HttpResponse:
    data = _handover(request, pk)
    return download(topology_conf(data.engine), filename="topology.conf", content_type="text/plain")


@login_required
@require_GET
@design_refusals
def cabling_json(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    data = _handover(request, pk)
    about = {"id": data.design.pk, "name": data.design.name, "gpus": data.engine.gpus}
    return download_stream(
        schedule_json_chunks(data.cables(), design=about),
        filename=f"design-{pk}-cabling.json",
        content_type="application/json",
    )


@login_required
@require_GET
@design_refusals
def handover_file_download(request: HttpRequest, pk: int, kind: str) -> HttpResponse:
    """One of `planner.handover.files.KINDS` (the URL names it); one too large to make at once
    goes back to the handover page with the reason."""
    design = _sized(request, pk)
    try:
        check_size(design=design, kind=kind)
    except HandoverTooLarge as exc:
        messages.error(request, exc.message)
        return redirect("planner:handover", pk=pk)
    content = handover_file(handover_of(design), kind)
    return download(content, filename=filename(design, kind), content_type=KINDS[kind][1])
