"""Writes for documents: request one, render it (in a worker), sweep abandoned jobs.

A document is asked for once per revision, kind, language, template version and start date;
asking again returns the same row. Rendering takes a lease on the row; a worker that dies leaves
the lease to run out, and the periodic sweep queues the job again, up to JOB_MAX_ATTEMPTS."""

import hashlib
import logging
from datetime import date, timedelta
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.models import WebhookEvent
from core.services import Lease, lease_take
from core.webhooks import webhook_emit
from quotes.models import Document, DocumentKind, DocumentStatus, QuoteRevision
from quotes.pdf import TEMPLATE_VERSION, render_document

logger = logging.getLogger(__name__)


class DocumentNotReady(DomainError):
    http_status = 409
    code = "document_not_ready"


def _lease_seconds() -> int:
    return int(getattr(settings, "DOCUMENT_LEASE_SECONDS", settings.CELERY_TASK_TIME_LIMIT))


def _queue(document: Document) -> None:
    from quotes.tasks import render_document_task

    render_document_task.delay_on_commit(document.pk)


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
    A failed one is queued again: the user asked for it again."""
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
    if not created and document.status == DocumentStatus.FAILED:
        document.status = DocumentStatus.QUEUED
        document.attempts = 0
        document.error = ""
        document.progress = 0
        document.step = ""
        document.save()
        created = True
    if created:
        _queue(document)
    return document


def _progress(document_id: int) -> Any:
    def report(percent: int, step: str) -> None:
        # Outside the render's transaction, so the UI sees it at once; also extends the lease.
        Document.objects.filter(pk=document_id, status=DocumentStatus.RENDERING).update(
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
    document.save()
    _announce(document, WebhookEvent.DOCUMENT_FAILED)


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


def document_render(*, document_id: int) -> Document:
    """Render and store one document. Idempotent: a ready document is left alone, and the file
    is written under the row lock, so two workers never both store one."""
    document = _claim(document_id)
    if document is None:
        return Document.objects.get(pk=document_id)
    try:
        rendered = render_document(
            document.revision,
            kind=document.kind,
            language=document.language,
            start_date=document.start_date,
            progress=_progress(document.pk),
        )
    except SoftTimeLimitExceeded:
        logger.warning("document %s: soft time limit", document.pk)
        with transaction.atomic():
            document = Document.objects.select_for_update().get(pk=document_id)
            _fail(document, _("The document took too long to render; please try again."))
        return document
    except Exception:
        logger.exception("document %s: rendering failed", document.pk)
        with transaction.atomic():
            document = Document.objects.select_for_update().get(pk=document_id)
            _fail(
                document,
                _(
                    "The document could not be rendered because of an error in its template or "
                    "data. The team has the details in the log; please try again later."
                ),
            )
        return document
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=document_id)
        if document.status != DocumentStatus.RENDERING:
            return document
        name = f"documents/{document.revision.quote.number}/{document.filename}"
        if default_storage.exists(name):
            default_storage.delete(name)  # left by an attempt that died before marking ready
        document.file.name = default_storage.save(name, ContentFile(rendered.content))
        document.sha256 = hashlib.sha256(rendered.content).hexdigest()
        document.size_bytes = len(rendered.content)
        document.pages = rendered.pages
        document.status = DocumentStatus.READY
        document.progress = 100
        document.step = "ready"
        document.error = ""
        document.finished_at = timezone.now()
        document.lease_expires_at = None
        document.save()
        _announce(document, WebhookEvent.DOCUMENT_READY)
    return document


def documents_sweep() -> dict[str, int]:
    """Beat, every minute: a job whose worker died (lease ran out) is queued again or, after too
    many attempts, failed in words; a queued job whose message was lost (e.g. a broker restart)
    is queued again. The task is idempotent, so a duplicate message does no harm."""
    now = timezone.now()
    requeued = failed = 0
    expired = Document.objects.filter(status=DocumentStatus.RENDERING, lease_expires_at__lt=now)
    for document_id in list(expired.values_list("pk", flat=True)):
        with transaction.atomic():
            document = Document.objects.select_for_update().get(pk=document_id)
            if document.status != DocumentStatus.RENDERING or (
                document.lease_expires_at and document.lease_expires_at >= now
            ):
                continue
            if document.attempts >= settings.JOB_MAX_ATTEMPTS:
                _fail(document, _("Rendering was interrupted too many times; please try again."))
                failed += 1
                continue
            document.status = DocumentStatus.QUEUED
            document.lease_expires_at = None
            document.step = "requeued"
            document.save()
            _queue(document)
            requeued += 1
    stale = now - timedelta(seconds=getattr(settings, "DOCUMENT_QUEUE_STALE_SECONDS", 600))
    for document_id in Document.objects.filter(
        status=DocumentStatus.QUEUED, created_at__lt=stale, started_at__isnull=True
    ).values_list("pk", flat=True):
        with transaction.atomic():
            _queue(Document.objects.get(pk=document_id))
        requeued += 1
    return {"requeued": requeued, "failed": failed}
