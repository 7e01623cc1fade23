"""The API's own routes: who am I, webhook subscriptions, the schema and its docs."""

from csp.decorators import csp_update
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core.api.base import ApiRouter
from core.api.views import MeView
from core.api.webhooks import WebhookSubscriptionViewSet

# Swagger UI's page carries one inline <style> block; allow exactly that block (by its hash,
# stable because the sidecar version is pinned) instead of loosening the whole policy.
SWAGGER_STYLE_SHA256 = "'sha256-MMpT0iDxyjALd9PdfepImGX3DBfJPXZ4IlDWdPAgtn0='"
swagger_ui = csp_update({"style-src": [SWAGGER_STYLE_SHA256]})(
    SpectacularSwaggerSplitView.as_view(url_name="api-schema")
)

router = ApiRouter()
router.register("webhooks", WebhookSubscriptionViewSet, basename="webhook")

urlpatterns = [
    path("me/", MeView.as_view(), name="api-me"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", swagger_ui, name="api-docs"),
    path("", include(router.urls)),
]
