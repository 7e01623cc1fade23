# mypy: disallow-subclassing-any=False
# django-filter ships no type stubs: FilterSet is Any to mypy, so subclassing it is allowed in
# this module (the rest stays strict).
"""One filterset for the design list page and the designs API."""

import django_filters
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _

from core.filters import CountFilter, NonEmptyCharFilter, StrictBooleanFilter, StrictFilterSet
from customers.models import Customer
from customers.selectors import customers_visible_to
from planner.models import Design, Scenario


def _customers(request: object) -> QuerySet[Customer]:
    """The customer choices: the caller's team's (customers_visible_to decides). Another team's
    customer is not a choice, on the page's dropdown as in the API.

    An API request without `customer` has no choice to check and no dropdown to draw, so it gets
    no choices: finding the caller's team cost two queries, half of a designs' list request
    (bench.load). The page (a Django request, no `query_params`) always draws the dropdown."""
    user = getattr(request, "user", None)
    if user is None:
        return Customer.objects.none()
    api_params = getattr(request, "query_params", None)
    if api_params is not None and not api_params.get("customer"):
        return Customer.objects.none()
    return customers_visible_to(user)


class DesignFilterSet(StrictFilterSet):
    q = NonEmptyCharFilter(method="search", label=_("Search"))
    customer = django_filters.ModelChoiceFilter(queryset=_customers, label=_("Customer"))
    author = django_filters.ModelChoiceFilter(
        field_name="owner", queryset=get_user_model().objects.all(), label=_("Author")
    )
    scenario = django_filters.ChoiceFilter(choices=Scenario.choices, label=_("Scenario"))
    gpus_min = CountFilter(field_name="gpus", lookup_expr="gte", label=_("GPUs ≥"))
    gpus_max = CountFilter(field_name="gpus", lookup_expr="lte", label=_("GPUs ≤"))
    created_after = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__gte", label=_("Created from")
    )
    created_before = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__lte", label=_("Created until")
    )
    is_draft = StrictBooleanFilter(label=_("Draft"))

    class Meta:
        model = Design
        fields = ["q", "customer", "author", "scenario", "gpus_min", "gpus_max", "is_draft"]

    def search(self, queryset: QuerySet[Design], name: str, value: str) -> QuerySet[Design]:
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(name__icontains=value)
            | Q(customer__name_en__icontains=value)
            | Q(customer__name_zh__icontains=value)
            | Q(owner__username__icontains=value)
        )
