"""The quotes' routes under /api/v1/ (included by config/urls.py): quotes and their documents
(customers and opportunities are the customers app's)."""

from django.urls import include, path

from core.api.base import ApiRouter
from quotes.api.documents import DocumentViewSet, QuoteDocumentsViewSet
from quotes.api.views import QuoteViewSet

router = ApiRouter()
router.register("quotes", QuoteViewSet, basename="quote")
router.register("documents", DocumentViewSet, basename="document")

quote_documents = QuoteDocumentsViewSet.as_view({"get": "list", "post": "create"})

urlpatterns = [
    path("quotes/<int:quote_pk>/documents/", quote_documents, name="quote-documents"),
    path("", include(router.urls)),
]
