"""The pure pricing function: examples worked by hand, and properties (hypothesis)."""

from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.money import CurrencyMismatch, Money
from quotes.pricing import (
    LineInput,
    LineKind,
    Metric,
    PolicyRule,
    PriceSource,
    convert,
    money,
    policy_hits,
    price_quote,
    service_quantities,
    totals_of,
    with_options,
)

D = Decimal


def M(amount: str, currency: str = "") -> Money:
    """An amount as pricing answers it: Money in the quote's currency ("" when none is given)."""
    return Money(D(amount), currency)


def test_worked_example_with_tier_contract_discount_and_tax():
    lines = [
        # 32 NICs at list 7,800.00, 10% off: 7,020.00 each, 224,640.00.
        LineInput(key="nic", sku="NIC", quantity=32, plane="compute", tier="server",
                  list_price=D("7800.00"), discount_percent=D("10"), unit_cost=D("5070.00")),
        # 128 DACs: the >=100 tier (570.00) beats the list (600.00): 72,960.00.
        LineInput(key="dac", sku="DAC", quantity=128, plane="compute", tier="server-leaf",
                  list_price=D("600.00"), tiers=((100, D("570.00")), (500, D("540.00"))),
                  unit_cost=D("390.00")),
        # A contract price wins over list and tiers: 2 x 90,000.00 = 180,000.00.
        LineInput(key="sw", sku="SW", quantity=2, plane="compute", tier="leaf",
                  list_price=D("96000.00"), contract_price=D("90000.00"),
                  unit_cost=D("62400.00")),
        # Optional: shown, not in the subtotal.
        LineInput(key="opt", sku="OPT", quantity=1, plane="options", optional=True,
                  list_price=D("22000.00")),
        LineInput(key="note", kind=LineKind.NOTE, plane="compute", tier="server"),
    ]  # fmt: skip
    quote = price_quote(lines, tax_rate=D("0.13"))
    by_key = {line.key: line for line in quote.lines}
    assert by_key["nic"].unit_price == M("7020.00")  # 7,800 x 0.9
    assert by_key["nic"].line_total == M("224640.00")  # 7,020 x 32
    assert by_key["dac"].price_source == PriceSource.TIER
    assert by_key["dac"].line_total == M("72960.00")  # 570 x 128
    assert by_key["sw"].price_source == PriceSource.CONTRACT
    assert by_key["sw"].line_total == M("180000.00")
    totals = quote.totals
    assert totals.subtotal == M("477600.00")  # 224,640 + 72,960 + 180,000
    assert totals.tax == M("62088.00")  # 477,600 x 0.13
    assert totals.total == M("539688.00")
    assert totals.optional_total == M("22000.00")
    # Cost: 32 x 5,070 + 128 x 390 + 2 x 62,400 = 162,240 + 49,920 + 124,800 = 336,960.
    assert totals.cost_total == M("336960.00")
    # Margin 477,600 - 336,960 = 140,640 = 29.45% of 477,600 (29.447...).
    assert totals.margin == M("140640.00")
    assert totals.margin_percent == D("29.45")
    assert totals.max_discount_percent == D("10")
    # With the optional line added: 499,600.00 + 13% = 564,548.00.
    assert with_options(quote, ["opt"]).total == M("564548.00")


def test_override_is_a_price_in_the_quote_currency_and_its_discount_is_derived():
    line = LineInput(key="a", quantity=3, list_price=D("100.00"), override_unit_price=D("80"))
    priced = price_quote([line]).lines[0]
    assert priced.price_source == PriceSource.OVERRIDE
    assert priced.unit_price == M("80.00")
    assert priced.discount_percent == D("20.00")  # (100 - 80) / 100
    assert priced.line_total == M("240.00")


def test_half_up_rounding_of_the_unit_price_once_per_line():
    # 33.33 with 15% off = 28.3305 -> 28.33 per unit; x 3 = 84.99.
    line = LineInput(key="a", quantity=3, list_price=D("33.33"), discount_percent=D("15"))
    priced = price_quote([line]).lines[0]
    assert priced.unit_price == M("28.33")
    assert priced.line_total == M("84.99")
    # 0.125 rounds up to 0.13 (half up, not banker's 0.12).
    assert money(D("0.125")) == D("0.13")


