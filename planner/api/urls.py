"""The designs' routes under /api/v1/ (included by config/urls.py)."""

from django.urls import include, path

from core.api.base import ApiRouter
from planner.api.handover import DesignHandoverViewSet
from planner.api.labels import DesignLabelsViewSet
from planner.api.views import DesignViewSet

router = ApiRouter()
router.register("designs", DesignViewSet, basename="design")
# The label sheet has its own viewset (planner.api.labels) under the same prefix, on a router of
# its own: the API root lists `router`'s registry, where a second "designs" would replace the
# first. Its only route, /designs/{id}/labels.pdf, is one DesignViewSet's routes never match.
labels_router = ApiRouter()
labels_router.register("designs", DesignLabelsViewSet, basename="design-labels")

# The handover files likewise (planner.api.handover): /designs/{id}/handover/<file>.
handover_router = ApiRouter()
handover_router.register("designs", DesignHandoverViewSet, basename="design-handover")

urlpatterns = [
    path("", include(router.urls)),
    path("", include(labels_router.urls)),
    path("", include(handover_router.urls)),
]
