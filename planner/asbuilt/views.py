"""The as-built check's pages: the upload form beside the checks done so far, a check's punch
list (its progress polled by htmx while the worker compares) and the punch list as CSV. Access
is the handover pages': signed in, the design visible to the user's team (the services decide
for uploads)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from core.downloads import download
from core.errors import DomainError
from planner import selectors
from planner.asbuilt import services as asbuilt_services
from planner.asbuilt.models import AsBuiltCheck
from planner.models import Design


def _design(request: HttpRequest, pk: int) -> Design:
    return get_object_or_404(selectors.designs_visible_to(request.user), pk=pk)


def _check(request: HttpRequest, pk: int, check_id: int) -> AsBuiltCheck:
    design = _design(request, pk)
    return get_object_or_404(
        AsBuiltCheck.objects.select_related("design"), design=design, pk=check_id
    )


@login_required
@require_http_methods(["GET", "POST"])
def asbuilt_upload(request: HttpRequest, pk: int) -> HttpResponse:
    design = _design(request, pk)
    if design.result is None:
        raise Http404
    problems: list[str] = []
    if request.method == "POST":
        # One file, several (one lldpctl output a switch, `multiple` on the input), or a ZIP.
        uploads = request.FILES.getlist("file")
        if not uploads:
            problems = [asbuilt_services.no_file_text()]
        else:
            try:
                check = asbuilt_services.asbuilt_check_request_files(
                    user=request.user,
                    design_id=design.pk,
                    files=asbuilt_services.uploads_bytes(uploads),
                )
            except DomainError as exc:
                messages = [m for field in exc.field_messages().values() for m in field]
                problems = messages or [exc.message]
            else:
                return redirect("planner:asbuilt-check", pk=design.pk, check_id=check.pk)
    checks = design.asbuilt_checks.all()[:20]
    return render(
        request,
        "planner/asbuilt/upload.html",
        {"design": design, "problems": problems, "checks": checks},
        status=400 if problems else 200,
    )


@login_required
@require_GET
def asbuilt_check(request: HttpRequest, pk: int, check_id: int) -> HttpResponse:
    check = _check(request, pk, check_id)
    context = {
        "design": check.design,
        **asbuilt_services.check_presented(check=check),
        "upload_problems": asbuilt_services.upload_problems(check=check),
    }
    template = "planner/asbuilt/_check.html" if request.htmx else "planner/asbuilt/check.html"  # type: ignore[attr-defined]
    return render(request, template, context)


@login_required
@require_GET
def asbuilt_punch_csv(request: HttpRequest, pk: int, check_id: int) -> HttpResponse:
    check = _check(request, pk, check_id)
    if check.status != AsBuiltCheck.DONE:
        raise Http404
    return download(
        asbuilt_services.asbuilt_punch_csv(check=check),
        filename=f"design-{pk}-as-built-{check.pk}-punch-list.csv",
        content_type="text/csv",
    )
