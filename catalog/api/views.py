# mypy: disallow-subclassing-any=False
# import-export, simple-history, DRF and django-filter ship no type stubs: their base classes
# are Any to mypy, so subclassing them is allowed in this module (the rest stays strict).
"""Catalog REST endpoints (routes in `catalog/api/urls.py`).

Read with the `view_` permission (every role has it), write with add/change/delete (catalog
managers), read-only API tokens read only; cost and margin
only for users with `catalog.view_cost` (see `ProductSerializer`)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins

from catalog.filters import ProductFilter
from catalog.models import MediaRule, Product
from catalog.selectors import product_queryset
from catalog.serializers import MediaRuleSerializer, ProductSerializer
from core.api.base import ApiViewSet, User
from core.pagination import ApiCursorPagination


class CatalogPagination(ApiCursorPagination):
    """The project's cursor pagination (`?limit=`), in SKU order."""

    ordering = "sku"


@extend_schema_view(
    list=extend_schema(
        summary="List products",
        description="Filter with the catalog browser's filters. `cost`, `cost_currency`, "
        "`cost_is_sample` and `margin` are present only for users with catalog.view_cost.",
    ),
    retrieve=extend_schema(summary="One product with its typed spec and sample list price"),
)
class ProductViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    mixins.ListModelMixin,
    ApiViewSet[Product],
):
    # (A comment, not a docstring: a docstring would become the operations' description.)
    # The catalog is the same for everyone who may read it (the model permission decides);
    # what differs per user is cost and margin, which the serializer leaves out.

    serializer_class = ProductSerializer
    filterset_class = ProductFilter
    pagination_class = CatalogPagination
    lookup_field = "sku"
    lookup_value_regex = r"[A-Za-z0-9._+-]+"

    def visible(self, user: User) -> QuerySet[Product]:
        return product_queryset()


@extend_schema_view(
    list=extend_schema(summary="Media rules: max reach and stock lengths per speed and media"),
)
class MediaRuleViewSet(
    mixins.RetrieveModelMixin,
    mixins.ListModelMixin,
    ApiViewSet[MediaRule],
):
    serializer_class = MediaRuleSerializer
    lookup_value_regex = "[^/.]+"  # as before (the schema documents an integer id)

    def visible(self, user: User) -> QuerySet[MediaRule]:
        return MediaRule.objects.all()
