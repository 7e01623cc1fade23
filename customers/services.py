"""Writes for customers, their contacts and the CRM's records (customers and opportunities upserted
by the CRM's own ids). Each service decides access itself: the customer must be one the user sees
(customers.selectors, the one place that decides) and the user's role must allow the change.
Forms and serializers only parse; they never decide."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.selectors import user_team
from customers.models import Contact, Customer, Opportunity
from customers.selectors import contact_for, customer_for
from customers.tax_ids import tax_id_problem


class CustomerChangeNotAllowed(DomainError):
    """The user's role does not let them keep customers (a catalog manager, say)."""

    http_status = 403
    code = "permission_denied"


class NoTeamForCustomer(DomainError):
    """A customer belongs to a team; a user in none cannot create one (nobody would see it)."""

    http_status = 409
    code = "no_team"


class CrmIdTaken(DomainError):
    """A CRM id already names a record of another team: the CRM may not move it between teams."""

    http_status = 409
    code = "crm_id_taken"


class OpportunityHasQuotes(DomainError):
    """The opportunity's quotes were made for its customer: moving it to another would misfile
    them."""

    http_status = 400
    code = "invalid"


def customer_create(
    *,
    user: User,
    name_en: str = "",
    name_zh: str = "",
    preferred_language: str = "zh-hans",
    address: str = "",
    tax_id: str = "",
) -> Customer:
    """A customer of the user's team, named in English, Chinese or both. CRM source and id stay
    empty: only the CRM sets them. The billing contact is chosen once the customer has
    contacts (`customer_update`)."""
    _require(user, "customers.add_customer")
    team = user_team(user)
    if team is None:
        raise NoTeamForCustomer(
            _("You are in no team, so a customer you create would be nobody's.")
        )
    customer = Customer(team=team)
    _set_customer_fields(
        customer,
        name_en=name_en,
        name_zh=name_zh,
        preferred_language=preferred_language,
        address=address,
        tax_id=tax_id,
    )
    with transaction.atomic():
        customer.save()
    return customer


def customer_update(
    *,
    user: User,
    customer_id: int,
    name_en: str,
    name_zh: str,
    preferred_language: str,
    address: str = "",
    tax_id: str = "",
    billing_contact_id: int | None = None,
) -> Customer:
    """Names, language, address, tax id and billing contact (one of the customer's own
    contacts); the team and the CRM identity do not change here."""
    _require(user, "customers.change_customer")
    with transaction.atomic():
        customer = customer_for(user=user, customer_id=customer_id)
        customer = Customer.objects.select_for_update().get(pk=customer.pk)
        _set_customer_fields(
            customer,
            name_en=name_en,
            name_zh=name_zh,
            preferred_language=preferred_language,
            address=address,
            tax_id=tax_id,
            billing_contact_id=billing_contact_id,
        )
        customer.save(update_fields=[*CUSTOMER_FIELDS, "updated_at"])
    return customer


def contact_create(
    *,
    user: User,
    customer_id: int,
    name: str,
    email: str = "",
    phone: str = "",
    title: str = "",
    is_primary: bool = False,
) -> Contact:
    _require(user, "customers.add_contact")
    with transaction.atomic():
        customer = customer_for(user=user, customer_id=customer_id)
        # Locking the customer serialises contact writes, so two "primary" saves cannot race.
        Customer.objects.select_for_update().filter(pk=customer.pk).first()
        contact = Contact(customer=customer)
        _set_contact_fields(
            contact, name=name, email=email, phone=phone, title=title, is_primary=is_primary
        )
        contact.save()
        _one_primary(contact)
    return contact


def contact_update(
    *,
    user: User,
    contact_id: int,
    name: str,
    email: str,
    phone: str,
    title: str,
    is_primary: bool,
) -> Contact:
    _require(user, "customers.change_contact")
    with transaction.atomic():
        contact = contact_for(user=user, contact_id=contact_id)
        Customer.objects.select_for_update().filter(pk=contact.customer_id).first()
        contact = Contact.objects.select_related("customer").get(pk=contact.pk)
        _set_contact_fields(
            contact, name=name, email=email, phone=phone, title=title, is_primary=is_primary
        )
        contact.save()
        _one_primary(contact)
    return contact


