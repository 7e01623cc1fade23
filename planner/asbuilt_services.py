"""The as-built check of a design: an upload is read and checked in the request (format, size,
devices and ports the design has, no port or neighbour twice), every problem named with its
line; only a clean upload is stored, with its job, in one transaction. The comparison runs in a
worker (`planner.asbuilt_tasks`) on the design as saved, never on today's catalog."""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.errors import DomainError
from core.jobs import JobFailed, JobKind, Progress, job_queue, job_run, jobs_sweep
from core.services import user_signed_in
from planner import selectors, services
from planner.asbuilt_models import AsBuiltCheck
from planner.engine.design import Design as EngineDesign
from planner.handover import asbuilt
from planner.handover.cable_ids import identified
from planner.handover.elevations import design_elevations
from planner.handover.rack_svg import elevations_svg
from planner.i18n import translated
from planner.models import Design

logger = logging.getLogger(__name__)


class AsBuiltDesignNotSized(DomainError):
    http_status = 404
    code = "not_found"


class AsBuiltUploadInvalid(DomainError):
    """The upload cannot be checked; `problems` says why, one sentence a line of the file."""

    code = "asbuilt_upload_invalid"

    def __init__(self, problems: list[str]) -> None:
        super().__init__(problems[0], field="file")
        self.problems = problems


def problem_text(problem: asbuilt.Problem) -> str:
    """One upload problem in the reader's language, naming its line."""
    params: dict[str, Any] = dict(problem.params)
    sentences = {
        "too_large": _("The file is larger than %(size_mb)s MB."),
        "empty": _("The file is empty."),
        "not_utf8": _("The file is not UTF-8 text."),
        "bad_header": _("The first line must be the header %(expected)s."),
        "columns": _("%(count)s columns; a line has %(expected)s."),
        "blank_field": _("A column is empty."),
        "bad_json": _("This is not valid JSON (%(reason)s)."),
        "no_device": _(
            "One lldpctl output and no device name: name the file after the switch "
            "(leaf01.json), or upload an object of outputs keyed by device name."
        ),
        "not_lldp": _("This is not lldpctl JSON output."),
        "no_neighbor_name": _("The neighbour on port %(port)s reports no system name."),
        "no_neighbor_port": _("The neighbour on port %(port)s reports no port."),
        "unknown_device": _("The design has no device %(device)s."),
        "unknown_port": _("The design's %(device)s has no port %(port)s."),
        "duplicate_port": _("%(device)s %(port)s is listed already, on line %(first)s."),
        "duplicate_neighbor": _(
            "%(device)s %(port)s is already the neighbour of another port, on line %(first)s."
        ),
    }
    sentence = sentences.get(problem.code, problem.code) % params
    if problem.line is None:
        return sentence
    return _("Line %(line)s: %(problem)s") % {"line": problem.line, "problem": sentence}


def _tier_ports(engine: EngineDesign) -> dict[tuple[str, str], int]:
    return {
        (plane.name, tier.role): tier.physical_ports
        for plane in engine.planes
        for tier in plane.tiers
    }


def _read(*, design: Design, filename: str, data: bytes) -> tuple[str, int]:
    """The upload's format and neighbour count, or every problem it has."""
    try:
        kind, neighbours = asbuilt.read_upload(data, filename=filename)
        engine = services.design_engine(design=design)
        rows = services.design_cabling(design=design)
        asbuilt.check_neighbours(neighbours, asbuilt.port_book(rows, _tier_ports(engine)))
    except asbuilt.UploadRejected as rejected:
        raise AsBuiltUploadInvalid([problem_text(p) for p in rejected.problems]) from None
    return str(kind), len(neighbours)


def asbuilt_check_request(
    *, user: User | AnonymousUser, design_id: object, filename: str, data: bytes
) -> AsBuiltCheck:
    """Check an upload and queue its comparison. Access is decided here: a design the user may
    not see is not found. Nothing is stored unless the whole upload is clean."""
    uploader = user_signed_in(user)
    design = selectors.design_for(user=user, design_id=design_id)
    if design.result is None:
        raise AsBuiltDesignNotSized(_("This draft does not size yet; fix its errors first."))
    if len(data) > asbuilt.MAX_UPLOAD_BYTES:  # before reading a byte of it
        raise AsBuiltUploadInvalid(
            [problem_text(asbuilt.Problem(code="too_large", params={"size_mb": 20}))]
        )
    kind, count = _read(design=design, filename=filename, data=data)
    digest = hashlib.sha256(data).hexdigest()
    name = f"asbuilt/design-{design.pk}-{digest}-{secrets.token_hex(8)}.{kind}"
    stored = default_storage.save(name, ContentFile(data))
    try:
        with transaction.atomic():
            check = AsBuiltCheck.objects.create(
                design=design,
                design_updated_at=design.updated_at,
                format=kind,
                original_name=filename[-255:],
                file=stored,
                sha256=digest,
                size_bytes=len(data),
                neighbours=count,
                requested_by=uploader,
            )
            job_queue(kind=ASBUILT, job=check)
    except BaseException:
        default_storage.delete(stored)  # the row was not written: no file without its check
        raise
    return check


