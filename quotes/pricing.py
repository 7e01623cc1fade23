"""Quote pricing: a pure function (no ORM, no I/O) from frozen line inputs to priced lines and
totals. Dataclasses in, dataclasses out. The inputs' prices are `Decimal`s in the price list's
currency; every amount priced is a `Money` in the quote's currency (engine.money), so that a sum
of two currencies raises instead of adding up.

Rounding rules (the only places money is rounded, all ROUND_HALF_UP to 0.01):

1. Per line, once: the net unit price is `base unit price (price-list currency) x exchange rate
   x (1 - discount / 100)`, rounded to the cent; a manual override is already a price in cents in
   the quote's currency. The line total is `net unit price x quantity`: a whole number of cents,
   so it needs no rounding of its own.
2. The list price shown per unit is `list price x exchange rate`, rounded to the cent (used for
   the "discount off list" figures, never for the amount charged).
3. Tax is computed once per VAT rate, on the sum of the (non-optional) line totals at that rate:
   `base at rate x rate`, rounded to the cent; the tax is the sum of those. Each line's rate is
   its own when given, else its kind's (`tax_rates`: goods 13 %, services 6 % in China), else the
   quote's `tax_rate`.

Consequences the tests rely on: the subtotal is exactly the sum of the (non-optional) line totals,
every group subtotal is exactly the sum of its lines, the bases per rate sum to the subtotal, and
total = subtotal + tax, to the cent.

Which unit price applies, in order: a manual override; else the customer's contract price; else
the best quantity tier whose minimum the line's quantity reaches; else the list price. The
discount applies to that base price (never on top of an override).

A line without a SKU stands in for an item the catalog has no product for (a catalog gap in the
design): it has no price to look up, so until the sales engineer enters one (an override) it is
"to be priced": unit price and amount 0, left out of every total, and listed in
`Totals.unpriced`. A line with a SKU but no price is "missing" (the price list lacks it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal

from engine.money import CENT, Money, round_cents

ZERO = Decimal("0")
HUNDRED = Decimal("100")


def money(amount: Decimal) -> Decimal:
    """Round to the cent, half up: the one rounding rule for money (`engine.money`)."""
    return round_cents(amount)


def convert(amount: Decimal, rate: Decimal) -> Decimal:
    """`amount` in the source currency -> the target currency at `rate` (target units per one
    source unit), rounded to the cent."""
    return money(amount * rate)


class LineKind:
    PRODUCT = "product"
    SERVICE = "service"
    FREIGHT = "freight"
    NOTE = "note"


# The stored value of a policy hit whose figure is unknown (a margin with an uncosted line).
UNKNOWN = "unknown"


class PriceSource:
    OVERRIDE = "override"
    CONTRACT = "contract"
    TIER = "tier"
    LIST = "list"
    MISSING = "missing"  # a SKU the price list has no price for
    TO_BE_PRICED = "unpriced"  # no SKU (a catalog gap) and no price entered yet


@dataclass(frozen=True)
class LineInput:
    """One line as frozen on the revision. Prices are in the price list's currency, except
    `override_unit_price`, which is in the quote's currency."""

    key: str  # identifies the line in the output (e.g. its id or position)
    kind: str = LineKind.PRODUCT
    sku: str = ""
    quantity: int = 0
    plane: str = ""
    tier: str = ""
    optional: bool = False
    list_price: Decimal | None = None  # None: no price on the list
    tiers: tuple[tuple[int, Decimal], ...] = ()  # (min quantity, unit price)
    contract_price: Decimal | None = None
    unit_cost: Decimal | None = None  # None: unknown (no margin for the line)
    discount_percent: Decimal = ZERO
    override_unit_price: Decimal | None = None
    tax_rate: Decimal | None = None  # None: the kind's rate (see `price_quote`)


@dataclass(frozen=True)
class PricedLine:
    key: str
    kind: str
    plane: str
    tier: str
    optional: bool
    quantity: int
    price_source: str
    list_unit_price: Money  # in the quote's currency, as every amount here
    base_unit_price: Money  # contract/tier/list price, converted, before discount
    discount_percent: Decimal  # effective, off the base price (derived for overrides)
    unit_price: Money  # net, what the customer pays per unit
    line_total: Money
    list_total: Money
    unit_cost: Money | None
    cost_total: Money | None
    tax_rate: Decimal | None = None  # None: the quote's rate (`totals_of`)


@dataclass(frozen=True)
class TaxAtRate:
    rate: Decimal  # a fraction: 0.13
    base: Money  # the non-optional line totals at this rate
    tax: Money

    def as_json(self) -> dict[str, str]:
        return {
            "rate": format((self.rate * HUNDRED).normalize(), "f"),
            "base": str(self.base.amount),
            "tax": str(self.tax.amount),
        }


