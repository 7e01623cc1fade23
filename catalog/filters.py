# mypy: disallow-subclassing-any=False
# import-export, simple-history, DRF and django-filter ship no type stubs: their base classes
# are Any to mypy, so subclassing them is allowed in this module (the rest stays strict).
"""The one FilterSet for products, shared by the HTML catalog browser and the REST API."""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field

from catalog.models import FORM_FACTOR_CHOICES, Category, LifecycleChoices, Product, Vendor
from core.filters import NON_EMPTY_STRING, NonEmptyCharFilter, StrictFilterSet

SPEED_CHOICES = [(speed, f"{speed}G") for speed in (1, 10, 25, 50, 100, 200, 400, 800)]


@extend_schema_field(NON_EMPTY_STRING)
class _VendorFilter(django_filters.ModelChoiceFilter):
    """A vendor by its code: a string of at least one character in the schema."""


class ProductFilter(StrictFilterSet):
    q = NonEmptyCharFilter(method="filter_search", label=_("Search"))
    category = django_filters.ChoiceFilter(choices=Category.choices, label=_("Category"))
    vendor = _VendorFilter(
        queryset=Vendor.objects.all(),
        to_field_name="code",
        label=_("Vendor"),
    )
    lifecycle = django_filters.ChoiceFilter(choices=LifecycleChoices.choices, label=_("Lifecycle"))
    speed = django_filters.TypedChoiceFilter(
        choices=SPEED_CHOICES,
        coerce=int,
        method="filter_speed",
        label=_("Speed"),
    )
    form_factor = django_filters.ChoiceFilter(
        choices=FORM_FACTOR_CHOICES, method="filter_form_factor", label=_("Form factor")
    )

    class Meta:
        model = Product
        fields = ["q", "category", "vendor", "lifecycle", "speed", "form_factor"]

    def filter_search(
        self, queryset: QuerySet[Product], name: str, value: str
    ) -> QuerySet[Product]:
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(sku__icontains=value)
            | Q(name_en__icontains=value)
            | Q(name_zh__icontains=value)
            | Q(description_en__icontains=value)
            | Q(description_zh__icontains=value)
        )

    def filter_speed(self, queryset: QuerySet[Product], name: str, value: int) -> QuerySet[Product]:
        """A product 'is' a speed when its ports, module, cable end or a switch port group run at
        it (a breakout leg counts too: an 800G switch port broken out 2 x 400G serves 400G)."""
        if not value:
            return queryset
        return queryset.filter(
            Q(nic_spec__speed_gbps=value)
            | Q(transceiver_spec__speed_gbps=value)
            | Q(cable_spec__speed_gbps=value)
            | Q(switch_spec__port_groups__speed_gbps=value)
            | Q(switch_spec__port_groups__breakouts__speed_gbps=value)
        ).distinct()

    def filter_form_factor(
        self, queryset: QuerySet[Product], name: str, value: str
    ) -> QuerySet[Product]:
        if not value:
            return queryset
        return queryset.filter(
            Q(nic_spec__form_factor=value)
            | Q(transceiver_spec__form_factor=value)
            | Q(cable_spec__end_a=value)
            | Q(cable_spec__end_b=value)
            | Q(switch_spec__port_groups__form_factor=value)
        ).distinct()
