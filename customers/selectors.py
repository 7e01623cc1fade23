"""Reads for customers, and the one place that decides who may see which customer, contact and
opportunity: a user sees the customers of their team (a superuser sees all). Pages, forms, the
API and the services of other apps ask here; another team's customer and a missing one look the
same (`CustomerNotFound`, a 404)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.selectors import user_team
from customers.models import Contact, Customer, Opportunity

Viewer = User | AnonymousUser


class CustomerNotFound(DomainError):
    """No such customer for this user: missing, or another team's (they look the same)."""

    http_status = 404
    code = "not_found"

    def __init__(self, requested: object = None) -> None:
        super().__init__(_("No such customer."))
        self.requested = requested


class ContactNotFound(DomainError):
    """No such contact for this user: missing, or of another team's customer."""

    http_status = 404
    code = "not_found"

    def __init__(self, requested: object = None) -> None:
        super().__init__(_("No such contact."))
        self.requested = requested


class OpportunityNotFound(DomainError):
    """No such opportunity for this user: missing, or of another team's customer."""

    http_status = 404
    code = "not_found"

    def __init__(self, requested: object = None) -> None:
        super().__init__(_("No such opportunity."))
        self.requested = requested


def customers_visible_to(user: Viewer) -> QuerySet[Customer]:
    customers = Customer.objects.select_related("team", "billing_contact").prefetch_related(
        "contacts"
    )
    if not user.is_authenticated:
        return customers.none()
    if getattr(user, "is_superuser", False):
        return in_reading_order(customers)
    team = user_team(user)
    return in_reading_order(customers.filter(team=team) if team else customers.none())


def in_reading_order(customers: QuerySet[Customer]) -> QuerySet[Customer]:
    """By the name the reader sees first, Chinese names by their pinyin (customers.sorting)."""
    chinese = (get_language() or "").startswith("zh")
    return customers.order_by("sort_zh" if chinese else "sort_en", "id")


def customer_for(*, user: Viewer, customer_id: object) -> Customer:
    """The customer `customer_id` if `user` may see it. Ids arrive from forms, URLs and JSON, so
    anything that is not a whole number is simply not found."""
    pk = _as_id(customer_id)
    customer = customers_visible_to(user).filter(pk=pk).first() if pk is not None else None
    if customer is None:
        raise CustomerNotFound(customer_id)
    return customer


def customer_search(*, user: Viewer, query: str = "") -> QuerySet[Customer]:
    """Customers the user sees whose English or Chinese name, or CRM id, contains `query`."""
    customers = customers_visible_to(user)
    query = query.strip()
    if query:
        customers = customers.filter(
            Q(name_en__icontains=query)
            | Q(name_zh__icontains=query)
            | Q(external_id__icontains=query)
        )
    return in_reading_order(customers)


def contacts_visible_to(user: Viewer) -> QuerySet[Contact]:
    return Contact.objects.select_related("customer").filter(
        customer__in=customers_visible_to(user)
    )


def contact_for(*, user: Viewer, contact_id: object) -> Contact:
    pk = _as_id(contact_id)
    contact = contacts_visible_to(user).filter(pk=pk).first() if pk is not None else None
    if contact is None:
        raise ContactNotFound(contact_id)
    return contact


def opportunities_visible_to(user: Viewer) -> QuerySet[Opportunity]:
    """Opportunities of the customers the user sees."""
    return Opportunity.objects.select_related("customer", "owner").filter(
        customer__in=customers_visible_to(user)
    )


def opportunity_for(*, user: Viewer, opportunity_id: object) -> Opportunity:
    pk = _as_id(opportunity_id)
    found = opportunities_visible_to(user).filter(pk=pk).first() if pk is not None else None
    if found is None:
        raise OpportunityNotFound(opportunity_id)
    return found


def _as_id(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip()) or None
    return None
