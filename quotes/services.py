"""Writes for quotes: keyword-only, transactional, named `<entity>_<action>`. Business refusals are
`DomainError`s (mapped once to problem+json in the API and to form errors/messages on pages);
side effects (the status-changed signal, logs) run on commit."""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from core.errors import DomainError
from core.selectors import user_team
from quotes import pricing
from quotes.models import (
    EDITABLE_STATUSES,
    AuditAction,
    AuditEvent,
    Customer,
    CustomerDecision,
    Decision,
    DiscountPolicy,
    LineKind,
    Opportunity,
    Quote,
    QuoteLine,
    QuoteNumberCounter,
    QuoteRevision,
    QuoteStatus,
    ShareLink,
    ShareLinkView,
)
from quotes.selectors import SERVICES_PLANE, customers_visible_to, revision_priced
from quotes.signals import quote_status_changed

logger = logging.getLogger(__name__)
_CrmRecord = TypeVar("_CrmRecord", Customer, Opportunity)

DEFAULT_TAX_RATE = Decimal("0.13")  # VAT in China
DEFAULT_VALIDITY_DAYS = 30
DEFAULT_TERMS = gettext_lazy(
    "Prices exclude freight and installation unless listed. Delivery 4-6 weeks after order "
    "for in-stock items. Payment: 30 percent on order, 70 percent on delivery. Warranty: 1 year "
    "(hardware), unless a support line says otherwise."
)
SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")


# --- Errors ---------------------------------------------------------------------------------------


class QuoteInvalid(DomainError):
    http_status = 400
    code = "invalid_quote"


class QuoteHasUnpricedLines(DomainError):
    """Lines that stand in for items the catalog lacks still have no price: the quote is not
    complete, so it can be neither submitted for approval nor sent to the customer."""

    http_status = 400
    code = "quote_has_unpriced_lines"


class QuoteNotEditable(DomainError):
    http_status = 409
    code = "quote_not_editable"


class TransitionNotAllowed(DomainError):
    http_status = 409
    code = "transition_not_allowed"


class CrmIdTaken(DomainError):
    """A CRM id already names a record of another team: the CRM may not move it between teams."""

    http_status = 409
    code = "crm_id_taken"


class ApprovalRequired(DomainError):
    http_status = 409
    code = "approval_required"


class NotPermitted(DomainError):
    http_status = 403
    code = "not_permitted"


class QuoteExpired(DomainError):
    http_status = 409
    code = "quote_expired"


# --- Helpers --------------------------------------------------------------------------------------

User = AbstractBaseUser


def _require(user: Any, perm: str) -> None:
    if not user.has_perm(perm):
        raise NotPermitted(_("You do not have the right to do this (%(perm)s).") % {"perm": perm})


