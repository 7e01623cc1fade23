"""The REST API, versioned under /api/v1/. Each app registers its viewsets on `router` in its
own `api.py`, imported here."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from core.api import MeView
from core.webhook_api import WebhookSubscriptionViewSet

# A trailing slash is optional, so that export URLs read as files: /designs/7/bom.xlsx
router = DefaultRouter()
router.trailing_slash = "/?"

# App viewsets register themselves on `router` when imported.
import catalog.api  # noqa: E402, F401
import planner.api  # noqa: E402, F401
import quotes.api  # noqa: E402, F401
from quotes.document_api import quote_documents  # noqa: E402

router.register("webhooks", WebhookSubscriptionViewSet, basename="webhook")

urlpatterns = [
    path("me/", MeView.as_view(), name="api-me"),
    path("quotes/<int:quote_pk>/documents/", quote_documents, name="quote-documents"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include(router.urls)),
]
