"""The catalog's routes under /api/v1/ (included by config/urls.py)."""

from django.urls import include, path

from catalog.api.views import MediaRuleViewSet, ProductViewSet
from core.api.base import ApiRouter

router = ApiRouter()
router.register("products", ProductViewSet, basename="product")
router.register("media-rules", MediaRuleViewSet, basename="media-rule")

urlpatterns = [path("", include(router.urls))]