@dataclass(frozen=True)
class GroupTotal:
    plane: str
    tier: str
    subtotal: Money
    optional_total: Money


@dataclass(frozen=True)
class Totals:
    list_total: Money  # at list prices, non-optional lines
    base_total: Money  # at contract/tier/list prices before manual discounts
    subtotal: Money  # what is charged, before tax
    tax: Money
    total: Money
    optional_total: Money  # optional lines, not in the subtotal
    cost_total: Money  # of the lines whose cost is known
    margin: Money | None
    margin_percent: Decimal | None  # of the subtotal, 2 decimals
    margin_complete: bool  # every priced line had a known cost
    max_discount_percent: Decimal  # the largest manual discount on a non-optional line
    discount_percent: Decimal  # (base_total - subtotal) / base_total, 2 decimals
    missing_prices: tuple[str, ...]  # SKUs without any price
    unpriced: tuple[str, ...] = ()  # keys of the lines to be priced (left out of every total)
    taxes: tuple[TaxAtRate, ...] = ()  # per VAT rate, highest rate first


@dataclass(frozen=True)
class PricedQuote:
    lines: tuple[PricedLine, ...]
    groups: tuple[GroupTotal, ...]
    totals: Totals
    currency: str = ""
    exchange_rate: Decimal = Decimal("1")
    tax_rate: Decimal = ZERO
    notes: tuple[str, ...] = field(default=())


def base_price(line: LineInput) -> tuple[Decimal | None, str]:
    """The unit price before discounts, in the price list's currency, and where it came from."""
    if line.contract_price is not None:
        return line.contract_price, PriceSource.CONTRACT
    reached = [price for minimum, price in line.tiers if line.quantity >= minimum]
    if reached and line.list_price is not None:
        best = min(reached)
        if best < line.list_price:
            return best, PriceSource.TIER
    if line.list_price is not None:
        return line.list_price, PriceSource.LIST
    return None, PriceSource.MISSING


def _percent(part: Decimal, whole: Decimal) -> Decimal:
    if not whole:
        return ZERO
    return (part / whole * HUNDRED).quantize(CENT, rounding=ROUND_HALF_UP)


def price_line(
    line: LineInput, *, exchange_rate: Decimal, tax_rate: Decimal | None = None, currency: str = ""
) -> PricedLine:
    """One line in `currency`, the quote's (its inputs are in the price list's)."""
    rate = line.tax_rate if line.tax_rate is not None else tax_rate
    none = Money.zero(currency)
    if line.kind == LineKind.NOTE:
        return PricedLine(
            key=line.key, kind=line.kind, plane=line.plane, tier=line.tier,
            optional=line.optional, quantity=0, price_source="", list_unit_price=none,
            base_unit_price=none, discount_percent=ZERO, unit_price=none, line_total=none,
            list_total=none, unit_cost=None, cost_total=None,
        )  # fmt: skip
    base, source = base_price(line)
    if base is None and not line.sku:
        source = PriceSource.TO_BE_PRICED
    list_unit = convert(line.list_price, exchange_rate) if line.list_price is not None else ZERO
    base_unit = convert(base, exchange_rate) if base is not None else ZERO
    if line.override_unit_price is not None:
        unit = money(line.override_unit_price)
        source = PriceSource.OVERRIDE
        discount = _percent(base_unit - unit, base_unit) if base_unit else ZERO
    elif base is None:
        unit, discount = ZERO, ZERO
    else:
        discount = line.discount_percent
        unit = money(base * exchange_rate * (1 - discount / HUNDRED))
    cost = (
        Money(money(line.unit_cost * exchange_rate), currency)
        if line.unit_cost is not None
        else None
    )
    quantity = line.quantity
    return PricedLine(
        key=line.key,
        kind=line.kind,
        plane=line.plane,
        tier=line.tier,
        optional=line.optional,
        quantity=quantity,
        price_source=source,
        list_unit_price=Money(list_unit, currency),
        base_unit_price=Money(base_unit, currency),
        discount_percent=discount,
        unit_price=Money(unit, currency),
        line_total=Money(unit * quantity, currency),
        list_total=Money(list_unit * quantity, currency),
        unit_cost=cost,
        cost_total=cost * quantity if cost is not None else None,
        tax_rate=rate,
    )