def _json(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


def audit_record(
    *,
    quote: Quote,
    action: str,
    revision: QuoteRevision | None = None,
    actor: Any = None,
    actor_label: str = "",
    before: Any = None,
    after: Any = None,
    ip: str | None = None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        quote=quote,
        revision=revision,
        actor=actor if actor is not None and actor.is_authenticated else None,
        actor_label=actor_label or (actor.get_username() if actor is not None else ""),
        action=action,
        before=_json(before),
        after=_json(after),
        ip=ip or None,
    )


def _lock(revision: QuoteRevision) -> QuoteRevision:
    """Re-read the revision under a row lock: decisions are taken on the committed state."""
    return QuoteRevision.objects.select_for_update().select_related("quote").get(pk=revision.pk)


def _sync_quote(revision: QuoteRevision) -> None:
    quote = revision.quote
    latest = quote.revisions.order_by("-number").values_list("pk", flat=True).first()
    if latest != revision.pk:
        return
    quote.status = revision.status
    quote.total = revision.total
    quote.currency = revision.currency
    quote.save(update_fields=["status", "total", "currency", "updated_at"])


def _set_status(
    revision: QuoteRevision,
    new: str,
    *,
    actor: Any = None,
    actor_label: str = "",
    ip: str | None = None,
    note: dict[str, Any] | None = None,
    fields: tuple[str, ...] = (),
) -> None:
    old = revision.status
    revision.status = new
    revision.save(update_fields=["status", "updated_at", *fields])
    _sync_quote(revision)
    audit_record(
        quote=revision.quote,
        revision=revision,
        action=AuditAction.STATUS_CHANGED,
        actor=actor,
        actor_label=actor_label,
        before={"status": old},
        after={"status": new, **(note or {})},
        ip=ip,
    )
    quote_id, revision_id = revision.quote_id, revision.pk
    transaction.on_commit(
        lambda: quote_status_changed.send(
            sender=QuoteRevision, quote_id=quote_id, revision_id=revision_id, old=old, new=new
        )
    )
    transaction.on_commit(
        lambda: logger.info(
            "quote status changed",
            extra={"quote_id": quote_id, "revision_id": revision_id, "old": old, "new": new},
        )
    )


def policy_rules() -> list[pricing.PolicyRule]:
    return [
        pricing.PolicyRule(
            name=policy.name,
            metric=policy.metric,
            threshold=policy.threshold,
            approver_group=policy.approver_group.name,
            currency=policy.currency,
        )
        for policy in DiscountPolicy.objects.filter(is_active=True).select_related("approver_group")
    ]


def _reprice(revision: QuoteRevision) -> pricing.PricedQuote:
    """Price the revision from its frozen inputs; store line results, totals and the policy
    rules it breaks."""
    priced = revision_priced(revision)
    lines = {str(line.pk): line for line in revision.lines.all()}
    changed = []
    for result in priced.lines:
        line = lines[result.key]
        line.price_source = result.price_source
        line.list_unit_price = result.list_unit_price
        line.base_unit_price = result.base_unit_price
        line.effective_discount_percent = result.discount_percent
        line.unit_price = result.unit_price
        line.line_total = result.line_total
        line.unit_cost = result.unit_cost
        changed.append(line)
    QuoteLine.objects.bulk_update(
        changed,
        [
            "price_source",
            "list_unit_price",
            "base_unit_price",
            "effective_discount_percent",
            "unit_price",
            "line_total",
            "unit_cost",
        ],
    )
    totals = priced.totals
    revision.list_total = totals.list_total
    revision.subtotal = totals.subtotal
    revision.tax = totals.tax
    revision.total = totals.total
    revision.optional_total = totals.optional_total
    revision.cost_total = totals.cost_total
    revision.margin_percent = totals.margin_percent
    revision.max_discount_percent = totals.max_discount_percent
    revision.approval_reasons = [
        hit.as_json()
        for hit in pricing.policy_hits(policy_rules(), totals, currency=revision.currency)
    ]
    revision.save()
    _sync_quote(revision)
    return priced


def _unpriced_lines(revision: QuoteRevision) -> list[QuoteLine]:
    return list(
        revision.lines.exclude(kind=LineKind.NOTE)
        .filter(price_source=pricing.PriceSource.TO_BE_PRICED)
        .order_by("position", "id")
    )


def _check_complete(revision: QuoteRevision) -> None:
    unpriced = _unpriced_lines(revision)
    if unpriced:
        count = len(unpriced)
        message = ngettext(
            "%(count)d line is still to be priced (%(lines)s): enter its unit price or replace "
            "it with a catalog SKU before the quote is submitted or sent.",
            "%(count)d lines are still to be priced (%(lines)s): enter their unit prices or "
            "replace them with catalog SKUs before the quote is submitted or sent.",
            count,
        ) % {"count": count, "lines": "; ".join(line.description for line in unpriced)}
        raise QuoteHasUnpricedLines(message, field="lines")
    missing = list(
        revision.lines.exclude(kind=LineKind.NOTE)
        .filter(price_source=pricing.PriceSource.MISSING)
        .values_list("sku", flat=True)
    )
    if missing:
        raise QuoteInvalid(
            _("These lines have no price on the price list: %(skus)s.")
            % {"skus": ", ".join(missing)}
        )
    if not revision.lines.exclude(kind=LineKind.NOTE).filter(is_optional=False).exists():
        raise QuoteInvalid(_("The quote has no priced lines."))


def _needs_approval_message(revision: QuoteRevision) -> str:
    reasons = "; ".join(
        f"{r['policy']} ({r['value']} vs {r['threshold']})" for r in revision.approval_reasons
    )
    groups = ", ".join(sorted({r["approver_group"] for r in revision.approval_reasons}))
    return _("%(label)s needs approval by %(groups)s before it can be sent: %(reasons)s.") % {
        "label": revision.label,
        "groups": groups,
        "reasons": reasons,
    }


# --- Numbering ------------------------------------------------------------------------------------


def _next_number(year: int) -> int:
    """The next number in `year`, taken under a row lock held until the caller's transaction
    ends: concurrent creators queue on the lock, and a rolled-back creation gives its number
    back (no gaps)."""
    counter = QuoteNumberCounter.objects.select_for_update().filter(year=year).first()
    if counter is None:
        try:
            with transaction.atomic():
                QuoteNumberCounter.objects.create(year=year, last_number=0)
        except IntegrityError:
            pass  # another transaction created the year's row first; wait for its lock
        counter = QuoteNumberCounter.objects.select_for_update().get(year=year)
    counter.last_number += 1
    counter.save(update_fields=["last_number"])
    return counter.last_number


def quote_number(year: int, sequence: int) -> str:
    return f"Q-{year}-{sequence:05d}"


# --- Catalog lookups (frozen into lines) ----------------------------------------------------------


@dataclass(frozen=True)
class CatalogItem:
    sku: str
    name: str
    category: str
    list_price: Decimal | None
    tiers: tuple[tuple[int, Decimal], ...]
    contract_price: Decimal | None
    unit_cost: Decimal | None
    is_sample: bool


def _catalog_items(
    skus: set[str], *, price_list: Any, customer: Customer, day: date
) -> dict[str, CatalogItem]:
    from catalog.models import ContractPrice, Price, Product

    zh = customer.preferred_language.startswith("zh")
    products = {p.sku: p for p in Product.objects.filter(sku__in=skus)}
    prices = {
        price.product.sku: price
        for price in Price.objects.filter(price_list=price_list, product__sku__in=skus)
        .select_related("product")
        .prefetch_related("tiers")
    }
    contracts: dict[str, Decimal] = {}
    contract_rows = (
        ContractPrice.objects.filter(
            customer=customer,
            product__sku__in=skus,
            currency=price_list.currency,
            valid_from__lte=day,
        )
        .filter(Q(valid_until__isnull=True) | Q(valid_until__gte=day))
        .order_by("-valid_from")
        .values_list("product__sku", "amount")
    )
    for sku, amount in contract_rows:
        contracts.setdefault(sku, amount)
    items = {}
    for sku in skus:
        product = products.get(sku)
        price = prices.get(sku)
        cost = None
        if product is not None and product.cost is not None:
            cost = product.cost if product.cost_currency == price_list.currency else None
        items[sku] = CatalogItem(
            sku=sku,
            name=((product.name_zh or product.name_en) if zh else product.name_en)
            if product
            else "",
            category=product.category if product else "",
            list_price=price.amount if price else None,
            tiers=tuple((t.min_quantity, t.unit_price) for t in price.tiers.all()) if price else (),
            contract_price=contracts.get(sku),
            unit_cost=cost,
            is_sample=bool(price.is_sample) if price else True,
        )
    return items


def _frozen_fields(item: CatalogItem) -> dict[str, Any]:
    return {
        "frozen_list_price": item.list_price,
        "frozen_tiers": [[minimum, str(price)] for minimum, price in item.tiers],
        "frozen_contract_price": item.contract_price,
        "frozen_unit_cost": item.unit_cost,
    }


def _price_list_for(revision: QuoteRevision) -> Any:
    from catalog.models import PriceList

    price_list = PriceList.objects.filter(code=revision.price_list_code).first()
    if price_list is None:
        raise QuoteInvalid(
            _("The price list %(code)s no longer exists.") % {"code": revision.price_list_code}
        )
    return price_list


# --- Customers ------------------------------------------------------------------------------------


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
    user: Any,
    source: str,
    external_id: str,
    name_en: str,
    name_zh: str = "",
    preferred_language: str | None = None,
) -> tuple[Customer, bool]:
    """Create or update the customer the CRM knows as (source, external_id). Returns
    (customer, created). A new customer joins the caller's team."""
    team = user_team(user)
    if team is None and not getattr(user, "is_superuser", False):
        raise QuoteInvalid(_("You belong to no team: customers belong to a team."))
    if not source or not external_id:
        raise QuoteInvalid(_("Both the CRM source and its id are needed."))
    if not name_en:
        raise QuoteInvalid(_("Enter the customer's English name."), field="name_en")
    values: dict[str, Any] = {"name_en": name_en, "name_zh": name_zh}
    if preferred_language:
        values["preferred_language"] = preferred_language

    def create() -> Customer:
        if team is None:  # an administrator without a team may update, not create
            raise QuoteInvalid(_("You belong to no team: customers belong to a team."))
        return Customer.objects.create(
            external_source=source, external_id=external_id, team=team, **values
        )

    with transaction.atomic():
        customer, created = _by_crm_id(
            Customer, source=source, external_id=external_id, create=create
        )
        if created:
            return customer, True
        if team is not None and customer.team_id != team.pk and not user.is_superuser:
            raise TransitionNotAllowed(_("This CRM id belongs to a customer of another team."))
        for name, value in values.items():
            setattr(customer, name, value)
        customer.save()
        return customer, False


