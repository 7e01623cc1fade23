# mypy: disallow-subclassing-any=False
# django-filter ships no type stubs: FilterSet is Any to mypy, so subclassing it is allowed in
# this module (the rest stays strict).
"""The API's filter for opportunities, which a CRM looks up by its own id."""

from __future__ import annotations

import django_filters
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from core.filters import NonEmptyCharFilter, StrictFilterSet
from customers.models import Customer, Opportunity
from customers.selectors import customers_visible_to


def _customers(request: object) -> QuerySet[Customer]:
    user = getattr(request, "user", None)
    return customers_visible_to(user) if user is not None else Customer.objects.none()


class OpportunityFilter(StrictFilterSet):
    customer = django_filters.ModelChoiceFilter(queryset=_customers, label=_("Customer"))
    external_source = NonEmptyCharFilter(label=_("CRM source"))
    external_id = NonEmptyCharFilter(label=_("CRM id"))

    class Meta:
        model = Opportunity
        fields = ["customer", "external_source", "external_id"]
