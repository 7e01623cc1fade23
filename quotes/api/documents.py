"""Documents over the API: `POST /api/v1/quotes/{id}/documents/` answers 202 with the job;
`GET /api/v1/documents/{id}/` shows its status and progress; `.../download/` streams the PDF."""

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, permissions, serializers, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import ApiViewSet, User
from core.api.json_types import JsonTypes
from quotes import selectors
from quotes.documents import document_request
from quotes.models import Document, DocumentKind, DocumentStatus, Quote
from quotes.views.documents import document_file_response

PROBLEM = OpenApiResponse(response=OpenApiTypes.OBJECT, description="RFC 9457 problem details")
ERRORS = {400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM, 429: PROBLEM}


class DocumentSerializer(serializers.ModelSerializer[Document]):
    quote = serializers.IntegerField(source="revision.quote_id", read_only=True)
    revision = serializers.CharField(source="revision.label", read_only=True)
    is_draft = serializers.BooleanField(
        read_only=True, help_text="Rendered before approval: marked as a draft on every page."
    )
    is_superseded = serializers.BooleanField(
        read_only=True,
        help_text="Rendered from content its revision no longer has (a draft changed since): "
        "kept for the record, never shared with the customer.",
    )
    is_shareable = serializers.BooleanField(
        read_only=True,
        help_text="Ready, unmarked and of exactly the approved content: what the customer's "
        "share link serves.",
    )
    links = serializers.SerializerMethodField()

    class Meta:
        model = Document
        fields = [
            "id", "quote", "revision", "kind", "language", "start_date", "template_version",
            "content_sha256", "is_draft", "is_superseded", "is_shareable", "status", "progress",
            "step", "attempts", "error", "sha256", "size_bytes", "pages", "created_at",
            "started_at", "finished_at", "links",
        ]  # fmt: skip
        read_only_fields = fields

    def get_links(self, document: Document) -> dict[str, str | None]:
        base = f"/api/v1/documents/{document.pk}/"
        ready = document.status == DocumentStatus.READY
        return {"self": base, "download": f"{base}download/" if ready else None}


class DocumentRequestSerializer(JsonTypes, serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=DocumentKind.choices, default=DocumentKind.PROPOSAL)
    language = serializers.ChoiceField(choices=settings.LANGUAGES, required=False)
    start_date = serializers.DateField(required=False, help_text="First day of the project plan.")


class CanViewQuotes(permissions.BasePermission):
    """A document is a rendering of a quote: whoever may see the quote may ask for its PDF."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user.is_authenticated and request.user.has_perm("quotes.view_quote"))


class QuoteDocumentsViewSet(ApiViewSet[Document]):
    """`/api/v1/quotes/{id}/documents/`: the current revision's documents."""

    # The quote in the path is looked up among the caller's (`quotes_visible_to`): another
    # team's is a 404.

    permission_classes = [CanViewQuotes]
    serializer_class = DocumentSerializer
    queryset = Document.objects.none()

    def visible(self, user: User) -> QuerySet[Document]:
        return selectors.documents_visible_to(user)

    def _quote(self, quote_pk: str) -> Quote:
        quote: Quote = self.get_object_from(
            selectors.quotes_visible_to(self.request.user), quote_pk
        )
        return quote

    @extend_schema(
        request=DocumentRequestSerializer,
        responses={202: DocumentSerializer, **ERRORS},
        summary="Request a PDF of the quote's current revision (queued; poll the job)",
    )
    def create(self, request: Request, quote_pk: str) -> Response:
        quote = self._quote(quote_pk)
        serializer = DocumentRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        revision = quote.current_revision
        assert revision is not None  # a quote is created with its first revision
        document = document_request(
            user=request.user, revision=revision, **serializer.validated_data
        )
        body = DocumentSerializer(document).data
        return Response(
            body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["links"]["self"]}
        )

    @extend_schema(responses={200: DocumentSerializer(many=True), **ERRORS})
    def list(self, request: Request, quote_pk: str) -> Response:
        quote = self._quote(quote_pk)
        documents = self.get_queryset().filter(revision__quote=quote).order_by("-pk")
        page = self.paginate_queryset(documents)
        return self.get_paginated_response(DocumentSerializer(page, many=True).data)


class DocumentViewSet(mixins.RetrieveModelMixin, ApiViewSet[Document]):
    permission_classes = [CanViewQuotes]
    serializer_class = DocumentSerializer
    queryset = Document.objects.none()
    lookup_value_regex = "[^/.]+"  # as before (the schema documents an integer id)

    def visible(self, user: User) -> QuerySet[Document]:
        return selectors.documents_visible_to(user)

    @extend_schema(
        responses={(200, "application/pdf"): OpenApiTypes.BINARY, **ERRORS},
        summary="Download the PDF (404 until it is ready)",
    )
    @action(detail=True, methods=["get"])
    def download(self, request: Request, pk: str) -> FileResponse:
        return document_file_response(self.get_object())