# --- The job ------------------------------------------------------------------------------------


def _work(check: AsBuiltCheck, progress: Progress) -> dict[str, Any]:
    with default_storage.open(str(check.file.name), "rb") as stored:
        data = stored.read()
    if hashlib.sha256(data).hexdigest() != check.sha256:
        raise JobFailed(_("The uploaded file is missing or damaged; upload it again."))
    neighbours = asbuilt.read_upload(data, filename=check.original_name)[1]
    progress(5, "reading")
    design = check.design
    engine = services.design_engine(design=design)
    elevations = design_elevations(engine)
    total = int((design.result or {}).get("cables_total") or 0) or 1
    cables = identified(services.design_cabling(design=design), elevations)

    def advance(done: int) -> None:
        if done % 10_000 == 0:
            progress(min(99, 5 + done * 94 // total), "comparing")

    return asbuilt.compare(cables, neighbours, rack_of=elevations.device_rack, progress=advance)


def _store(check: AsBuiltCheck, result: dict[str, Any]) -> None:
    check.result = result


ASBUILT: JobKind[AsBuiltCheck, dict[str, Any]] = JobKind(
    model=AsBuiltCheck,
    task="planner.asbuilt_tasks.asbuilt_check_task",
    work=_work,
    store=_store,
    exhausted=gettext_lazy("The check was interrupted too many times; please upload again."),
    timed_out=gettext_lazy("The check took too long; please try again."),
    crashed=gettext_lazy(
        "The check failed because of an error. The team has the details in the log; please "
        "try again later."
    ),
)


def asbuilt_check_run(*, check_id: int) -> AsBuiltCheck:
    """Compare one upload with its design (its task). Idempotent."""
    return job_run(kind=ASBUILT, job_id=check_id)


def asbuilt_checks_sweep() -> dict[str, int]:
    return jobs_sweep(kind=ASBUILT)


def status_names() -> Mapping[str, str]:
    return {
        asbuilt.Status.CORRECT: _("Correct"),
        asbuilt.Status.SWAPPED: _("Swapped ends"),
        asbuilt.Status.WRONG_PORT: _("Wrong port"),
        asbuilt.Status.MISSING: _("Missing"),
        asbuilt.Status.UNEXPECTED: _("Unexpected"),
    }


def asbuilt_punch_csv(*, check: AsBuiltCheck) -> str:
    return asbuilt.punch_csv(check.result or {}, status_names=status_names())


def no_file_text() -> str:
    return _("Choose a file to upload.")


def upload_bytes(upload: Any) -> bytes:
    """An uploaded file's bytes, reading at most one byte past the cap (a larger file is refused
    by its size without being read whole)."""
    data: bytes = upload.read(asbuilt.MAX_UPLOAD_BYTES + 1)
    return data


PUNCH_ROWS_IN_PDF = 500  # beyond this the appendix says where the whole list is
RACKS_IN_PDF = 40  # as the proposal: beyond this the drawing stays on the handover page


def check_presented(*, check: AsBuiltCheck, limit: int | None = None) -> dict[str, Any]:
    """What the page and the PDF appendix show of a check: counts, racks and the punch list
    (its first `limit` rows), each finding in the reader's language."""
    names = status_names()
    result = check.result or {}
    rows = result.get("punch", ())
    shown = rows if limit is None else rows[:limit]
    counts = result.get("counts", {})
    return {
        "check": check,
        "counts": [(key, names[key], counts.get(key, 0)) for key in names],
        "racks": [rack for rack in result.get("racks", ()) if rack.get("rack")],
        "punch": [{**row, "status_name": names.get(row["status"], row["status"])} for row in shown],
        "punch_total": len(rows),
        "cables_total": result.get("cables_total", 0),
        "links_observed": result.get("links_observed", 0),
    }


def latest_check_id(*, design: Design) -> int | None:
    """The design's latest finished as-built check, the one the acceptance report carries."""
    check = design.asbuilt_checks.filter(status=AsBuiltCheck.DONE).order_by("-finished_at").first()
    return check.pk if check is not None else None


def asbuilt_appendix_context(*, design: Design | None) -> dict[str, Any]:
    """The acceptance report's appendices (phases 4 and 5 of the plan): the latest finished
    as-built check of the design, its punch list and per-rack summary, and the design's rack
    elevations. Empty when the design has no finished check: the appendix is then left out."""
    if design is None or design.result is None:
        return {}
    check = design.asbuilt_checks.filter(status=AsBuiltCheck.DONE).order_by("-finished_at").first()
    if check is None:
        return {}
    elevations = design_elevations(services.design_engine(design=design))
    labels = {
        "power": _("Typical"),
        "max": _("max"),
        "over": _("over its height"),
        "cable_manager": _("1U cable manager"),
    }
    return {
        "asbuilt": check_presented(check=check, limit=PUNCH_ROWS_IN_PDF),
        "elevations_racks": len(elevations.racks),
        "elevations_warnings": [translated(warning) for warning in elevations.warnings],
        "elevations_svg": (
            elevations_svg(elevations, labels) if len(elevations.racks) <= RACKS_IN_PDF else ""
        ),
    }
