"""Creating a quote from a sized design: its first revision, lines and frozen prices."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from catalog.models import PriceList
from catalog.selectors import default_price_list
from core.models import Team
from core.selectors import user_team
from customers.models import Customer, Opportunity
from engine.result import BomLineResult, DesignResult, ResultFormatError
from planner.frozen import frozen_design_of
from planner.models import Design
from planner.selectors import designs_visible_to
from quotes import pricing
from quotes.models import (
    AuditAction,
    LineKind,
    Quote,
    QuoteLine,
    QuoteRevision,
)
from quotes.selectors import SERVICES_PLANE
from quotes.services.descriptions import (
    Descriptions,
    catalog_descriptions,
    text_descriptions,
    typed,
)
from quotes.services.errors import QuoteInvalid
from quotes.services.numbering import _next_number, quote_number
from quotes.services.prices import CatalogItem, _catalog_items, _frozen_fields, _reprice
from quotes.services.records import _require_permission, audit_record
from quotes.services.terms import default_milestones, written_terms

DEFAULT_TAX_RATE = Decimal("0.13")  # VAT on goods in China
DEFAULT_VALIDITY_DAYS = 30
# Kept for callers that show a generic text; a new quote's terms are written from its lines
# (quotes.services.terms.default_terms).
DEFAULT_TERMS = gettext_lazy(
    "Prices exclude freight and installation unless listed. Delivery 4-6 weeks after order "
    "for in-stock items. Warranty: 1 year (hardware), unless a support line says otherwise."
)


def _sized_result(design: Design) -> DesignResult | None:
    """The design's stored result through the codec; None when it has none or one this code
    cannot read (it is sized again before it is quoted)."""
    try:
        return design.typed_result
    except ResultFormatError:
        return None


def _bom_lines(result: DesignResult) -> list[BomLineResult]:
    """The design's BOM lines that become quote lines: catalog items, and the generic lines
    standing in for catalog gaps (to be priced)."""
    return [line for line in result.bom if line.sku or line.catalog_gap]


def _gap_description(entry: BomLineResult) -> Descriptions:
    """A catalog gap's description in both languages when the engine gave its template (an
    inline-spec switch, a generic module), else its English text for both."""
    if entry.description_text is not None and entry.description_text.template:
        return text_descriptions(entry.description_text)
    return typed(entry.description)


def _design_counts(result: DesignResult) -> tuple[int, int, int]:
    """(servers, switches, GPUs) of a sized design, for the service rule."""
    switches = sum(line.quantity for line in _bom_lines(result) if line.category == "switch")
    return result.servers_total, switches, result.gpus_total


def _sales_contact(user: User, *, phone: str | None) -> dict[str, str]:
    """Who the customer deals with: the owner's name and email, and the phone given (else the
    one they gave on their latest quote)."""
    if phone is None:
        last = (
            Quote.objects.filter(owner=user)
            .exclude(sales_contact__phone="")
            .exclude(sales_contact__phone=None)
            .order_by("-created_at")
            .values_list("sales_contact", flat=True)
            .first()
        )
        phone = str((last or {}).get("phone") or "")
    return {
        "name": user.get_full_name() or user.get_username(),
        "email": user.email or "",
        "phone": phone.strip(),
    }


@dataclass(frozen=True)
class _Terms:
    currency: str
    exchange_rate: Decimal
    tax_rate: Decimal
    services_tax_rate: Decimal
    freight_tax_rate: Decimal


def _commercial_terms(
    price_list: PriceList,
    *,
    currency: str | None,
    exchange_rate: Decimal | None,
    tax_rate: Decimal | None,
    validity_days: int,
) -> _Terms:
    """The currency, exchange rate and VAT rates a new quote is priced in, each refused in words
    on its own field."""
    currency = currency or price_list.currency
    if currency == price_list.currency:
        if exchange_rate not in (None, Decimal("1")):
            raise QuoteInvalid(
                _("Same currency as the price list: the exchange rate is 1."),
                field="exchange_rate",
            )
        exchange_rate = Decimal("1")
    elif exchange_rate is None or exchange_rate <= 0:
        raise QuoteInvalid(
            _("Give the exchange rate from %(from)s to %(to)s.")
            % {"from": price_list.currency, "to": currency},
            field="exchange_rate",
        )
    if tax_rate is None:
        tax_rate = Decimal(getattr(price_list, "goods_vat_percent", 13)) / 100
    if not Decimal("0") <= tax_rate < Decimal("1"):
        raise QuoteInvalid(_("The tax rate is a fraction, e.g. 0.13 for 13%."), field="tax_rate")
    services_tax_rate = Decimal(getattr(price_list, "services_vat_percent", 6)) / 100
    freight_tax_rate = Decimal(getattr(price_list, "freight_vat_percent", 9)) / 100
    if validity_days < 1:
        raise QuoteInvalid(_("A quote is valid for at least one day."), field="validity_days")
    return _Terms(
        currency=currency,
        exchange_rate=exchange_rate,
        tax_rate=tax_rate,
        services_tax_rate=services_tax_rate,
        freight_tax_rate=freight_tax_rate,
    )


def _initial_lines(
    revision: QuoteRevision,
    *,
    bom: list[BomLineResult],
    items: Mapping[str, Any],
    names: Mapping[str, Any],
    services: Sequence[pricing.ServiceQuantity],
) -> list[QuoteLine]:
    """The first revision's lines, unsaved: the BOM's products in its order (a generic part as
    a line without SKU or price), then the services, ten positions apart."""
    lines: list[QuoteLine] = []
    position = 0
    for entry in bom:
        if entry.catalog_gap:
            if entry.category == "customer_supplied":
                continue
            # No catalog item fits: a line without SKU or price, to be priced by hand or
            # replaced with a SKU before the quote can be submitted or sent.
            position += 10
            lines.append(
                QuoteLine(
                    revision=revision,
                    position=position,
                    kind=LineKind.PRODUCT,
                    plane=entry.plane,
                    tier=entry.tier,
                    **_gap_description(entry).fields(),
                    quantity=entry.quantity,
                )
            )
            continue
        item = items[entry.sku]
        if item.category == "customer_supplied":
            continue  # the customer's own servers: endpoints, not sold
        position += 10
        lines.append(
            QuoteLine(
                revision=revision,
                position=position,
                kind=LineKind.PRODUCT,
                plane=entry.plane,
                tier=entry.tier,
                sku=item.sku,
                **names.get(item.sku, typed(entry.description)).fields(),
                quantity=entry.quantity,
                **_frozen_fields(item),
            )
        )
    for service in services:
        item = items[service.sku]
        position += 10
        lines.append(
            QuoteLine(
                revision=revision,
                position=position,
                kind=LineKind.SERVICE,
                plane=SERVICES_PLANE,
                tier=service.tier,
                sku=service.sku,
                **names.get(service.sku, typed(service.sku)).fields(),
                quantity=service.quantity,
                **_frozen_fields(item),
            )
        )
    return lines


def _quotable_team(
    user: User, *, design: Design, customer: Customer, opportunity: Opportunity | None
) -> Team:
    """The team the new quote belongs to, once the user may quote this design for this
    customer (and opportunity); each refusal in words on its own field."""
    _require_permission(user, "quotes.add_quote")
    if not designs_visible_to(user).filter(pk=design.pk).exists():
        raise QuoteInvalid(_("Choose one of your or your team's designs."), field="design")
    if design.archived_at is not None:
        # Archived means put away by its owner: quoting it would revive it behind their back.
        raise QuoteInvalid(_("The design is archived: restore it before quoting."), field="design")
    team = user_team(user)
    if team is None:
        raise QuoteInvalid(_("You belong to no team: quotes belong to a team."))
    if customer.team_id != team.pk and not user.is_superuser:
        raise QuoteInvalid(_("Choose one of your team's customers."), field="customer")
    if opportunity is not None and opportunity.customer_id != customer.pk:
        raise QuoteInvalid(_("The opportunity belongs to another customer."), field="opportunity")
    return team


def _quoted_bom(design: Design) -> tuple[DesignResult, list[BomLineResult]]:
    result = _sized_result(design)
    bom = _bom_lines(result) if result is not None else []
    if result is None or not bom:
        raise QuoteInvalid(
            _("The design has no bill of materials: size it before quoting."), field="design"
        )
    return result, bom


def _priced_items(
    result: DesignResult,
    bom: list[BomLineResult],
    *,
    price_list: PriceList,
    customer: Customer,
    support_years: int,
    day: date,
) -> tuple[tuple[pricing.ServiceQuantity, ...], dict[str, CatalogItem], dict[str, Descriptions]]:
    """The services the design calls for, and the catalog items (priced for this customer on
    `day`) and names of every SKU the quote will list."""
    servers, switches, gpus = _design_counts(result)
    services = pricing.service_quantities(
        servers=servers,
        switches=switches,
        gpus=gpus,
        support_years=support_years,
        support_basis=getattr(price_list, "support_basis", pricing.SUPPORT_BASIS_SWITCH),
    )
    skus = {entry.sku for entry in bom if not entry.catalog_gap}
    skus |= {s.sku for s in services}
    items = _catalog_items(skus, price_list=price_list, customer=customer, day=day)
    # Both languages' names: the quote prints in either, whatever language it is created in.
    names = catalog_descriptions(skus)
    return services, items, names


def _write_terms(
    revision: QuoteRevision,
    lines: Sequence[QuoteLine],
    *,
    milestones: Sequence[Mapping[str, str]],
    customer: Customer,
) -> None:
    # The terms say what the lines quote (installation included when it is listed).
    # Written in both languages (each reader reads their own); stored in the customer's.
    revision.terms_written = written_terms(
        kinds_and_tiers=[(line.kind, line.tier, line.sku) for line in lines],
        milestones=milestones,
    )
    chinese = customer.preferred_language.lower().startswith("zh")
    revision.terms = revision.terms_written["zh-hans" if chinese else "en"]
    revision.save(update_fields=["terms", "terms_written"])


def _new_quote(
    *,
    user: User,
    design: Design,
    customer: Customer,
    opportunity: Opportunity | None,
    team: Team,
    currency: str,
    title: str,
    contact_phone: str | None,
    year: int,
) -> Quote:
    sequence = _next_number(year)
    return Quote.objects.create(
        number=quote_number(year, sequence),
        year=year,
        sequence=sequence,
        title=title or design.name,
        customer=customer,
        opportunity=opportunity,
        design=design,
        owner=user,
        team=team,
        currency=currency,
        sales_contact=_sales_contact(user, phone=contact_phone),
    )


def _first_revision(
    quote: Quote,
    *,
    user: User,
    design: Design,
    price_list: PriceList,
    terms: _Terms,
    milestones: list[dict[str, str]],
    validity_days: int,
    support_years: int,
) -> QuoteRevision:
    return QuoteRevision.objects.create(
        quote=quote,
        number=0,
        frozen_design=frozen_design_of(design=design),
        price_list_code=price_list.code,
        price_list_currency=price_list.currency,
        prices_are_samples=bool(getattr(price_list, "is_sample", True)),
        currency=terms.currency,
        exchange_rate=terms.exchange_rate,
        tax_rate=terms.tax_rate,
        services_tax_rate=terms.services_tax_rate,
        freight_tax_rate=terms.freight_tax_rate,
        payment_milestones=milestones,
        validity_days=validity_days,
        support_years=support_years,
        created_by=user,
    )


def quote_create(
    *,
    user: User,
    design: Design,
    customer: Customer,
    opportunity: Opportunity | None = None,
    price_list: PriceList | None = None,
    currency: str | None = None,
    exchange_rate: Decimal | None = None,
    tax_rate: Decimal | None = None,
    validity_days: int = DEFAULT_VALIDITY_DAYS,
    support_years: int = 1,
    title: str = "",
    contact_phone: str | None = None,
) -> Quote:
    """A new quote (first revision, draft) from a sized design for a customer. Prices come from
    `price_list` (the default list when None), the customer's contract prices and quantity tiers,
    and are frozen in the lines. VAT per line kind comes from the price list unless `tax_rate`
    (goods, a fraction) is given; support is priced per switch or per GPU as the list says."""
    team = _quotable_team(user, design=design, customer=customer, opportunity=opportunity)
    result, bom = _quoted_bom(design)
    price_list = price_list or default_price_list()
    if price_list is None:
        raise QuoteInvalid(_("No price list: load the catalog first."), field="price_list")
    terms = _commercial_terms(
        price_list,
        currency=currency,
        exchange_rate=exchange_rate,
        tax_rate=tax_rate,
        validity_days=validity_days,
    )

    today = timezone.localdate()
    services, items, names = _priced_items(
        result,
        bom,
        price_list=price_list,
        customer=customer,
        support_years=support_years,
        day=today,
    )
    milestones = default_milestones()

    with transaction.atomic():
        quote = _new_quote(
            user=user,
            design=design,
            customer=customer,
            opportunity=opportunity,
            team=team,
            currency=terms.currency,
            title=title,
            contact_phone=contact_phone,
            year=today.year,
        )
        revision = _first_revision(
            quote,
            user=user,
            design=design,
            price_list=price_list,
            terms=terms,
            milestones=milestones,
            validity_days=validity_days,
            support_years=support_years,
        )
        lines = _initial_lines(revision, bom=bom, items=items, names=names, services=services)
        QuoteLine.objects.bulk_create(lines)
        _write_terms(revision, lines, milestones=milestones, customer=customer)
        _reprice(revision)
        audit_record(
            quote=quote,
            revision=revision,
            action=AuditAction.CREATED,
            actor=user,
            after={"number": quote.number, "design": design.pk, "customer": customer.pk},
        )
    return quote
