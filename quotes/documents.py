"""Writes for documents: request one, render it (in a worker), sweep abandoned jobs.

A document is asked for once per revision, kind, language, template version and start date;
asking again returns the same row (and sends a stuck one to the workers again). Its file is
immutable: stored under a name with the document's id and the SHA-256 of its bytes, so no other
document ever writes to it, and the hash is re-checked on every download.

Nothing stays stuck. Rendering takes a short lease on the row, renewed by a heartbeat thread; a
worker that dies leaves the lease to run out and the periodic sweep (every
DOCUMENT_SWEEP_SECONDS) queues the job again, up to JOB_MAX_ATTEMPTS. A queued job whose message
is older than DOCUMENT_QUEUE_STALE_SECONDS (the broker may have lost it) is sent again, whatever
the job's history; the task is idempotent, so a duplicate message does no harm."""

import hashlib
import logging
from datetime import date, timedelta
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.models import WebhookEvent
from core.services import Lease, LeaseHeartbeat, lease_take
from core.webhooks import webhook_emit
from quotes.models import Document, DocumentKind, DocumentStatus, QuoteRevision
from quotes.pdf import TEMPLATE_VERSION, RenderedDocument, render_document

logger = logging.getLogger(__name__)


class DocumentNotReady(DomainError):
    http_status = 409
    code = "document_not_ready"


def _lease_seconds() -> int:
    return int(settings.DOCUMENT_LEASE_SECONDS)


def _stale_before(now: Any) -> Any:
    return now - timedelta(seconds=settings.DOCUMENT_QUEUE_STALE_SECONDS)


def _send(document_id: int) -> None:
    from quotes.tasks import render_document_task

    render_document_task.delay(document_id)


def _queue(document: Document) -> None:
    """Mark the document queued now and send its message once the transaction commits. A send
    that fails (broker down) is logged, not raised: the row stays queued and the sweep sends it
    again once its message is stale."""
    now = timezone.now()
    document.queued_at = now
    Document.objects.filter(pk=document.pk).update(queued_at=now)
    transaction.on_commit(lambda: _send(document.pk), robust=True)


def _requeue(document: Document, *, step: str) -> None:
    """Back to the queue: a render whose lease ran out, or a queued job whose message is stale.
    The row must be locked."""
    document.status = DocumentStatus.QUEUED
    document.lease_expires_at = None
    document.lease_owner = ""
    document.step = step
    document.save()
    _queue(document)


def _stuck(document: Document, now: Any) -> bool:
    """A render whose worker died (lease ran out, or none), or a queued job whose message went
    to the broker too long ago (or was never recorded)."""
    if document.status == DocumentStatus.RENDERING:
        return document.lease_expires_at is None or document.lease_expires_at < now
    if document.status == DocumentStatus.QUEUED:
        return document.queued_at is None or document.queued_at < _stale_before(now)
    return False


@transaction.atomic
def document_request(
    *,
    user: Any,
    revision: QuoteRevision,
    kind: str = DocumentKind.PROPOSAL,
    language: str | None = None,
    start_date: date | None = None,
) -> Document:
    """The document for this revision, queued for rendering if it is not ready or under way.
    A failed one is queued again: the user asked for it again. So is a stuck one (its worker
    died, or its message was lost), instead of returning the stuck row."""
    language = language or revision.quote.customer.preferred_language
    if language not in dict(settings.LANGUAGES):
        raise DomainError(_("Unknown language: %(code)s.") % {"code": language}, field="language")
    if kind not in DocumentKind.values:
        raise DomainError(_("Unknown document kind: %(kind)s.") % {"kind": kind}, field="kind")
    start = start_date or timezone.localtime(revision.created_at).date()
    document, created = Document.objects.select_for_update().get_or_create(
        revision=revision,
        kind=kind,
        language=language,
        template_version=TEMPLATE_VERSION,
        start_date=start,
        defaults={"requested_by": user},
    )
    if created:
        _queue(document)
    elif document.status == DocumentStatus.FAILED:
        document.status = DocumentStatus.QUEUED
        document.attempts = 0
        document.error = ""
        document.progress = 0
        document.step = ""
        document.lease_owner = ""
        document.save()
        _queue(document)
    elif _stuck(document, timezone.now()):
        logger.warning("document %s: stuck (%s), queued again", document.pk, document.status)
        _requeue(document, step="requeued")
    return document


def _progress(document_id: int, owner: str) -> Any:
    def report(percent: int, step: str) -> None:
        # Outside the render's transaction, so the UI sees it at once; also extends the lease.
        Document.objects.filter(
            pk=document_id, status=DocumentStatus.RENDERING, lease_owner=owner
        ).update(
            progress=percent,
            step=step,
            lease_expires_at=timezone.now() + timedelta(seconds=_lease_seconds()),
        )

    return report


def _claim(document_id: int) -> Document | None:
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=document_id)
        outcome = lease_take(
            row=document,
            running=DocumentStatus.RENDERING,
            finished=(DocumentStatus.READY, DocumentStatus.FAILED),
            lease_seconds=_lease_seconds(),
        )
        if outcome == Lease.EXHAUSTED:
            _fail(document, _("Rendering was interrupted too many times; please try again."))
            return None
        if outcome != Lease.TAKEN:
            return None  # finished, or another worker holds it
        document.progress = 5
        document.step = "start"
        document.save()
        return document


def _fail(document: Document, message: str) -> None:
    document.status = DocumentStatus.FAILED
    document.error = message
    document.finished_at = timezone.now()
    document.lease_expires_at = None
    document.lease_owner = ""
    document.save()
    _announce(document, WebhookEvent.DOCUMENT_FAILED)


