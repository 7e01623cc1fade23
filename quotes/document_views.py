"""Document pages: request a PDF for a revision, watch its progress, download it."""

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from core.errors import DomainError
from quotes import selectors
from quotes.documents import document_request
from quotes.models import Document, DocumentKind, DocumentStatus


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
    quote = get_object_or_404(selectors.quotes_visible_to(request.user), pk=pk)  # type: ignore[arg-type]
    revision = get_object_or_404(quote.revisions, number=number)
    form = DocumentRequestForm(request.POST)
    if form.is_valid():
        try:
            document = document_request(
                user=request.user,
                revision=revision,
                kind=form.cleaned_data["kind"],
                language=form.cleaned_data["language"],
                start_date=form.cleaned_data["start_date"],
            )
        except DomainError as exc:
            exc.add_to_form(form)
        else:
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


def document_file_response(document: Document) -> FileResponse:
    """The PDF as an attachment; 404 until it is ready. Pages, the share link and the API use it."""
    if document.status != DocumentStatus.READY or not document.file:
        raise Http404
    return FileResponse(
        document.file.open("rb"),
        as_attachment=True,
        filename=document.filename,
        content_type="application/pdf",
    )


@login_required
@require_GET
def document_download(request: HttpRequest, pk: int) -> FileResponse:
    return document_file_response(
        get_object_or_404(selectors.documents_visible_to(request.user), pk=pk)
    )


@require_GET
def shared_document_download(request: HttpRequest, token: str) -> FileResponse:
    """The customer's copy of the proposal, through a valid share link only."""
    link = selectors.share_link_by_token(token)
    if link is None:
        raise Http404
    document = selectors.revision_proposal_document(link.revision)
    if document is None:
        raise Http404
    return document_file_response(document)
