# mypy: disallow-subclassing-any=False
# django-filter ships no type stubs: FilterSet is Any to mypy, so subclassing it is allowed in
# this module (the rest stays strict).
"""The one FilterSet for quotes, shared by the HTML list and the REST API."""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _

from core.filters import NonEmptyCharFilter, StrictBooleanFilter, StrictFilterSet
from customers.models import Customer
from customers.selectors import customers_visible_to
from quotes.models import Quote, QuoteStatus


def _customers(request: object) -> QuerySet[Customer]:
    user = getattr(request, "user", None)
    return customers_visible_to(user) if user is not None else Customer.objects.none()


class QuoteFilter(StrictFilterSet):
    q = NonEmptyCharFilter(method="filter_search", label=_("Search"))
    status = django_filters.ChoiceFilter(choices=QuoteStatus.choices, label=_("Status"))
    customer = django_filters.ModelChoiceFilter(queryset=_customers, label=_("Customer"))
    created_after = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__gte", label=_("Created from")
    )
    created_before = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__lte", label=_("Created until")
    )
    mine = StrictBooleanFilter(method="filter_mine", label=_("Only mine"))

    class Meta:
        model = Quote
        fields = ["q", "status", "customer", "created_after", "created_before", "mine"]

    def filter_search(self, queryset: QuerySet[Quote], name: str, value: str) -> QuerySet[Quote]:
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(number__icontains=value)
            | Q(title__icontains=value)
            | Q(customer__name_en__icontains=value)
            | Q(customer__name_zh__icontains=value)
        )

    def filter_mine(
        self, queryset: QuerySet[Quote], name: str, value: bool | None
    ) -> QuerySet[Quote]:
        if value and self.request is not None:
            return queryset.filter(owner=self.request.user)
        return queryset
