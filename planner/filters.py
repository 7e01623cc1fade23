"""One filterset for the design list page and the designs API."""

import django_filters
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _

from planner.models import Design, Scenario
from quotes.models import Customer


class DesignFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label=_("Search"))
    customer = django_filters.ModelChoiceFilter(
        queryset=Customer.objects.all(), label=_("Customer")
    )
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
    is_draft = django_filters.BooleanFilter(label=_("Draft"))

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