def opportunity_upsert_by_external_id(
    *,
    user: Any,
    source: str,
    external_id: str,
    customer_id: int,
    name: str,
) -> tuple[Opportunity, bool]:
    """Create or update the opportunity the CRM knows as (source, external_id), for a customer
    the caller sees. Returns (opportunity, created); a new one is owned by the caller."""
    if not source or not external_id:
        raise QuoteInvalid(_("Both the CRM source and its id are needed."))
    if not name.strip():
        raise QuoteInvalid(_("Enter the opportunity's name."), field="name")
    customer = customers_visible_to(user).filter(pk=customer_id).first()
    if customer is None:
        raise QuoteInvalid(_("No such customer."), field="customer")

    def create() -> Opportunity:
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
        if opportunity.customer.team_id != customer.team_id:
            raise CrmIdTaken(_("This CRM id belongs to an opportunity of another team."))
        if opportunity.customer_id != customer.pk and opportunity.quotes.exists():
            # Its quotes were made for the first customer; moving it would misfile them.
            raise QuoteInvalid(
                _("This opportunity already has quotes for another customer."), field="customer"
            )
        opportunity.customer = customer
        opportunity.name = name
        opportunity.save(update_fields=["customer", "name"])
        return opportunity, False


# --- Creating a quote -----------------------------------------------------------------------------


def _is_catalog_gap(entry: dict[str, Any]) -> bool:
    """A BOM entry the engine made up because no catalog item fits (results stored before the
    engine wrote the key have none: false)."""
    return entry.get("catalog_gap") is True


