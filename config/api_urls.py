"""The REST API, versioned under /api/v1/. Each app registers its viewsets on `router` in its
own `api.py`, imported here."""

from csp.decorators import csp_update
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from core.api import MeView
from core.webhook_api import WebhookSubscriptionViewSet

# Swagger UI's page carries one inline <style> block; allow exactly that block (by its hash,
# stable because the sidecar version is pinned) instead of loosening the whole policy.
SWAGGER_STYLE_SHA256 = "'sha256-MMpT0iDxyjALd9PdfepImGX3DBfJPXZ4IlDWdPAgtn0='"
swagger_ui = csp_update({"style-src": [SWAGGER_STYLE_SHA256]})(
    SpectacularSwaggerSplitView.as_view(url_name="api-schema")
)

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
    path("docs/", swagger_ui, name="api-docs"),
    path("", include(router.urls)),
]
