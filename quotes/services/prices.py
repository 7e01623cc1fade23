"""Prices: catalog prices frozen into lines, repricing a revision from them, and the checks that a
revision is complete enough to submit or send."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from typing import Any

from django.db.models import DecimalField, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from catalog.models import ContractPrice, Price, PriceList, Product
from customers.details import customer_details
from customers.models import Customer
from quotes import pricing
from quotes.content import content_sha256
from quotes.models import (
    DiscountPolicy,
    LineKind,
    QuoteLine,
    QuoteRevision,
    QuoteStatus,
)
from quotes.selectors import revision_priced
from quotes.services.errors import QuoteHasUnpricedLines, QuoteInvalid
from quotes.services.records import _sync_quote


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


LINE_AMOUNTS = ("list_unit_price", "base_unit_price", "unit_price", "line_total", "unit_cost")
REVISION_AMOUNTS = (
    "list_total", "subtotal", "tax", "total", "optional_total", "cost_total",
)  # fmt: skip


@cache
def _bound(model: type[QuoteLine] | type[QuoteRevision], name: str) -> Decimal:
    """The first amount the column cannot hold: 10 ** (digits before the point)."""
    field = model._meta.get_field(name)
    assert isinstance(field, DecimalField)
    return Decimal(10) ** ((field.max_digits or 0) - (field.decimal_places or 0))


def _check_amounts(revision: QuoteRevision, priced: pricing.PricedQuote) -> None:
    """Every amount fits the column it is stored in: a quantity of 85,736 at an override of
    53,660.97 gave a line whose derived amounts overflowed (a 500 on SQLite's read-back, a
    DataError on PostgreSQL's write; Schemathesis). Refused in words, before anything is
    written; the service's transaction undoes the change that led here."""
    amounts = [
        (_bound(QuoteLine, name), getattr(line, name))
        for line in priced.lines
        for name in LINE_AMOUNTS
    ] + [(_bound(QuoteRevision, name), getattr(priced.totals, name)) for name in REVISION_AMOUNTS]
    if all(value is None or abs(value.amount) < bound for bound, value in amounts):
        return
    limit = _bound(QuoteRevision, "total") - Decimal("0.01")
    raise QuoteInvalid(
        _(
            "The amounts would exceed what a quote holds (%(limit)s %(currency)s): lower the "
            "quantity or the unit price."
        )
        % {"limit": f"{limit:,}", "currency": revision.currency}
    )


def _reprice(revision: QuoteRevision) -> pricing.PricedQuote:
    """Price the revision from its frozen inputs; store line results, totals and the policy
    rules it breaks. A draft takes its customer's details as they are now (what its documents
    print); from submission on they are frozen with the rest."""
    if revision.status == QuoteStatus.DRAFT:
        revision.customer_details = customer_details(revision.quote.customer)
    priced = revision_priced(revision)
    _check_amounts(revision, priced)
    lines = {str(line.pk): line for line in revision.lines.all()}
    changed = []
    for result in priced.lines:
        line = lines[result.key]
        line.price_source = result.price_source
        line.list_unit_price = result.list_unit_price.amount
        line.base_unit_price = result.base_unit_price.amount
        line.effective_discount_percent = result.discount_percent
        line.unit_price = result.unit_price.amount
        line.line_total = result.line_total.amount
        line.unit_cost = result.unit_cost.amount if result.unit_cost is not None else None
        line.tax_rate = result.tax_rate if result.tax_rate is not None else revision.tax_rate
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
            "tax_rate",
        ],
    )
    totals = priced.totals
    revision.list_total = totals.list_total.amount
    revision.subtotal = totals.subtotal.amount
    revision.tax = totals.tax.amount
    revision.tax_breakdown = [at_rate.as_json() for at_rate in totals.taxes]
    revision.total = totals.total.amount
    revision.optional_total = totals.optional_total.amount
    revision.cost_total = totals.cost_total.amount
    revision.margin_percent = totals.margin_percent
    revision.max_discount_percent = totals.max_discount_percent
    revision.approval_reasons = [
        hit.as_json()
        for hit in pricing.policy_hits(policy_rules(), totals, currency=revision.currency)
    ]
    revision.content_sha256 = content_sha256(revision, list(lines.values()))
    revision.save()
    _sync_quote(revision)
    return priced


def revision_customer_details_refresh(*, revision: QuoteRevision) -> QuoteRevision:
    """A draft whose customer's details changed since it was last priced (a new address, a new
    billing contact) takes them now, before a document of it is made: a draft's PDF prints the
    record as it is. Any other revision keeps the details it was submitted with. The caller
    holds a transaction; returns the revision as it now is."""
    if revision.status != QuoteStatus.DRAFT:
        return revision
    # The record as stored now: the caller's copy of the customer may be older.
    customer = Customer.objects.select_related("billing_contact").get(pk=revision.quote.customer_id)
    if revision.customer_details == customer_details(customer):
        return revision
    locked = QuoteRevision.objects.select_for_update().select_related("quote__customer")
    revision = locked.get(pk=revision.pk)
    if revision.status == QuoteStatus.DRAFT:
        _reprice(revision)
    return revision


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
        ) % {"count": count, "lines": "; ".join(line.localized_description for line in unpriced)}
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
    skus: set[str], *, price_list: PriceList, customer: Customer, day: date
) -> dict[str, CatalogItem]:
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


def _price_list_for(revision: QuoteRevision) -> PriceList:
    price_list = PriceList.objects.filter(code=revision.price_list_code).first()
    if price_list is None:
        raise QuoteInvalid(
            _("The price list %(code)s no longer exists.") % {"code": revision.price_list_code}
        )
    return price_list


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