def _bom_lines(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The design's BOM entries that become quote lines: catalog items, and the generic entries
    standing in for catalog gaps (to be priced)."""
    bom = result.get("bom") if isinstance(result, dict) else None
    return [
        entry
        for entry in bom or []
        if isinstance(entry, dict) and (entry.get("sku") or _is_catalog_gap(entry))
    ]


def _gap_description(entry: dict[str, Any], language: str) -> str:
    """A catalog gap's description in `language` when the engine gave its template (and the
    template has a translation), else its English text."""
    from planner.engine.text import from_dict
    from planner.i18n import translated

    text = entry.get("description_text")
    if isinstance(text, dict) and text.get("template"):
        with translation.override(language):
            return translated(from_dict(text))
    return str(entry.get("description") or "")


def _design_counts(result: dict[str, Any]) -> tuple[int, int]:
    """(servers, switches) of a sized design, for the service rule."""
    servers = int(result.get("servers") or 0)
    switches = sum(
        int(entry.get("quantity") or 0)
        for entry in _bom_lines(result)
        if entry.get("category") == "switch"
    )
    return servers, switches


def quote_create(
    *,
    user: Any,
    design: Any,
    customer: Customer,
    opportunity: Opportunity | None = None,
    price_list: Any = None,
    currency: str | None = None,
    exchange_rate: Decimal | None = None,
    tax_rate: Decimal = DEFAULT_TAX_RATE,
    validity_days: int = DEFAULT_VALIDITY_DAYS,
    support_years: int = 1,
    title: str = "",
) -> Quote:
    """A new quote (first revision, draft) from a sized design for a customer. Prices come from
    `price_list` (the default list when None), the customer's contract prices and quantity tiers,
    and are frozen in the lines."""
    from catalog.selectors import default_price_list
    from planner.selectors import designs_visible_to

    _require(user, "quotes.add_quote")
    if not designs_visible_to(user).filter(pk=design.pk).exists():
        raise QuoteInvalid(_("Choose one of your or your team's designs."), field="design")
    team = user_team(user)
    if team is None:
        raise QuoteInvalid(_("You belong to no team: quotes belong to a team."))
    if customer.team_id != team.pk and not user.is_superuser:
        raise QuoteInvalid(_("Choose one of your team's customers."), field="customer")
    if opportunity is not None and opportunity.customer_id != customer.pk:
        raise QuoteInvalid(_("The opportunity belongs to another customer."), field="opportunity")
    bom = _bom_lines(design.result or {})
    if not bom:
        raise QuoteInvalid(
            _("The design has no bill of materials: size it before quoting."), field="design"
        )
    price_list = price_list or default_price_list()
    if price_list is None:
        raise QuoteInvalid(_("No price list: load the catalog first."), field="price_list")
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
    if not Decimal("0") <= tax_rate < Decimal("1"):
        raise QuoteInvalid(_("The tax rate is a fraction, e.g. 0.13 for 13%."), field="tax_rate")
    if validity_days < 1:
        raise QuoteInvalid(_("A quote is valid for at least one day."), field="validity_days")

    today = timezone.localdate()
    servers, switches = _design_counts(design.result)
    services = pricing.service_quantities(
        servers=servers, switches=switches, support_years=support_years
    )
    skus = {str(entry["sku"]) for entry in bom if not _is_catalog_gap(entry)}
    skus |= {s.sku for s in services}
    items = _catalog_items(skus, price_list=price_list, customer=customer, day=today)
    with translation.override(customer.preferred_language):
        terms = str(DEFAULT_TERMS)

    with transaction.atomic():
        sequence = _next_number(today.year)
        quote = Quote.objects.create(
            number=quote_number(today.year, sequence),
            year=today.year,
            sequence=sequence,
            title=title or design.name,
            customer=customer,
            opportunity=opportunity,
            design=design,
            owner=user,
            team=team,
            currency=currency,
        )
        revision = QuoteRevision.objects.create(
            quote=quote,
            number=0,
            design_snapshot={
                "design_id": design.pk,
                "name": design.name,
                "catalog_version": getattr(design, "catalog_version", ""),
                "request": design.request,
                "result": design.result,
            },
            price_list_code=price_list.code,
            price_list_currency=price_list.currency,
            prices_are_samples=bool(getattr(price_list, "is_sample", True)),
            currency=currency,
            exchange_rate=exchange_rate,
            tax_rate=tax_rate,
            terms=terms,
            validity_days=validity_days,
            support_years=support_years,
            created_by=user,
        )
        lines = []
        position = 0
        for entry in bom:
            if _is_catalog_gap(entry):
                if entry.get("category") == "customer_supplied":
                    continue
                # No catalog item fits: a line without SKU or price, to be priced by hand or
                # replaced with a SKU before the quote can be submitted or sent.
                position += 10
                lines.append(
                    QuoteLine(
                        revision=revision,
                        position=position,
                        kind=LineKind.PRODUCT,
                        plane=str(entry.get("plane") or ""),
                        tier=str(entry.get("tier") or ""),
                        description=_gap_description(entry, customer.preferred_language),
                        quantity=int(entry.get("quantity") or 0),
                    )
                )
                continue
            item = items[str(entry["sku"])]
            if item.category == "customer_supplied":
                continue  # the customer's own servers: endpoints, not sold
            position += 10
            lines.append(
                QuoteLine(
                    revision=revision,
                    position=position,
                    kind=LineKind.PRODUCT,
                    plane=str(entry.get("plane") or ""),
                    tier=str(entry.get("tier") or ""),
                    sku=item.sku,
                    description=item.name or str(entry.get("description") or ""),
                    quantity=int(entry.get("quantity") or 0),
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
                    description=item.name or service.sku,
                    quantity=service.quantity,
                    **_frozen_fields(item),
                )
            )
        QuoteLine.objects.bulk_create(lines)
        _reprice(revision)
        audit_record(
            quote=quote,
            revision=revision,
            action=AuditAction.CREATED,
            actor=user,
            after={"number": quote.number, "design": design.pk, "customer": customer.pk},
        )
    return quote


# --- Editing a revision ---------------------------------------------------------------------------


def _ensure_editable(revision: QuoteRevision) -> None:
    if revision.status not in EDITABLE_STATUSES:
        raise QuoteNotEditable(
            _("%(label)s is %(status)s: it can no longer change. Revise it to change it.")
            % {"label": revision.label, "status": revision.get_status_display()}
        )


def _after_change(revision: QuoteRevision, *, user: Any, what: str) -> None:
    """Reprice; a change to a submitted or approved revision sends it back for approval (or to
    draft when no approval is needed any more, or when a line is left to be priced)."""
    _reprice(revision)
    if revision.status in (QuoteStatus.APPROVED, QuoteStatus.PENDING_APPROVAL):
        if _unpriced_lines(revision):
            new = QuoteStatus.DRAFT  # nothing to approve until every line has a price
        else:
            new = QuoteStatus.PENDING_APPROVAL if revision.approval_reasons else QuoteStatus.DRAFT
        was_approved = revision.approved_at is not None
        revision.approved_by = None
        revision.approved_at = None
        if new != revision.status or was_approved:
            _set_status(
                revision,
                new,
                actor=user,
                note={"reason": what, "approval_cleared": was_approved},
                fields=("approved_by", "approved_at"),
            )


def _check_discount(value: Decimal) -> Decimal:
    if not Decimal("0") <= value <= Decimal("100"):
        raise QuoteInvalid(_("A discount is between 0 and 100%."), field="discount_percent")
    return value.quantize(pricing.CENT)


_UNSET: Any = object()


def _line_state(line: QuoteLine) -> dict[str, Any]:
    return {
        "line": line.pk,
        "sku": line.sku,
        "quantity": line.quantity,
        "discount_percent": line.discount_percent,
        "override_unit_price": line.override_unit_price,
        "description": line.description,
        "is_optional": line.is_optional,
        "unit_price": line.unit_price,
    }


def _sellable_item(revision: QuoteRevision, sku: str) -> CatalogItem:
    """The catalog item `sku` priced for the revision's price list and customer, as of today; a
    product the catalog lacks, or the price list does not price, is refused naming `sku`."""
    if not sku:
        raise QuoteInvalid(_("Enter a catalog SKU."), field="sku")
    item = _catalog_items(
        {sku},
        price_list=_price_list_for(revision),
        customer=revision.quote.customer,
        day=timezone.localdate(),
    )[sku]
    if not item.category:
        raise QuoteInvalid(_("No product with SKU %(sku)s.") % {"sku": sku}, field="sku")
    if item.list_price is None and item.contract_price is None:
        raise QuoteInvalid(
            _("%(sku)s has no price on the quote's price list.") % {"sku": sku}, field="sku"
        )
    return item


def revision_line_update(
    *,
    user: Any,
    line: QuoteLine,
    quantity: int | None = None,
    discount_percent: Decimal | None = None,
    override_unit_price: Decimal | None = _UNSET,
    description: str | None = None,
    is_optional: bool | None = None,
    sku: str | None = None,
) -> QuoteLine:
    """Change a line. `override_unit_price=None` clears an override; leaving it out keeps it.

    A line to be priced (a catalog gap: no SKU) is priced with `override_unit_price`, a unit
    price in the quote's currency, or replaced with a catalog product by `sku`: the line then
    takes the product's name (unless `description` is given), kind and frozen prices, and loses
    any override not given in the same call. Any product or service line may change its SKU so."""
    _require(user, "quotes.change_quote")
    with transaction.atomic():
        revision = _lock(line.revision)
        _ensure_editable(revision)
        line = QuoteLine.objects.get(pk=line.pk, revision=revision)
        before = _line_state(line)
        if sku is not None and sku.strip() != line.sku:
            if line.kind == LineKind.NOTE:
                raise QuoteInvalid(_("A note has no SKU."), field="sku")
            item = _sellable_item(revision, sku.strip())
            line.sku = item.sku
            line.kind = LineKind.SERVICE if item.category == "service" else LineKind.PRODUCT
            line.description = item.name or item.sku
            for name, value in _frozen_fields(item).items():
                setattr(line, name, value)
            if override_unit_price is _UNSET:
                line.override_unit_price = None  # it priced what the line was
        if quantity is not None:
            if line.kind != LineKind.NOTE and quantity < 1:
                raise QuoteInvalid(
                    _("The quantity is at least 1; delete the line instead."), field="quantity"
                )
            line.quantity = quantity
        if discount_percent is not None:
            line.discount_percent = _check_discount(discount_percent)
        if override_unit_price is not _UNSET:
            if override_unit_price is not None and override_unit_price < 0:
                raise QuoteInvalid(_("A price cannot be negative."), field="override_unit_price")
            line.override_unit_price = (
                pricing.money(override_unit_price) if override_unit_price is not None else None
            )
        if description is not None:
            line.description = description
        if is_optional is not None:
            line.is_optional = is_optional
        line.save()
        _after_change(revision, user=user, what="line changed")
        line.refresh_from_db()
        after = _line_state(line)
        if before != after:
            override_changed = before["override_unit_price"] != after["override_unit_price"]
            audit_record(
                quote=revision.quote,
                revision=revision,
                action=AuditAction.PRICE_OVERRIDE if override_changed else AuditAction.LINE_CHANGED,
                actor=user,
                before=before,
                after=after,
            )
    return line


def revision_discount_apply(
    *, user: Any, revision: QuoteRevision, discount_percent: Decimal
) -> QuoteRevision:
    """The same discount on every product line without a price override (services keep theirs)."""
    _require(user, "quotes.change_quote")
    discount = _check_discount(discount_percent)
    with transaction.atomic():
        revision = _lock(revision)
        _ensure_editable(revision)
        lines = list(revision.lines.filter(kind=LineKind.PRODUCT, override_unit_price__isnull=True))
        before = {str(line.pk): line.discount_percent for line in lines}
        for line in lines:
            line.discount_percent = discount
        QuoteLine.objects.bulk_update(lines, ["discount_percent"])
        _after_change(revision, user=user, what="discount changed")
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            before={"discount_percent": before},
            after={
                "discount_percent": dict.fromkeys(before, discount),
                "total": revision.total,
            },
        )
    return revision


def revision_line_add(
    *,
    user: Any,
    revision: QuoteRevision,
    kind: str = LineKind.PRODUCT,
    sku: str = "",
    description: str = "",
    quantity: int = 1,
    is_optional: bool = False,
    plane: str = "",
    tier: str = "",
) -> QuoteLine:
    """Add a product, service or note line; products and services are priced from the revision's
    price list and the customer's contract prices, as of today."""
    _require(user, "quotes.change_quote")
    with transaction.atomic():
        revision = _lock(revision)
        _ensure_editable(revision)
        last = revision.lines.order_by("-position").values_list("position", flat=True).first()
        fields: dict[str, Any] = {
            "revision": revision,
            "position": (last or 0) + 10,
            "kind": kind,
            "plane": plane or ("options" if is_optional else "other"),
            "tier": tier,
            "is_optional": is_optional,
        }
        if kind == LineKind.NOTE:
            if not description.strip():
                raise QuoteInvalid(_("A note needs its text."), field="description")
            fields.update(description=description.strip(), quantity=0, is_optional=False)
        else:
            if quantity < 1:
                raise QuoteInvalid(_("The quantity is at least 1."), field="quantity")
            item = _sellable_item(revision, sku)
            fields.update(
                sku=sku,
                description=description or item.name,
                quantity=quantity,
                kind=LineKind.SERVICE if item.category == "service" else LineKind.PRODUCT,
                **_frozen_fields(item),
            )
        line = QuoteLine.objects.create(**fields)
        _after_change(revision, user=user, what="line added")
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            after=_line_state(line),
        )
    return line