def _require(user: User, permission: str) -> None:
    if not user.is_authenticated or not user.has_perm(permission):
        raise CustomerChangeNotAllowed(_("Your role does not allow changing customers."))


CUSTOMER_FIELDS = (
    "name_en", "name_zh", "preferred_language", "address", "tax_id", "billing_contact",
)  # fmt: skip


def customer_field_errors(
    *,
    name_en: str,
    name_zh: str,
    tax_id: str = "",
    preferred_language: str | None = None,
) -> dict[str, str]:
    """The customer's fields' problems, keyed by field, in the reader's words: the same
    messages for the form, the API's 400 and the services (which decide). A name in either
    language is enough; a tax id, when given, is a unified social credit code (GB 32100-2015)."""
    errors: dict[str, str] = {}
    if not name_en.strip() and not name_zh.strip():
        message = _("Give the customer's name in Chinese or English (at least one).")
        errors["name_zh"] = errors["name_en"] = message
    problem = tax_id_problem(normalized_tax_id(tax_id)) if tax_id.strip() else None
    if problem is not None:
        errors["tax_id"] = TAX_ID_MESSAGES[problem]()
    if preferred_language is not None and preferred_language not in dict(settings.LANGUAGES):
        errors["preferred_language"] = _("Choose one of the languages the tool speaks.")
    return errors


def normalized_tax_id(tax_id: str) -> str:
    """As printed on the business licence: no spaces, capital letters."""
    return "".join(tax_id.split()).upper()


TAX_ID_MESSAGES: dict[str, Callable[[], str]] = {
    "length": lambda: _("A unified social credit code has 18 characters."),
    "characters": lambda: _(
        "A unified social credit code uses digits and capital letters other than I, O, S, V and Z."
    ),
    "division": lambda: _(
        "Characters 3 to 8 of a unified social credit code are the region's code: six digits."
    ),
    "check": lambda: _(
        "This unified social credit code's last character does not match the others: check it "
        "for a typing error."
    ),
}


def _set_customer_fields(
    customer: Customer,
    *,
    name_en: str,
    name_zh: str,
    preferred_language: str,
    address: str = "",
    tax_id: str = "",
    billing_contact_id: int | None = None,
) -> None:
    errors = customer_field_errors(
        name_en=name_en, name_zh=name_zh, tax_id=tax_id, preferred_language=preferred_language
    )
    if billing_contact_id is not None and (
        customer.pk is None
        or not Contact.objects.filter(pk=billing_contact_id, customer_id=customer.pk).exists()
    ):
        errors["billing_contact"] = _("Choose one of this customer's contacts.")
    if errors:
        raise DomainError(_("The customer was not saved."), errors=errors)
    customer.name_en, customer.name_zh = name_en.strip(), name_zh.strip()
    customer.preferred_language = preferred_language
    customer.address = address.strip()
    customer.tax_id = normalized_tax_id(tax_id)
    customer.billing_contact_id = billing_contact_id


def _set_contact_fields(
    contact: Contact, *, name: str, email: str, phone: str, title: str, is_primary: bool
) -> None:
    errors: dict[str, str] = {}
    name, email, phone, title = name.strip(), email.strip(), phone.strip(), title.strip()
    if not name:
        errors["name"] = _("Give the contact's name.")
    if email:
        try:
            validate_email(email)
        except ValidationError:
            errors["email"] = _("Enter a valid email address.")
    if errors:
        raise DomainError(_("The contact was not saved."), errors=errors)
    contact.name, contact.email, contact.phone, contact.title = name, email, phone, title
    contact.is_primary = is_primary


def _one_primary(contact: Contact) -> None:
    """A customer has at most one primary contact: naming a new one demotes the previous one."""
    if contact.is_primary:
        Contact.objects.filter(customer_id=contact.customer_id, is_primary=True).exclude(
            pk=contact.pk
        ).update(is_primary=False)


# --- Records the CRM names by its own ids -----------------------------------------------------

_CrmRecord = TypeVar("_CrmRecord", Customer, Opportunity)


def _crm_key_check(source: str, external_id: str) -> None:
    if not source or not external_id:
        raise DomainError(_("Both the CRM source and its id are needed."))


