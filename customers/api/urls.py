"""The customers' routes under /api/v1/ (included by config/urls.py): customers and the CRM's
opportunities."""

from django.urls import include, path

from core.api.base import ApiRouter
from customers.api.views import CustomerViewSet, OpportunityViewSet

router = ApiRouter()
router.register("opportunities", OpportunityViewSet, basename="opportunity")
router.register("customers", CustomerViewSet, basename="customer")

urlpatterns = [path("", include(router.urls))]