def revision_line_delete(*, user: Any, line: QuoteLine) -> None:
    _require(user, "quotes.change_quote")
    with transaction.atomic():
        revision = _lock(line.revision)
        _ensure_editable(revision)
        before = _line_state(line)
        QuoteLine.objects.filter(pk=line.pk, revision=revision).delete()
        _after_change(revision, user=user, what="line deleted")
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            before=before,
        )


def revision_terms_update(
    *,
    user: Any,
    revision: QuoteRevision,
    terms: str | None = None,
    validity_days: int | None = None,
    tax_rate: Decimal | None = None,
) -> QuoteRevision:
    _require(user, "quotes.change_quote")
    with transaction.atomic():
        revision = _lock(revision)
        _ensure_editable(revision)
        before = {
            "terms": revision.terms,
            "validity_days": revision.validity_days,
            "tax_rate": revision.tax_rate,
        }
        if terms is not None:
            revision.terms = terms
        if validity_days is not None:
            if validity_days < 1:
                raise QuoteInvalid(
                    _("A quote is valid for at least one day."), field="validity_days"
                )
            revision.validity_days = validity_days
        if tax_rate is not None:
            if not Decimal("0") <= tax_rate < Decimal("1"):
                raise QuoteInvalid(
                    _("The tax rate is a fraction, e.g. 0.13 for 13%."), field="tax_rate"
                )
            revision.tax_rate = tax_rate
        revision.save()
        _after_change(revision, user=user, what="terms changed")
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            before=before,
            after={
                "terms": revision.terms,
                "validity_days": revision.validity_days,
                "tax_rate": revision.tax_rate,
            },
        )
    return revision


