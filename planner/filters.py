# mypy: disallow-subclassing-any=False
# django-filter ships no type stubs: FilterSet is Any to mypy, so subclassing it is allowed in
# this module (the rest stays strict).
"""One filterset for the design list page and the designs API."""

from typing import Any

import django_filters
from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _

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


class _KeepUnknownSelect(forms.NullBooleanSelect):
    """Django's select reads anything but true/false as "any" (and "2"/"3" as true/false, from
    older forms); here only true/false and 1/0 are values, anything else is kept for the field
    to refuse."""

    VALUES = {"True": True, "true": True, "1": True, "False": False, "false": False, "0": False}

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        raw = data.get(name)
        if raw in (None, "", "unknown"):
            return None
        return self.VALUES.get(raw, raw) if isinstance(raw, str) else raw


class _StrictNullBooleanField(forms.NullBooleanField):
    """true, false (or 1, 0), or nothing: `?is_draft=null` was read as "any" and listed every
    design, so a caller never learnt their filter was ignored (Schemathesis)."""

    widget = _KeepUnknownSelect

    def to_python(self, value: Any) -> bool:  # None too: the stubs follow BooleanField
        known = ("True", "true", "1", "False", "false", "0")
        if isinstance(value, str) and value not in (*known, "", "unknown"):
            raise forms.ValidationError(_("Enter true or false."), code="invalid")
        return super().to_python(value)  # type: ignore[return-value]


class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = _StrictNullBooleanField


class DesignFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label=_("Search"))
    customer = django_filters.ModelChoiceFilter(queryset=_customers, label=_("Customer"))
    author = django_filters.ModelChoiceFilter(
        field_name="owner", queryset=get_user_model().objects.all(), label=_("Author")
    )
    scenario = django_filters.ChoiceFilter(choices=Scenario.choices, label=_("Scenario"))
    gpus_min = django_filters.NumberFilter(field_name="gpus", lookup_expr="gte", label=_("GPUs ≥"))
    gpus_max = django_filters.NumberFilter(field_name="gpus", lookup_expr="lte", label=_("GPUs ≤"))
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
