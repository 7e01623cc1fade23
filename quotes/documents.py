"""Writes for documents: request one, render it (in a worker), sweep abandoned jobs.

A document is asked for once per revision, kind, language, template version and start date;
asking again returns the same row (and sends a stuck one to the workers again). Its file is
immutable: stored under a name with the document's id and the SHA-256 of its bytes, so no other
document ever writes to it, and the hash is re-checked on every download.

Nothing stays stuck: a document is a job (`core.jobs`), with its lease, heartbeat, retries and
sweep, like every other background job."""

import hashlib
import logging
from datetime import date

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

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
from core.models import WebhookEvent
from core.retention import files_delete_on_commit
from core.services import user_signed_in
from core.webhooks import webhook_emit
from planner.asbuilt.services import latest_check_id
from quotes import transitions
from quotes.content import revision_content_sha256
from quotes.models import Document, DocumentKind, DocumentStatus, QuoteRevision
from quotes.pdf import TEMPLATE_VERSION, RenderedDocument, render_document, template_version_for
from quotes.services.prices import revision_customer_details_refresh

logger = logging.getLogger(__name__)


def _render(document: Document, progress: Progress) -> RenderedDocument:
    try:
        return _rendered(document, progress)
    except DomainError as refused:  # e.g. the engine would no longer give the frozen design
        raise JobFailed(refused.message) from refused


def _rendered(document: Document, progress: Progress) -> RenderedDocument:
    return render_document(
        document.revision,
        kind=document.kind,
        language=document.language,
        start_date=document.start_date,
        progress=progress,
    )


def _keep(document: Document, rendered: RenderedDocument) -> None:
    # Stored under the job's row lock: a revision whose content changed since the document was
    # asked for (a draft edited meanwhile) would file new numbers under the old content's hash.
    now = QuoteRevision.objects.filter(pk=document.revision_id).values_list(
        "content_sha256", flat=True
    )
    if list(now) != [document.content_sha256]:
        raise JobFailed(
            _("The quote changed while this document was rendered; ask for the document again.")
        )
    try:
        name, sha256 = _store(document, rendered.content)
    except OSError:
        logger.exception("document %s: storing failed", document.pk)
        raise JobFailed(_("The document could not be stored; please try again later.")) from None
    document.file.name = name
    document.sha256 = sha256
    document.size_bytes = len(rendered.content)
    document.pages = rendered.pages


def _announce(document: Document) -> None:
    """document.ready or document.failed, written in the transaction that finishes the job."""
    quote = document.revision.quote
    ready = document.status == DocumentStatus.READY
    webhook_emit(
        event=WebhookEvent.DOCUMENT_READY if ready else WebhookEvent.DOCUMENT_FAILED,
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


DOCUMENTS: JobKind[Document, RenderedDocument] = JobKind(
    model=Document,
    task="quotes.tasks.render_document_task",
    work=_render,
    store=_keep,
    announce=_announce,
    exhausted=gettext_lazy("Rendering was interrupted too many times; please try again."),
    timed_out=gettext_lazy("The document took too long to render; please try again."),
    crashed=gettext_lazy(
        "The document could not be rendered because of an error in its template or "
        "data. The team has the details in the log; please try again later."
    ),
)


def _document_version(revision: QuoteRevision, kind: str) -> str:
    """The template part of a document's key. A plan is also the acceptance report: once its
    design's cabling was checked as built, the latest finished check is in the key, so a plan
    asked for before (or before a newer check) is rendered anew with the punch list."""
    version = template_version_for(revision, TEMPLATE_VERSION)
    design = revision.quote.design
    check_id = latest_check_id(design=design) if kind == DocumentKind.PLAN and design else None
    return f"{version}-a{check_id}" if check_id is not None else version


@transaction.atomic
def document_request(
    *,
    user: User | AnonymousUser,
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
    revision = revision_customer_details_refresh(revision=revision)
    content = _content_of(revision)
    requester = user_signed_in(user)
    document, created = Document.objects.select_for_update().get_or_create(
        revision=revision,
        kind=kind,
        language=language,
        template_version=_document_version(revision, kind),
        start_date=start,
        content_sha256=content,
        defaults={"requested_by": requester},
    )
    # The customer's copy (the proposal of a revision out with them, from its own date) is
    # never refused: sending asks for it, and so does the share page when the customer reads
    # the other language; there are at most two per revision, so fair use is not at stake.
    customers_copy = (
        kind == DocumentKind.PROPOSAL
        and start_date is None
        and transitions.allows(revision.status, transitions.Action.SHARE)
    )
    if created:
        if not customers_copy:
            jobs_fair_use_check(user=requester, job=document)
        job_queue(kind=DOCUMENTS, job=document)
    elif document.status == DocumentStatus.FAILED:
        if not customers_copy:
            jobs_fair_use_check(user=requester, job=document)
        _forget_file(document)
        job_retry(kind=DOCUMENTS, job=document)
    elif job_stuck(job=document, now=timezone.now()):
        job_requeue(kind=DOCUMENTS, job=document)
    return document


def _forget_file(document: Document) -> None:
    """A failed document asked for again: the file it may still name (a PDF whose bytes no
    longer matched their hash, or a partial write) is deleted once the retry commits, before its
    message is sent, so no render can have written a new file under that name yet. The row is
    saved by the retry."""
    if document.file.name:
        files_delete_on_commit(names=[document.file.name])
        document.file.name = ""
        document.sha256 = ""
        document.size_bytes = None
        document.pages = None


def _content_of(revision: QuoteRevision) -> str:
    """The revision's content hash as stored; a revision priced before hashes were kept gets
    its hash now (reading the stored lines changes nothing of what it says)."""
    stored = QuoteRevision.objects.filter(pk=revision.pk).values_list("content_sha256", flat=True)
    content = next(iter(stored), "") or revision_content_sha256(revision)
    QuoteRevision.objects.filter(pk=revision.pk, content_sha256="").update(content_sha256=content)
    revision.content_sha256 = content  # the caller's copy may predate the last change
    return content


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
    """Render and store one document (its task). Idempotent: a ready document is left alone. The
    file is written under the row lock and only by the lease's holder, so a worker that was taken
    over (it stalled past its lease) never stores its result and two workers never both store
    one."""
    return job_run(kind=DOCUMENTS, job_id=document_id)


def documents_sweep() -> dict[str, int]:
    """Beat, every JOB_SWEEP_SECONDS: dead renders queued again (or failed after too many
    attempts), lost messages sent again."""
    return jobs_sweep(kind=DOCUMENTS)