# --- Status transitions ---------------------------------------------------------------------------


def revision_submit(*, user: Any, revision: QuoteRevision) -> QuoteRevision:
    """Draft -> pending approval when the discount policy asks for it, else straight to approved
    (no approver needed)."""
    _require(user, "quotes.change_quote")
    with transaction.atomic():
        revision = _lock(revision)
        if revision.status != QuoteStatus.DRAFT:
            raise TransitionNotAllowed(
                _("Only a draft can be submitted; %(label)s is %(status)s.")
                % {"label": revision.label, "status": revision.get_status_display()}
            )
        _reprice(revision)
        _check_complete(revision)
        revision.submitted_at = timezone.now()
        if revision.approval_reasons:
            _set_status(
                revision,
                QuoteStatus.PENDING_APPROVAL,
                actor=user,
                note={"approval_reasons": revision.approval_reasons},
                fields=("submitted_at",),
            )
        else:
            _set_status(
                revision,
                QuoteStatus.APPROVED,
                actor=user,
                note={"approval": "not needed"},
                fields=("submitted_at",),
            )
    return revision


def _approver_groups(revision: QuoteRevision) -> set[str]:
    return {reason["approver_group"] for reason in revision.approval_reasons}


def revision_approve(*, user: Any, revision: QuoteRevision, note: str = "") -> QuoteRevision:
    """A sales manager approves a revision above the discount policy. Records who and when."""
    with transaction.atomic():
        revision = _lock(revision)
        if revision.status != QuoteStatus.PENDING_APPROVAL:
            raise TransitionNotAllowed(
                _("Only a revision pending approval can be approved; %(label)s is %(status)s.")
                % {"label": revision.label, "status": revision.get_status_display()}
            )
        if not user.has_perm("quotes.approve_quote"):
            raise NotPermitted(_("Only a sales manager can approve quotes."))
        if not user.is_superuser:
            if revision.quote.owner_id == user.pk:
                raise NotPermitted(_("You cannot approve your own quote."))
            mine = set(user.groups.values_list("name", flat=True))
            missing = _approver_groups(revision) - mine
            if missing:
                raise NotPermitted(
                    _("This approval needs a member of: %(groups)s.")
                    % {"groups": ", ".join(sorted(missing))}
                )
        revision.approved_by = user
        revision.approved_at = timezone.now()
        _set_status(
            revision,
            QuoteStatus.APPROVED,
            actor=user,
            note={"approved_by": user.get_username()},
            fields=("approved_by", "approved_at"),
        )
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.APPROVED,
            actor=user,
            before={"approval_reasons": revision.approval_reasons},
            after={
                "approved_by": user.get_username(),
                "approved_at": revision.approved_at.isoformat(),
                "total": revision.total,
                "max_discount_percent": revision.max_discount_percent,
                "note": note,
            },
        )
    return revision


def revision_reject(*, user: Any, revision: QuoteRevision, reason: str) -> QuoteRevision:
    """Pending approval -> draft, with the manager's reason."""
    if not reason.strip():
        raise QuoteInvalid(_("Say why the approval is refused."), field="reason")
    with transaction.atomic():
        revision = _lock(revision)
        if revision.status != QuoteStatus.PENDING_APPROVAL:
            raise TransitionNotAllowed(
                _("Only a revision pending approval can be rejected; %(label)s is %(status)s.")
                % {"label": revision.label, "status": revision.get_status_display()}
            )
        if not user.has_perm("quotes.approve_quote"):
            raise NotPermitted(_("Only a sales manager can reject approvals."))
        _set_status(revision, QuoteStatus.DRAFT, actor=user, note={"rejected": reason.strip()})
    return revision


