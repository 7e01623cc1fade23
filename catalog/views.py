# mypy: disallow-subclassing-any=False
# import-export, simple-history, DRF and django-filter ship no type stubs: their base classes
# are Any to mypy, so subclassing them is allowed in this module (the rest stays strict).
"""The read-only catalog browser for sales engineers (login required)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth.mixins import LoginRequiredMixin
from django.db.models import QuerySet
from django.views.generic import DetailView
from django_filters.views import FilterView

from catalog.filters import ProductFilter
from catalog.models import Product
from catalog.selectors import (
    compatible_items,
    default_price_list,
    list_price,
    margin,
    price_map,
    product_queryset,
)
from catalog.serializers import VIEW_COST


class ProductListView(LoginRequiredMixin, FilterView):
    filterset_class = ProductFilter
    template_name = "catalog/product_list.html"
    context_object_name = "products"
    paginate_by = 25
    strict = False

    def get_queryset(self) -> QuerySet[Product]:
        return product_queryset().order_by("category", "sku")

    def get_filterset(self, filterset_class: Any) -> Any:
        filterset = super().get_filterset(filterset_class)
        for name, field in filterset.form.fields.items():
            if name != "q":
                field.widget.attrs["data-autosubmit"] = ""
        return filterset

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context: dict[str, Any] = super().get_context_data(**kwargs)
        price_list = default_price_list()
        prices = price_map(price_list)
        for product in context["products"]:
            product.list_amount = prices.get(product.sku)
        query = self.request.GET.copy()
        query.pop("page", None)
        context.update(
            price_list=price_list,
            querystring=query.urlencode(),
            filtered=any(v for k, v in self.request.GET.items() if k != "page"),
        )
        return context


if TYPE_CHECKING:  # generic in django-stubs, not subscriptable at run time
    ProductDetailBase = DetailView[Product]
else:
    ProductDetailBase = DetailView


class ProductDetailView(LoginRequiredMixin, ProductDetailBase):
    template_name = "catalog/product_detail.html"
    context_object_name = "product"
    slug_field = "sku"
    slug_url_kwarg = "sku"

    def get_queryset(self) -> QuerySet[Product]:
        return product_queryset()

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        product: Product = self.object
        price = list_price(product)
        can_view_cost = self.request.user.has_perm(VIEW_COST)
        context.update(
            price=price,
            tiers=list(price.tiers.all()) if price else [],
            compatible=compatible_items(product),
            can_view_cost=can_view_cost,
            margin=margin(product, price) if can_view_cost else None,
        )
        return context