def _fail_if_held(document_id: int, owner: str, message: str) -> Document:
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=document_id)
        if document.status == DocumentStatus.RENDERING and document.lease_owner == owner:
            _fail(document, message)
        return document


def _announce(document: Document, event: str) -> None:
    quote = document.revision.quote
    webhook_emit(
        event=event,
        data={
            "id": document.pk,
            "quote_id": quote.pk,
            "quote_number": quote.number,
            "revision": document.revision.label,
            "kind": document.kind,
            "language": document.language,
            "status": document.status,
            "sha256": document.sha256,
            "error": document.error,
            "download_url": f"/api/v1/documents/{document.pk}/download/",
        },
        team=quote.team,
    )


def _sha256_of(name: str) -> str:
    digest = hashlib.sha256()
    with default_storage.open(name, "rb") as stored:
        for chunk in iter(lambda: stored.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _store(document: Document, content: bytes) -> tuple[str, str]:
    """Write the bytes under the document's own immutable name; returns the name and the SHA-256
    of the bytes as read back from storage (the hash downloads are checked against). The name
    carries this document's id and this content's hash: the only file that can already be there
    is one an earlier attempt of this very document left (it died before marking ready)."""
    sha256 = hashlib.sha256(content).hexdigest()
    name = document.storage_name(sha256)
    if default_storage.exists(name) and _sha256_of(name) != sha256:
        default_storage.delete(name)  # a partial write of this document's earlier attempt
    if not default_storage.exists(name):
        saved = default_storage.save(name, ContentFile(content))
        if saved != name:  # the storage picked another name: the same bytes exist under ours
            default_storage.delete(saved)
    stored = _sha256_of(name)
    if stored != sha256:
        raise OSError(f"document {document.pk}: stored bytes differ from the rendered ones")
    return name, stored


def document_render(*, document_id: int) -> Document:
    """Render and store one document. Idempotent: a ready document is left alone. The lease is
    renewed by a heartbeat while WeasyPrint runs; the file is written under the row lock and
    only by the lease's holder, so a worker that was taken over (it stalled past its lease)
    never stores its result and two workers never both store one."""
    document = _claim(document_id)
    if document is None:
        return Document.objects.get(pk=document_id)
    owner = document.lease_owner
    heartbeat = LeaseHeartbeat(
        model=Document,
        pk=document.pk,
        owner=owner,
        running=DocumentStatus.RENDERING,
        lease_seconds=_lease_seconds(),
        interval=settings.DOCUMENT_HEARTBEAT_SECONDS,
    )
    try:
        with heartbeat:
            rendered = render_document(
                document.revision,
                kind=document.kind,
                language=document.language,
                start_date=document.start_date,
                progress=_progress(document.pk, owner),
            )
    except SoftTimeLimitExceeded:
        logger.warning("document %s: soft time limit", document.pk)
        return _fail_if_held(
            document_id, owner, _("The document took too long to render; please try again.")
        )
    except Exception:
        logger.exception("document %s: rendering failed", document.pk)
        return _fail_if_held(
            document_id,
            owner,
            _(
                "The document could not be rendered because of an error in its template or "
                "data. The team has the details in the log; please try again later."
            ),
        )
    return _finish(document_id=document_id, owner=owner, rendered=rendered)


def _finish(*, document_id: int, owner: str, rendered: RenderedDocument) -> Document:
    """Store the rendered bytes and mark the document ready, if `owner` still holds its lease;
    a worker that was taken over (it stalled past its lease) drops its result."""
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=document_id)
        if document.status != DocumentStatus.RENDERING or document.lease_owner != owner:
            logger.warning("document %s: taken over by another worker; result dropped", document_id)
            return document
        try:
            name, sha256 = _store(document, rendered.content)
        except OSError:
            logger.exception("document %s: storing failed", document.pk)
            _fail(document, _("The document could not be stored; please try again later."))
            return document
        document.file.name = name
        document.sha256 = sha256
        document.size_bytes = len(rendered.content)
        document.pages = rendered.pages
        document.status = DocumentStatus.READY
        document.progress = 100
        document.step = "ready"
        document.error = ""
        document.finished_at = timezone.now()
        document.lease_expires_at = None
        document.lease_owner = ""
        document.save()
        _announce(document, WebhookEvent.DOCUMENT_READY)
    return document


def documents_sweep() -> dict[str, int]:
    """Beat, every DOCUMENT_SWEEP_SECONDS: a render whose worker died (its lease ran out, or it
    has none) is queued again or, after too many attempts, failed in words; a queued job whose
    message is stale is sent again, whatever its history (queued once, re-queued after a dead
    render, or from before queued_at was recorded)."""
    now = timezone.now()
    requeued = failed = 0
    dead = Document.objects.filter(status=DocumentStatus.RENDERING).filter(
        Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True)
    )
    stale = Document.objects.filter(status=DocumentStatus.QUEUED).filter(
        Q(queued_at__lt=_stale_before(now)) | Q(queued_at__isnull=True)
    )
    candidates = list(dead.values_list("pk", flat=True)) + list(stale.values_list("pk", flat=True))
    for document_id in candidates:
        with transaction.atomic():
            document = Document.objects.select_for_update().get(pk=document_id)
            if not _stuck(document, now):
                continue  # taken or queued since
            if (
                document.status == DocumentStatus.RENDERING
                and document.attempts >= settings.JOB_MAX_ATTEMPTS
            ):
                _fail(document, _("Rendering was interrupted too many times; please try again."))
                failed += 1
                continue
            logger.warning("document %s: stuck (%s), queued again", document.pk, document.status)
            _requeue(document, step="requeued")
            requeued += 1
    return {"requeued": requeued, "failed": failed}