def _new_token() -> str:
    return secrets.token_urlsafe(32)  # 256 bits


def share_link_create(*, user: Any, revision: QuoteRevision) -> ShareLink:
    _require(user, "quotes.change_quote")
    with transaction.atomic():
        revision = _lock(revision)
        if revision.status not in (
            QuoteStatus.SENT,
            QuoteStatus.ACCEPTED,
            QuoteStatus.DECLINED,
            QuoteStatus.EXPIRED,
        ):
            raise TransitionNotAllowed(
                _("Only a sent revision can be shared; %(label)s is %(status)s.")
                % {"label": revision.label, "status": revision.get_status_display()}
            )
        link = ShareLink.objects.create(revision=revision, token=_new_token(), created_by=user)
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.SHARE_LINK_CREATED,
            actor=user,
            after={"link": link.pk},
        )
    return link


def share_link_revoke(*, user: Any, link: ShareLink) -> ShareLink:
    _require(user, "quotes.change_quote")
    with transaction.atomic():
        link = (
            ShareLink.objects.select_for_update().select_related("revision__quote").get(pk=link.pk)
        )
        if link.revoked_at is None:
            link.revoked_at = timezone.now()
            link.revoked_by = user
            link.save(update_fields=["revoked_at", "revoked_by"])
            audit_record(
                quote=link.revision.quote,
                revision=link.revision,
                action=AuditAction.SHARE_LINK_REVOKED,
                actor=user,
                before={"link": link.pk, "active": True},
                after={"link": link.pk, "active": False},
            )
    return link


def revision_send(*, user: Any, revision: QuoteRevision) -> ShareLink:
    """Approved (or a draft that needs no approval) -> sent: the revision freezes for good, its
    validity starts, earlier sent revisions are superseded, and a share link is created."""
    _require(user, "quotes.change_quote")
    with transaction.atomic():
        revision = _lock(revision)
        if revision.status == QuoteStatus.PENDING_APPROVAL:
            raise ApprovalRequired(_needs_approval_message(revision))
        if revision.status not in (QuoteStatus.DRAFT, QuoteStatus.APPROVED):
            raise TransitionNotAllowed(
                _("%(label)s is %(status)s: only an approved revision can be sent.")
                % {"label": revision.label, "status": revision.get_status_display()}
            )
        _reprice(revision)
        _check_complete(revision)
        if revision.approval_reasons and revision.approved_at is None:
            # A draft above the policy, or a policy tightened since the automatic approval.
            raise ApprovalRequired(_needs_approval_message(revision))
        today = timezone.localdate()
        revision.sent_at = timezone.now()
        revision.sent_by = user
        revision.valid_until = today + timedelta(days=revision.validity_days)
        for older in QuoteRevision.objects.select_for_update().filter(
            quote=revision.quote, number__lt=revision.number, status=QuoteStatus.SENT
        ):
            older.quote = revision.quote
            _set_status(
                older,
                QuoteStatus.SUPERSEDED,
                actor=user,
                note={"superseded_by": revision.label},
            )
        _set_status(
            revision,
            QuoteStatus.SENT,
            actor=user,
            note={"valid_until": revision.valid_until},
            fields=("sent_at", "sent_by", "valid_until"),
        )
        link = ShareLink.objects.create(revision=revision, token=_new_token(), created_by=user)
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.SHARE_LINK_CREATED,
            actor=user,
            after={"link": link.pk},
        )
    return link


_REVISABLE = (QuoteStatus.SENT, QuoteStatus.DECLINED, QuoteStatus.EXPIRED)


def quote_revise(*, user: Any, quote: Quote) -> QuoteRevision:
    """Copy the latest revision (sent, declined or expired) into a new draft revision, with the
    same frozen prices, discounts, terms and design snapshot."""
    _require(user, "quotes.change_quote")
    with transaction.atomic():
        quote = Quote.objects.select_for_update().get(pk=quote.pk)
        current = quote.revisions.order_by("-number").first()
        assert current is not None
        if current.status not in _REVISABLE:
            if current.status in EDITABLE_STATUSES:
                message = _("%(label)s is still %(status)s: change it instead of revising.")
            else:
                message = _("%(label)s is %(status)s: the quote is closed.")
            raise TransitionNotAllowed(
                message % {"label": current.label, "status": current.get_status_display()}
            )
        copy_fields = (
            "design_snapshot",
            "price_list_code",
            "price_list_currency",
            "prices_are_samples",
            "currency",
            "exchange_rate",
            "tax_rate",
            "terms",
            "validity_days",
            "support_years",
        )
        new = QuoteRevision.objects.create(
            quote=quote,
            number=current.number + 1,
            created_by=user,
            **{name: getattr(current, name) for name in copy_fields},
        )
        line_fields = (
            "position", "kind", "plane", "tier", "sku", "description", "quantity",
            "is_optional", "frozen_list_price", "frozen_tiers", "frozen_contract_price",
            "frozen_unit_cost", "discount_percent", "override_unit_price",
        )  # fmt: skip
        QuoteLine.objects.bulk_create(
            QuoteLine(revision=new, **{name: getattr(line, name) for name in line_fields})
            for line in current.lines.order_by("position", "id")
        )
        _reprice(new)
        audit_record(
            quote=quote,
            revision=new,
            action=AuditAction.CREATED,
            actor=user,
            before={"revision": current.label, "status": current.status},
            after={"revision": new.label, "status": new.status},
        )
    return new


# --- The customer's side --------------------------------------------------------------------------


