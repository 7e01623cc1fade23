"""Document pages: request a PDF for a revision, watch its progress, download it. Every download
(pages, the share link, the API) checks the bytes against the document's recorded SHA-256 before
sending any of them: a file that no longer matches is a clear error, never the wrong bytes."""

import hashlib
import logging
import tempfile
from typing import IO

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from core.errors import DomainError
from core.view_errors import refused_on_form
from quotes import selectors
from quotes.documents import document_request
from quotes.models import Document, DocumentKind, DocumentStatus, ShareLink

logger = logging.getLogger(__name__)
# Up to this much of a PDF is checked in memory, the rest in a temporary file.
SPOOL_BYTES = 8 * 1024 * 1024


class DocumentCorrupt(DomainError):
    """The stored file is missing or its bytes differ from the recorded SHA-256."""

    http_status = 409
    code = "document_corrupt"


class DocumentRequestForm(forms.Form):
    kind = forms.ChoiceField(label=_("Document"), choices=DocumentKind.choices)
    language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)
    start_date = forms.DateField(
        label=_("Project start"),
        required=False,
        help_text=_("The implementation plan's first day (default: the revision's date)."),
        widget=forms.DateInput(attrs={"type": "date"}),
    )


@login_required
@require_POST
def document_create(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    quote = get_object_or_404(selectors.quotes_visible_to(request.user), pk=pk)
    revision = get_object_or_404(quote.revisions, number=number)
    form = DocumentRequestForm(request.POST)
    if form.is_valid():
        with refused_on_form(form):
            document = document_request(
                user=request.user,
                revision=revision,
                kind=form.cleaned_data["kind"],
                language=form.cleaned_data["language"],
                start_date=form.cleaned_data["start_date"],
            )
            if request.htmx:  # type: ignore[attr-defined]
                return render(request, "quotes/_document.html", {"document": document})
            url = reverse("quotes:quote-detail", args=[quote.pk])
            return redirect(f"{url}?rev={revision.number}#documents")
    status = 400
    return render(
        request,
        "quotes/_document_form.html",
        {"form": form, "quote": quote, "revision": revision},
        status=status,
    )


@login_required
@require_GET
def document_status(request: HttpRequest, pk: int) -> HttpResponse:
    """Polled by htmx while the document renders; stops polling once it is ready or failed."""
    document = get_object_or_404(selectors.documents_visible_to(request.user), pk=pk)
    return render(request, "quotes/_document.html", {"document": document})


def _verified_copy(document: Document) -> IO[bytes]:
    """The stored bytes, copied while hashed, so that what is sent is exactly what was checked.
    A mismatch marks the document failed (asking for it again renders it anew) and raises."""
    copy = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 (returned open)
    digest = hashlib.sha256()
    try:
        with document.file.storage.open(document.file.name or "", "rb") as stored:
            for chunk in iter(lambda: stored.read(1 << 20), b""):
                digest.update(chunk)
                copy.write(chunk)
    except OSError:
        found = "missing"
    else:
        found = digest.hexdigest()
    if found != document.sha256:
        copy.close()
        logger.error(
            "document %s: stored file %s does not match its SHA-256 (expected %s, found %s)",
            document.pk, document.file.name, document.sha256, found,
        )  # fmt: skip
        message = gettext(
            "The stored PDF does not match its recorded SHA-256, so it was not sent. "
            "Ask for the document again to render it anew."
        )
        Document.objects.filter(
            pk=document.pk, status=DocumentStatus.READY, sha256=document.sha256
        ).update(status=DocumentStatus.FAILED, error=message, finished_at=timezone.now())
        raise DocumentCorrupt(message)
    copy.seek(0)
    return copy


def document_file_response(document: Document) -> FileResponse:
    """The PDF as an attachment; 404 until it is ready. Pages, the share link and the API use it.
    The bytes are checked against the document's SHA-256 first (DocumentCorrupt if they differ)."""
    if document.status != DocumentStatus.READY or not document.file:
        raise Http404
    return FileResponse(
        _verified_copy(document),
        as_attachment=True,
        filename=document.filename,
        content_type="application/pdf",
    )


def _corrupt(exc: DocumentCorrupt) -> HttpResponse:
    return HttpResponse(exc.message, status=exc.http_status, content_type="text/plain")


@login_required
@require_GET
def document_download(request: HttpRequest, pk: int) -> HttpResponseBase:
    document = get_object_or_404(selectors.documents_visible_to(request.user), pk=pk)
    try:
        return document_file_response(document)
    except DocumentCorrupt as exc:
        return _corrupt(exc)


@require_GET
def shared_document_download(request: HttpRequest, token: str) -> HttpResponseBase:
    """The customer's copy of the proposal, through a valid share link only. The link records
    the SHA-256 of the bytes it served: an acceptance through it names those bytes."""
    link = selectors.share_link_by_token(token)
    if link is None:
        raise Http404
    language = request.GET.get("lang") or None
    if language is not None and language not in dict(settings.LANGUAGES):
        raise Http404
    # Only the approved content's unmarked PDF (quotes.selectors): never a draft copy.
    document = selectors.revision_proposal_document(link.revision, language)
    if document is None:
        raise Http404
    try:
        response = document_file_response(document)
    except DocumentCorrupt as exc:
        return _corrupt(exc)
    ShareLink.objects.filter(pk=link.pk).update(
        served_sha256=document.sha256, served_at=timezone.now()
    )
    return response
