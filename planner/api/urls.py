"""The designs' routes under /api/v1/ (included by config/urls.py)."""

from django.urls import include, path

from core.api.base import ApiRouter
from planner.api.views import DesignViewSet

router = ApiRouter()
router.register("designs", DesignViewSet, basename="design")

urlpatterns = [path("", include(router.urls))]