def share_link_view_record(
    *, link: ShareLink, ip: str | None = None, user_agent: str = ""
) -> ShareLinkView:
    with transaction.atomic():
        view = ShareLinkView.objects.create(link=link, ip=ip or None, user_agent=user_agent[:300])
        audit_record(
            quote=link.revision.quote,
            revision=link.revision,
            action=AuditAction.SHARE_LINK_VIEWED,
            actor_label=_("customer (share link)"),
            after={"link": link.pk, "user_agent": user_agent[:300]},
            ip=ip,
        )
    return view


def _check_decidable(revision: QuoteRevision, link: ShareLink) -> None:
    if link.revoked_at is not None:
        raise TransitionNotAllowed(_("This link was withdrawn."))
    if revision.status != QuoteStatus.SENT:
        raise TransitionNotAllowed(
            _("This proposal is %(status)s and can no longer be answered.")
            % {"status": revision.get_status_display()}
        )
    if revision.valid_until is not None and revision.valid_until < timezone.localdate():
        raise QuoteExpired(
            _("This proposal expired on %(date)s.") % {"date": revision.valid_until.isoformat()}
        )


def _check_person(name: str, email: str) -> None:
    errors = {}
    if not name.strip():
        errors["name"] = _("Enter your name.")
    if "@" not in email or len(email) > 254:
        errors["email"] = _("Enter a valid email address.")
    if errors:
        raise QuoteInvalid(_("Some fields need attention."), errors=errors)


def revision_accept(
    *,
    link: ShareLink,
    name: str,
    email: str,
    ip: str | None = None,
    optional_line_ids: tuple[int, ...] | list[int] = (),
    pdf_sha256: str | None = None,
) -> CustomerDecision:
    """The customer accepts a sent revision through its share link, optionally adding optional
    lines. Records name, email, time, IP and the SHA-256 of the PDF accepted (when there is one:
    see `quotes.selectors.revision_document_sha256`)."""
    _check_person(name, email)
    if pdf_sha256 is not None and not SHA256_HEX.match(pdf_sha256):
        raise QuoteInvalid(_("pdf_sha256 must be 64 lowercase hex digits."), field="pdf_sha256")
    with transaction.atomic():
        link = ShareLink.objects.select_for_update().get(pk=link.pk)
        revision = _lock(link.revision)
        _check_decidable(revision, link)
        optional_ids = set(revision.lines.filter(is_optional=True).values_list("pk", flat=True))
        chosen = sorted({int(pk) for pk in optional_line_ids})
        if not set(chosen) <= optional_ids:
            raise QuoteInvalid(
                _("Only optional lines of this proposal can be added."),
                field="optional_line_ids",
            )
        totals = pricing.with_options(revision_priced(revision), [str(pk) for pk in chosen])
        decision = CustomerDecision.objects.create(
            revision=revision,
            link=link,
            decision=Decision.ACCEPTED,
            name=name.strip(),
            email=email.strip(),
            ip=ip or None,
            optional_line_ids=chosen,
            accepted_total=totals.total,
            pdf_sha256=pdf_sha256 or "",
        )
        revision.closed_at = timezone.now()
        _set_status(
            revision,
            QuoteStatus.ACCEPTED,
            actor_label=f"{decision.name} <{decision.email}>",
            ip=ip,
            note={
                "accepted_total": totals.total,
                "optional_line_ids": chosen,
                "pdf_sha256": decision.pdf_sha256,
            },
            fields=("closed_at",),
        )
    return decision


def revision_decline(
    *, link: ShareLink, name: str, email: str, reason: str, ip: str | None = None
) -> CustomerDecision:
    _check_person(name, email)
    if not reason.strip():
        raise QuoteInvalid(_("Tell us why, so that we can do better."), field="reason")
    with transaction.atomic():
        link = ShareLink.objects.select_for_update().get(pk=link.pk)
        revision = _lock(link.revision)
        _check_decidable(revision, link)
        decision = CustomerDecision.objects.create(
            revision=revision,
            link=link,
            decision=Decision.DECLINED,
            name=name.strip(),
            email=email.strip(),
            ip=ip or None,
            reason=reason.strip(),
        )
        revision.closed_at = timezone.now()
        _set_status(
            revision,
            QuoteStatus.DECLINED,
            actor_label=f"{decision.name} <{decision.email}>",
            ip=ip,
            note={"reason": decision.reason},
            fields=("closed_at",),
        )
    return decision


# --- Expiry (periodic) ----------------------------------------------------------------------------


def quotes_expire(*, today: date | None = None) -> int:
    """Sent revisions past their validity become expired. Scans the database; idempotent (a
    second run finds nothing to do). Returns how many expired."""
    today = today or timezone.localdate()
    expired = 0
    candidates = QuoteRevision.objects.filter(
        status=QuoteStatus.SENT, valid_until__lt=today
    ).values_list("pk", flat=True)
    for pk in list(candidates):
        with transaction.atomic():
            revision = QuoteRevision.objects.select_for_update().select_related("quote").get(pk=pk)
            if revision.status != QuoteStatus.SENT or not (
                revision.valid_until and revision.valid_until < today
            ):
                continue  # answered or re-sent meanwhile
            revision.closed_at = timezone.now()
            _set_status(
                revision,
                QuoteStatus.EXPIRED,
                actor_label="expiry task",
                note={"valid_until": revision.valid_until},
                fields=("closed_at",),
            )
            expired += 1
    return expired


def parse_decimal(value: Any, *, field: str) -> Decimal:
    """Decimal from user input, or QuoteInvalid naming the field."""
    try:
        result = Decimal(str(value).strip().replace(",", ""))
    except (InvalidOperation, ValueError) as exc:
        raise QuoteInvalid(_("Enter a number."), field=field) from exc
    if not result.is_finite():
        raise QuoteInvalid(_("Enter a number."), field=field)
    return result