def totals_of(
    lines: Iterable[PricedLine],
    *,
    tax_rate: Decimal,
    currency: str = "",
    missing: Sequence[str] = (),
) -> Totals:
    """The totals of lines priced in `currency`: a line in another raises CurrencyMismatch."""
    charged = [line for line in lines if line.kind != LineKind.NOTE]
    included = [line for line in charged if not line.optional]

    def total(amounts: Iterable[Money]) -> Money:
        return Money.total(amounts, currency)

    subtotal = total(line.line_total for line in included)
    base_total = total(line.base_unit_price * line.quantity for line in included)
    costed = [line for line in included if line.cost_total is not None]
    cost_total = total(line.cost_total for line in costed if line.cost_total is not None)
    # A margin over the costed lines alone overstates it: a line priced by hand with no cost
    # counted as free (27.64 % shown on a quote whose true margin was lower). Unknown instead,
    # until every charged line has a cost; freight is passed on at cost.
    uncosted = [
        line
        for line in included
        if line.cost_total is None and line.line_total and line.kind != LineKind.FREIGHT
    ]
    costed_revenue = total(line.line_total for line in costed)
    margin = costed_revenue - cost_total if costed and not uncosted else None
    bases: dict[Decimal, Money] = {}
    for line in included:
        rate = line.tax_rate if line.tax_rate is not None else tax_rate
        bases[rate] = bases.get(rate, Money.zero(currency)) + line.line_total
    taxes = tuple(
        TaxAtRate(rate=rate, base=base, tax=Money(money(base.amount * rate), currency))
        for rate, base in sorted(bases.items(), reverse=True)
    )
    tax = total(at_rate.tax for at_rate in taxes)
    return Totals(
        list_total=total(line.list_total for line in included),
        base_total=base_total,
        subtotal=subtotal,
        tax=tax,
        total=subtotal + tax,
        optional_total=total(line.line_total for line in charged if line.optional),
        cost_total=cost_total,
        margin=margin,
        margin_percent=(
            _percent(margin.amount, costed_revenue.amount) if margin is not None else None
        ),
        margin_complete=not uncosted,
        max_discount_percent=max((line.discount_percent for line in included), default=ZERO),
        discount_percent=_percent((base_total - subtotal).amount, base_total.amount),
        missing_prices=tuple(missing),
        unpriced=tuple(
            line.key for line in charged if line.price_source == PriceSource.TO_BE_PRICED
        ),
        taxes=taxes,
    )


def price_quote(
    lines: Sequence[LineInput],
    *,
    exchange_rate: Decimal = Decimal("1"),
    tax_rate: Decimal = ZERO,
    tax_rates: Mapping[str, Decimal] | None = None,
    currency: str = "",
) -> PricedQuote:
    """Price every line and total them. Lines keep their input order; groups are listed in the
    order their first line appears. `tax_rates` maps a line kind to its VAT rate; kinds it
    leaves out are taxed at `tax_rate`."""
    if exchange_rate <= 0:
        raise ValueError("The exchange rate must be positive.")
    rates = dict(tax_rates or {})
    if tax_rate < 0 or any(rate < 0 for rate in rates.values()):
        raise ValueError("The tax rate must not be negative.")
    priced = tuple(
        price_line(
            line,
            exchange_rate=exchange_rate,
            tax_rate=rates.get(line.kind, tax_rate),
            currency=currency,
        )
        for line in lines
    )
    groups: dict[tuple[str, str], list[PricedLine]] = {}
    for line in priced:
        groups.setdefault((line.plane, line.tier), []).append(line)
    group_totals = tuple(
        GroupTotal(
            plane=plane,
            tier=tier,
            subtotal=Money.total((x.line_total for x in members if not x.optional), currency),
            optional_total=Money.total((x.line_total for x in members if x.optional), currency),
        )
        for (plane, tier), members in groups.items()
    )
    missing = tuple(
        line.sku
        for line, p in zip(lines, priced, strict=True)
        if line.kind != LineKind.NOTE and p.price_source == PriceSource.MISSING
    )
    return PricedQuote(
        lines=priced,
        groups=group_totals,
        totals=totals_of(priced, tax_rate=tax_rate, currency=currency, missing=missing),
        currency=currency,
        exchange_rate=exchange_rate,
        tax_rate=tax_rate,
    )


def with_options(quote: PricedQuote, chosen_keys: Iterable[str]) -> Totals:
    """The totals if the customer adds the chosen optional lines (what they accept)."""
    chosen = set(chosen_keys)
    lines = [
        line if not (line.optional and line.key in chosen) else _include(line)
        for line in quote.lines
    ]
    return totals_of(
        lines,
        tax_rate=quote.tax_rate,
        currency=quote.currency,
        missing=quote.totals.missing_prices,
    )


def _include(line: PricedLine) -> PricedLine:
    return replace(line, optional=False)


# --- Service lines from the design's size -------------------------------------------------------