def test_currency_conversion_uses_the_stated_rate_per_unit():
    # 7,800.00 CNY at 0.14 USD/CNY = 1,092.00 USD per unit.
    line = LineInput(key="a", quantity=2, list_price=D("7800.00"), unit_cost=D("5070.00"))
    quote = price_quote([line], exchange_rate=D("0.14"), currency="USD")
    assert quote.lines[0].unit_price == M("1092.00", "USD")
    assert quote.lines[0].unit_cost == M("709.80", "USD")  # 5,070 x 0.14
    assert quote.totals.subtotal == M("2184.00", "USD")


def test_missing_price_is_reported():
    quote = price_quote([LineInput(key="a", sku="GHOST", quantity=1)])
    assert quote.totals.missing_prices == ("GHOST",)
    assert quote.totals.subtotal == M("0")


def test_service_rule():
    # 4 servers, 2 switches: 2 + ceil(4/8)=1 -> 3 days; pilot ceil(3/5)=1, full 2; support per
    # switch-year: 2 switches x 1 year = 2.
    assert [(s.tier, s.quantity) for s in service_quantities(servers=4, switches=2)] == [
        ("poc", 1), ("pilot", 1), ("full", 2), ("support", 2),
    ]  # fmt: skip
    # 128 servers, 12 switches: 12 + 16 = 28 days; pilot ceil(28/5)=6, full 22; 3 years of
    # support for 12 switches = 36 switch-years.
    assert [
        (s.tier, s.quantity) for s in service_quantities(servers=128, switches=12, support_years=3)
    ] == [("poc", 1), ("pilot", 6), ("full", 22), ("support", 36)]
    # A tiny design still gets 2 days (pilot 1, full 1); no support line for 0 years.
    assert [
        (s.tier, s.quantity) for s in service_quantities(servers=1, switches=0, support_years=0)
    ] == [("poc", 1), ("pilot", 1), ("full", 1)]


def test_policy_triggers_strictly_above_or_below_its_threshold():
    line = LineInput(key="a", quantity=1, list_price=D("100"), discount_percent=D("10"),
                     unit_cost=D("80"))  # fmt: skip
    totals = price_quote([line], tax_rate=D("0.13")).totals
    # Discount 10 (not above 10); margin (90 - 80) / 90 = 11.11% (below 15); total 101.70.
    rules = [
        PolicyRule("disc", Metric.DISCOUNT_PERCENT, D("10"), "sales-manager"),
        PolicyRule("margin", Metric.MARGIN_PERCENT, D("15"), "sales-manager"),
        PolicyRule("big", Metric.TOTAL_AMOUNT, D("100"), "sales-manager", currency="USD"),
        PolicyRule("big-cny", Metric.TOTAL_AMOUNT, D("100"), "sales-manager", currency="CNY"),
    ]
    hits = policy_hits(rules, totals, currency="CNY")
    assert [hit.name for hit in hits] == ["margin", "big-cny"]
    assert hits[0].value == D("11.11")


# --- Properties -----------------------------------------------------------------------------------

cents = st.integers(min_value=0, max_value=10_000_000).map(lambda n: D(n) / 100)
percent = st.integers(min_value=0, max_value=10_000).map(lambda n: D(n) / 100)
rates = st.integers(min_value=1_000, max_value=100_000_000).map(lambda n: D(n) / 1_000_000)
tax_rates = st.sampled_from([D("0"), D("0.06"), D("0.09"), D("0.13")])


@st.composite
def line_inputs(draw, key):
    return LineInput(
        key=str(key),
        quantity=draw(st.integers(min_value=1, max_value=5_000)),
        plane=draw(st.sampled_from(["compute", "storage", "oob"])),
        tier=draw(st.sampled_from(["leaf", "spine", "server-leaf"])),
        optional=draw(st.booleans()),
        list_price=draw(cents),
        discount_percent=draw(percent),
        unit_cost=draw(st.none() | cents),
    )


@st.composite
def quotes(draw):
    count = draw(st.integers(min_value=1, max_value=12))
    lines = [draw(line_inputs(i)) for i in range(count)]
    return lines, draw(rates), draw(tax_rates)


