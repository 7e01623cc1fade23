"""The as-built check of a design: an upload is read and checked in the request (format, size,
devices and ports the design has, no port or neighbour twice), every problem named with its
line; only a clean upload is stored, with its job, in one transaction. The comparison runs in a
worker (`planner.asbuilt.tasks`) on the design as saved, never on today's catalog."""

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
from engine.design import Design as EngineDesign
from planner import selectors, services
from planner.asbuilt import checking, reading
from planner.asbuilt.models import AsBuiltCheck
from planner.handover.cable_ids import identified
from planner.handover.elevations import design_elevations
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

    def field_messages(self) -> dict[str, list[str]]:
        return {"file": list(self.problems)}


def problem_text(problem: reading.Problem) -> str:
    """One upload problem in the reader's language, naming its file (when the upload has
    several, or is a ZIP) and its line."""
    params: dict[str, Any] = dict(problem.params)
    code = problem.code
    if code in ("duplicate_port", "duplicate_neighbor") and params.get("first_source"):
        code += "_in"  # the first mention is in a file of its own: name it
    sentences = {
        "too_large": _("The file is larger than %(size_mb)s MB."),
        "too_large_total": _("The files together are larger than %(size_mb)s MB."),
        "too_large_unpacked": _(
            "The archive's files come to more than %(size_mb)s MB unpacked; it is not read."
        ),
        "too_many_files": _("%(count)s files; one upload takes at most %(limit)s."),
        "duplicate_file": _("Another file of the upload has the same name."),
        "bad_zip": _("This is not a ZIP archive that can be read."),
        "bad_zip_member": _("This member of the ZIP archive cannot be unpacked."),
        "zip_folder": _(
            "Files in folders are not read: put each switch's file at the top of the archive."
        ),
        "zip_encrypted": _("The file is encrypted."),
        "zip_nested": _("An archive inside the archive is not read."),
        "zip_member_type": _("Only .json (lldpctl) and .csv files are read."),
        "duplicate_port_in": _(
            "%(device)s %(port)s is listed already, in %(first_source)s on line %(first)s."
        ),
        "duplicate_neighbor_in": _(
            "%(device)s %(port)s is already the neighbour of another port, in %(first_source)s "
            "on line %(first)s."
        ),
        "empty": _("The file is empty."),
        "not_utf8": _("The file is not UTF-8 text."),
        "bad_header": _("The first line must be the header %(expected)s."),
        "columns": _("%(count)s columns; a line has %(expected)s."),
        "blank_field": _("A column is empty."),
        "bad_csv": _(
            "This line cannot be read as CSV: a field is longer than %(limit)s characters."
        ),
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
    sentence = sentences.get(code, code) % params
    if problem.source and problem.line is not None:
        return _("%(file)s, line %(line)s: %(problem)s") % {
            "file": problem.source, "line": problem.line, "problem": sentence}  # fmt: skip
    if problem.source:
        return _("%(file)s: %(problem)s") % {"file": problem.source, "problem": sentence}
    if problem.line is None:
        return sentence
    return _("Line %(line)s: %(problem)s") % {"line": problem.line, "problem": sentence}


def _tier_ports(engine: EngineDesign) -> dict[tuple[str, str], int]:
    return {
        (plane.name, tier.role): tier.physical_ports
        for plane in engine.planes
        for tier in plane.tiers
    }


def _too_large(code: str = "too_large") -> AsBuiltUploadInvalid:
    size_mb = reading.MAX_UPLOAD_BYTES // (1024 * 1024)
    return AsBuiltUploadInvalid(
        [problem_text(reading.Problem(code=code, params={"size_mb": size_mb}))]
    )


def asbuilt_check_request(
    *, user: User | AnonymousUser, design_id: object, filename: str, data: bytes
) -> AsBuiltCheck:
    """Check one uploaded file (lldpctl JSON, CSV, or a ZIP of per-switch files) and queue its
    comparison; see `asbuilt_check_request_files`."""
    return asbuilt_check_request_files(user=user, design_id=design_id, files=[(filename, data)])


def asbuilt_check_request_files(
    *, user: User | AnonymousUser, design_id: object, files: list[tuple[str, bytes]]
) -> AsBuiltCheck:
    """Check an upload of one or several files and queue its comparison. Access is decided here:
    a design the user may not see is not found. The request reads only the upload: its size (at
    most 20 MB in all, and unpacked for a ZIP), its format, and no port or neighbour listed twice,
    every problem naming its file and line. Whether the design has each device and port, and the
    comparison, need the design's whole cabling (some 400,000 cables at 131,072 GPUs): the worker
    does both. Nothing is stored unless the upload is clean; several files are stored as one ZIP."""
    uploader = user_signed_in(user)
    design = selectors.design_for(user=user, design_id=design_id)
    if design.result is None:
        raise AsBuiltDesignNotSized(_("This draft does not size yet; fix its errors first."))
    if sum(len(data) for _name, data in files) > reading.MAX_UPLOAD_BYTES:  # before reading
        raise _too_large("too_large" if len(files) == 1 else "too_large_total")
    names = [name.replace("\\", "/").rsplit("/", 1)[-1] for name, _data in files]
    try:
        if len(files) == 1:
            kind, neighbours = reading.read_upload(files[0][1], filename=names[0])
            data, original = files[0][1], names[0]
        else:
            kind, neighbours = reading.read_files(
                list(zip(names, (d for _n, d in files), strict=True))
            )
            data = reading.pack_files(list(zip(names, (d for _n, d in files), strict=True)))
            original = _("%(first)s and %(more)s more files") % {
                "first": names[0], "more": len(names) - 1}  # fmt: skip
    except reading.UploadRejected as rejected:
        raise AsBuiltUploadInvalid([problem_text(p) for p in rejected.problems]) from None
    extension = "zip" if reading.is_zip(data) else str(kind)
    digest = hashlib.sha256(data).hexdigest()
    name = f"asbuilt/design-{design.pk}-{digest}-{secrets.token_hex(8)}.{extension}"
    stored = default_storage.save(name, ContentFile(data))
    try:
        with transaction.atomic():
            check = AsBuiltCheck.objects.create(
                design=design,
                design_updated_at=design.updated_at,
                format=kind,
                original_name=original[-255:],
                file=stored,
                sha256=digest,
                size_bytes=len(data),
                neighbours=len(neighbours),
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
    neighbours = reading.read_upload(data, filename=check.original_name)[1]
    progress(5, "reading")
    design = check.design
    engine = services.design_engine(design=design)
    elevations = design_elevations(engine)
    total = int((design.result or {}).get("cables_total") or 0) or 1
    # The cabling is enumerated once: the device and port check and the comparison read it.
    cables = list(identified(services.design_cabling(design=design), elevations))
    progress(15, "checking")
    book = checking.port_book((cable.row for cable in cables), _tier_ports(engine))
    problems = checking.check_known(neighbours, book)
    if problems:
        return {"problems": [problem.to_json() for problem in problems]}
    progress(20, "comparing")

    def advance(done: int) -> None:
        if done % 10_000 == 0:
            progress(min(99, 20 + done * 79 // total), "comparing")

    return checking.compare(cables, neighbours, rack_of=elevations.device_rack, progress=advance)


def _store(check: AsBuiltCheck, result: dict[str, Any]) -> None:
    check.result = result
    if result.get("problems"):
        # Saved with the failed check (job_fail saves the row): the page shows each problem in
        # its reader's language; `error` holds them in the worker's, for the API.
        texts = [problem_text(reading.Problem.from_json(p)) for p in result["problems"]]
        raise JobFailed(
            "\n".join(
                [
                    str(
                        _(
                            "The upload names devices or ports the design does "
                            "not have; nothing was compared:"
                        )
                    ),
                    *texts,
                ]
            )
        )


def upload_problems(*, check: AsBuiltCheck) -> list[str]:
    """The problems the worker found in a check's upload, in the reader's language."""
    problems = (check.result or {}).get("problems") or ()
    return [problem_text(reading.Problem.from_json(problem)) for problem in problems]


ASBUILT: JobKind[AsBuiltCheck, dict[str, Any]] = JobKind(
    model=AsBuiltCheck,
    task="planner.asbuilt.tasks.asbuilt_check_task",
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
        reading.Status.CORRECT: _("Correct"),
        reading.Status.SWAPPED: _("Swapped ends"),
        reading.Status.WRONG_PORT: _("Wrong port"),
        reading.Status.MISSING: _("Missing"),
        reading.Status.UNEXPECTED: _("Unexpected"),
    }


def asbuilt_punch_csv(*, check: AsBuiltCheck) -> str:
    return checking.punch_csv(check.result or {}, status_names=status_names())


def no_file_text() -> str:
    return _("Choose a file to upload.")


def upload_bytes(upload: Any, *, budget: int = reading.MAX_UPLOAD_BYTES) -> bytes:
    """An uploaded file's bytes, reading at most one byte past the cap (a larger file is refused
    by its size without being read whole)."""
    data: bytes = upload.read(max(0, budget) + 1)
    return data


def uploads_bytes(uploads: list[Any]) -> list[tuple[str, bytes]]:
    """Several uploaded files' names and bytes, reading no more than one byte past the cap on
    their total: once it is passed, the rest are not read (the total is refused by its size)."""
    files: list[tuple[str, bytes]] = []
    left = reading.MAX_UPLOAD_BYTES
    for upload in uploads:
        data = upload_bytes(upload, budget=left)
        files.append((upload.name or "", data))
        left -= len(data)
        if left < 0:
            break
    return files


PUNCH_ROWS_IN_PDF = 500  # beyond this the appendix says where the whole list is


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
    """The acceptance report's appendix (phases 4 and 5 of the plan): the latest finished
    as-built check of the design and its punch list; the rack elevations beside it are the
    design document's (`planner.document`). Empty when the design has no finished check: the
    appendix is then left out."""
    if design is None or design.result is None:
        return {}
    check = design.asbuilt_checks.filter(status=AsBuiltCheck.DONE).order_by("-finished_at").first()
    if check is None:
        return {}
    return {"asbuilt": check_presented(check=check, limit=PUNCH_ROWS_IN_PDF)}