def _by_crm_id(
    model: type[_CrmRecord], *, source: str, external_id: str, create: Callable[[], _CrmRecord]
) -> tuple[_CrmRecord, bool]:
    """The record the CRM knows as (source, external_id), locked for update, or a new one made by
    `create`; when two requests create the same id at once, the later one gets the first one's
    record. Runs in the caller's transaction. Returns (record, created)."""
    records = model._default_manager.select_for_update()
    record = records.filter(external_source=source, external_id=external_id).first()
    if record is not None:
        return record, False
    try:
        with transaction.atomic():
            return create(), True
    except IntegrityError:
        return records.get(external_source=source, external_id=external_id), False


def customer_upsert_by_external_id(
    *,
    user: User,
    source: str,
    external_id: str,
    name_en: str = "",
    name_zh: str = "",
    preferred_language: str | None = None,
    address: str | None = None,
    tax_id: str | None = None,
) -> tuple[Customer, bool]:
    """Create or update the customer the CRM knows as (source, external_id). Returns
    (customer, created). A new customer joins the caller's team; a CRM id another team's customer
    holds is refused (`CrmIdTaken`), never moved. A superuser in no team may update, not create."""
    team = user_team(user)
    if team is None and not user.is_superuser:
        raise NoTeamForCustomer(
            _("You are in no team, so a customer you create would be nobody's.")
        )
    _crm_key_check(source, external_id)
    errors = customer_field_errors(name_en=name_en, name_zh=name_zh, tax_id=tax_id or "")
    if errors:
        raise DomainError(_("The customer was not saved."), errors=errors)

    def create() -> Customer:
        _require(user, "customers.add_customer")
        if team is None:
            raise NoTeamForCustomer(
                _("You are in no team, so a customer you create would be nobody's.")
            )
        customer = Customer(external_source=source, external_id=external_id, team=team)
        _set_customer_fields(
            customer,
            name_en=name_en,
            name_zh=name_zh,
            preferred_language=preferred_language or customer.preferred_language,
            address=address or "",
            tax_id=tax_id or "",
        )
        customer.save()
        return customer

    with transaction.atomic():
        customer, created = _by_crm_id(
            Customer, source=source, external_id=external_id, create=create
        )
        if created:
            return customer, True
        _require(user, "customers.change_customer")
        if team is not None and customer.team_id != team.pk and not user.is_superuser:
            raise CrmIdTaken(_("This CRM id belongs to a customer of another team."))
        # Fields the CRM leaves out (None) keep their values.
        _set_customer_fields(
            customer,
            name_en=name_en,
            name_zh=name_zh,
            preferred_language=preferred_language or customer.preferred_language,
            address=customer.address if address is None else address,
            tax_id=customer.tax_id if tax_id is None else tax_id,
            billing_contact_id=customer.billing_contact_id,
        )
        customer.save(update_fields=[*CUSTOMER_FIELDS, "updated_at"])
        return customer, False


def opportunity_upsert_by_external_id(
    *,
    user: User,
    source: str,
    external_id: str,
    customer_id: int,
    name: str,
) -> tuple[Opportunity, bool]:
    """Create or update the opportunity the CRM knows as (source, external_id), for a customer
    the caller sees (another team's is `CustomerNotFound`, a 404, as a missing one). Returns
    (opportunity, created); a new one is owned by the caller."""
    _crm_key_check(source, external_id)
    name = name.strip()
    if not name:
        raise DomainError(_("Enter the opportunity's name."), field="name")
    customer = customer_for(user=user, customer_id=customer_id)

    def create() -> Opportunity:
        _require(user, "customers.add_opportunity")
        return Opportunity.objects.create(
            external_source=source, external_id=external_id, customer=customer, name=name,
            owner=user,
        )  # fmt: skip

    with transaction.atomic():
        opportunity, created = _by_crm_id(
            Opportunity, source=source, external_id=external_id, create=create
        )
        if created:
            return opportunity, True
        _require(user, "customers.change_opportunity")
        if opportunity.customer.team_id != customer.team_id:
            raise CrmIdTaken(_("This CRM id belongs to an opportunity of another team."))
        if opportunity.customer_id != customer.pk and opportunity.quotes.exists():
            raise OpportunityHasQuotes(
                _("This opportunity already has quotes for another customer."), field="customer"
            )
        opportunity.customer = customer
        opportunity.name = name
        opportunity.save(update_fields=["customer", "name"])
        return opportunity, False