@given(quotes())
def test_totals_equal_the_sum_of_lines_and_groups(case):
    lines, rate, tax_rate = case
    quote = price_quote(lines, exchange_rate=rate, tax_rate=tax_rate, currency="CNY")
    included = [line for line in quote.lines if not line.optional]
    cny = Money.zero("CNY")
    assert quote.totals.subtotal == sum((line.line_total for line in included), cny)
    assert quote.totals.subtotal == sum((group.subtotal for group in quote.groups), cny)
    assert quote.totals.optional_total == sum(
        (line.line_total for line in quote.lines if line.optional), cny
    )
    assert quote.totals.total == quote.totals.subtotal + quote.totals.tax


@given(quotes())
def test_rounding_never_loses_or_invents_a_cent(case):
    lines, rate, tax_rate = case
    quote = price_quote(lines, exchange_rate=rate, tax_rate=tax_rate)
    half_cent = D("0.005")
    for line, priced in zip(lines, quote.lines, strict=True):
        exact_unit = line.list_price * rate * (1 - line.discount_percent / 100)
        # One rounding per line, on the unit price, of at most half a cent...
        assert abs(priced.unit_price.amount - exact_unit) <= half_cent
        # ...and the line total is that unit price times the quantity, to the cent: no more.
        assert priced.line_total == priced.unit_price * line.quantity
        assert priced.line_total.amount == priced.line_total.amount.quantize(D("0.01"))
    exact_tax = quote.totals.subtotal.amount * tax_rate
    assert abs(quote.totals.tax.amount - exact_tax) <= half_cent
    assert quote.totals.total.amount.as_tuple().exponent >= -2


@given(cents, rates)
def test_currency_round_trip_within_the_stated_rounding(amount, rate):
    there = convert(amount, rate)
    back = convert(there, D(1) / rate)
    # Each conversion rounds by at most half a cent; the first error is scaled by 1/rate on
    # the way back: |back - amount| <= 0.005 + 0.005 / rate.
    assert abs(back - amount) <= D("0.005") + D("0.005") / rate + D("1e-20")


def test_a_line_without_a_cost_makes_the_margin_unknown_and_asks_for_approval():
    """Issue 24: a generic line priced by hand (no catalog cost) was counted as if free of cost,
    overstating the margin. Two lines: 10 x 100.00 at cost 80.00 (margin 200.00, 20 %), and a
    hand-priced line of 1,000.00 with no cost: the margin is unknown, not 20 % (nor the 60 % a
    zero cost would give), and a margin rule asks for approval with the value "unknown"."""
    known = LineInput(
        key="known", sku="A", quantity=10, list_price=D("100.00"), unit_cost=D("80.00")
    )
    by_hand = LineInput(key="gap", quantity=1, override_unit_price=D("1000.00"))
    alone = price_quote([known]).totals
    assert (alone.margin, alone.margin_percent, alone.margin_complete) == (
        M("200.00"), D("20.00"), True,
    )  # fmt: skip
    both = price_quote([known, by_hand]).totals
    assert (both.margin, both.margin_percent, both.margin_complete) == (None, None, False)
    rule = PolicyRule("margin", Metric.MARGIN_PERCENT, D("15"), "sales-manager")
    [hit] = policy_hits([rule], both, currency="CNY")
    assert hit.as_json()["value"] == "unknown"
    # With its cost entered (700.00): (2,000 - 800 - 700) / 2,000 = 25 %, above the rule.
    costed = replace(by_hand, unit_cost=D("700.00"))
    totals = price_quote([known, costed]).totals
    assert (totals.margin_percent, policy_hits([rule], totals, currency="CNY")) == (D("25.00"), [])
    # Freight is passed on at cost: it leaves the margin known.
    freight = LineInput(key="f", kind=LineKind.FREIGHT, quantity=1, override_unit_price=D("50"))
    assert price_quote([known, freight]).totals.margin_complete


def test_lines_priced_in_one_currency_never_total_in_another():
    """The quote's amounts are Money in its currency: totalling them as another's is refused,
    not added up (a USD quote's lines summed into a CNY total would be a silent wrong answer)."""
    line = LineInput(key="a", quantity=2, list_price=D("7800.00"))
    quote = price_quote([line], exchange_rate=D("0.14"), currency="USD")
    assert quote.totals.total.currency == "USD"
    assert all(tax.base.currency == "USD" for tax in quote.totals.taxes)
    with pytest.raises(CurrencyMismatch):
        totals_of(quote.lines, tax_rate=D("0.13"), currency="CNY")