SERVICE_POC = "EZMAX-SVC-POC"
SERVICE_INSTALL_DAY = "EZMAX-SVC-INSTALL-DAY"
SERVICE_SUPPORT_YEAR = "EZMAX-SVC-SUPPORT-YEAR"  # flat, per year: older quotes only
SERVICE_SUPPORT_SWITCH_YEAR = "EZMAX-SVC-SUPPORT-SWITCH-YEAR"
SERVICE_SUPPORT_GPU_YEAR = "EZMAX-SVC-SUPPORT-GPU-YEAR"
SUPPORT_BASIS_SWITCH = "switch"
SUPPORT_BASIS_GPU = "gpu"


@dataclass(frozen=True)
class ServiceQuantity:
    sku: str
    tier: str  # the phase: poc, pilot, full, support
    quantity: int


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def service_quantities(
    *,
    servers: int,
    switches: int,
    gpus: int = 0,
    support_years: int = 1,
    support_basis: str = SUPPORT_BASIS_SWITCH,
) -> tuple[ServiceQuantity, ...]:
    """Service lines derived from the design's size (the brochure's implementation phases).

    - POC: one per project.
    - Installation and tuning, in engineer-days: one day per switch (rack, cable, configure) plus
      one day per 8 servers (NIC install, RoCE tuning, tests), at least 2 days; the pilot phase
      takes one fifth of it (rounded up, at least 1 day) and the full deployment the rest (at
      least 1 day).
    - Support scales with what is supported: switch-years (one per switch per year) or GPU-years,
      as the price list says (`support_basis`); 0 years: no support line. A design without a
      switch (or GPU) count is supported as one unit, never left free.
    """
    install_days = max(2, switches + _ceil_div(max(servers, 0), 8))
    pilot = max(1, _ceil_div(install_days, 5))
    full = max(1, install_days - pilot)
    lines = [
        ServiceQuantity(SERVICE_POC, "poc", 1),
        ServiceQuantity(SERVICE_INSTALL_DAY, "pilot", pilot),
        ServiceQuantity(SERVICE_INSTALL_DAY, "full", full),
    ]
    if support_years > 0:
        if support_basis == SUPPORT_BASIS_GPU:
            sku, units = SERVICE_SUPPORT_GPU_YEAR, max(1, gpus)
        else:
            sku, units = SERVICE_SUPPORT_SWITCH_YEAR, max(1, switches)
        lines.append(ServiceQuantity(sku, "support", units * support_years))
    return tuple(lines)


# --- Discount policy ------------------------------------------------------------------------------


class Metric:
    DISCOUNT_PERCENT = "discount_percent"  # triggers above the threshold
    MARGIN_PERCENT = "margin_percent"  # triggers below the threshold
    TOTAL_AMOUNT = "total_amount"  # triggers above the threshold (same currency only)


@dataclass(frozen=True)
class PolicyRule:
    name: str
    metric: str
    threshold: Decimal
    approver_group: str
    currency: str = ""


@dataclass(frozen=True)
class PolicyHit:
    name: str
    metric: str
    threshold: Decimal
    value: Decimal | None  # None: unknown (a margin with a line of unknown cost)
    approver_group: str

    def as_json(self) -> dict[str, str]:
        return {
            "policy": self.name,
            "metric": self.metric,
            "threshold": str(self.threshold),
            "value": UNKNOWN if self.value is None else str(self.value),
            "approver_group": self.approver_group,
        }


def policy_hits(rules: Iterable[PolicyRule], totals: Totals, *, currency: str) -> list[PolicyHit]:
    """The rules a revision breaks: largest line discount above, margin below, or total above
    the threshold. Equal to the threshold does not trigger. An unknown margin (a line without a
    cost) breaks every margin rule, with the value "unknown": the approver is asked for it, and
    the page asks for the missing costs."""
    hits: list[PolicyHit] = []
    for rule in rules:
        value: Decimal | None
        if rule.metric == Metric.DISCOUNT_PERCENT:
            value = totals.max_discount_percent
            triggered = value > rule.threshold
        elif rule.metric == Metric.MARGIN_PERCENT:
            value = totals.margin_percent
            if value is None and totals.subtotal:
                hits.append(
                    PolicyHit(rule.name, rule.metric, rule.threshold, None, rule.approver_group)
                )
                continue
            triggered = value is not None and value < rule.threshold
        elif rule.metric == Metric.TOTAL_AMOUNT:
            # A threshold in another currency says nothing of this quote; one in none is read
            # in the quote's.
            value = totals.total.amount
            same = not rule.currency or rule.currency == currency
            triggered = same and totals.total > Money(rule.threshold, totals.total.currency)
        else:
            continue
        if triggered and value is not None:
            hits.append(
                PolicyHit(rule.name, rule.metric, rule.threshold, value, rule.approver_group)
            )
    return hits
