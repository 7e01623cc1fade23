# mypy: disallow-subclassing-any=False
# import-export, simple-history, DRF and django-filter ship no type stubs: their base classes
# are Any to mypy, so subclassing them is allowed in this module (the rest stays strict).
"""Catalog REST endpoints, registered on `config.api_urls.router`.

Read with the `view_` permission (every role has it), write with add/change/delete (catalog
managers), read-only API tokens read only; cost and margin
only for users with `catalog.view_cost` (see `ProductSerializer`)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import viewsets

from catalog.filters import ProductFilter
from catalog.models import MediaRule, Product
from catalog.selectors import product_queryset
from catalog.serializers import MediaRuleSerializer, ProductSerializer
from config.api_urls import router
from core.authentication import ModelPermissions, TokenScopePermission
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
class ProductViewSet(viewsets.ModelViewSet):
    serializer_class = ProductSerializer
    permission_classes = [ModelPermissions, TokenScopePermission]
    filterset_class = ProductFilter
    pagination_class = CatalogPagination
    lookup_field = "sku"
    lookup_value_regex = r"[A-Za-z0-9._+-]+"

    def get_queryset(self) -> QuerySet[Product]:
        return product_queryset()


@extend_schema_view(
    list=extend_schema(summary="Media rules: max reach and stock lengths per speed and media"),
)
class MediaRuleViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = MediaRuleSerializer
    permission_classes = [ModelPermissions, TokenScopePermission]
    queryset = MediaRule.objects.all()


router.register("products", ProductViewSet, basename="product")
router.register("media-rules", MediaRuleViewSet, basename="media-rule")
