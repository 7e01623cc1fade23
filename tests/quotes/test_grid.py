"""The quote page's lines grid (issue 27 item 6): many lines' quantities, unit prices and
discounts, and a discount for one catalog category, saved at once at the revision's version.

The factory's design's lines, in the order the page shows them (compute, out-of-band,
services), with the seed prices of tests/quotes/factories.py (CNY, goods VAT 13 %, services 6 %):
  1 MCX623106AN-CDAT  NIC        16 x  7,800.00 = 124,800.00
  2 MSN2700-CS2F      switch      1 x 96,000.00 =  96,000.00
  3 MCP1600-C001E30N  copper      8 x    520.00 =   4,160.00 (tiers from 100)
  4 MCP1600-C002E30N  copper     16 x    600.00 =   9,600.00 (tiers from 100)
  5 MCP1600-C003E26N  copper      8 x    700.00 =   5,600.00 (tiers from 100)
  6 MSN2201-CB2F      switch      1 x 22,000.00 =  22,000.00
  7 CAT6A-RJ45-10M    copper      5 x     58.00 =     290.00
  8-11 services: POC 0, install 1 + 2 days x 3,000, support 2 x 25,000     = 59,000.00
Products 262,450.00; subtotal 321,450.00; total 359,108.50 (tests/quotes/test_services.py).
Products other than those a test changes: 4,160 + 5,600 + 290 = 10,050.00 (the 1 m and 3 m
DACs and the patch cords)."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from quotes import services
from quotes.models import AuditEvent, QuoteRevision, QuoteStatus
from quotes.services import LineCells, LinesInvalid, QuoteNotEditable, QuoteNotFound
from quotes.services.errors import VersionConflict

pytestmark = pytest.mark.django_db
D = Decimal

NIC, LEAF, DAC, MGMT_SWITCH, PATCH = (
    "MCX623106AN-CDAT",
    "MSN2700-CS2F",
    "MCP1600-C002E30N",  # the 2 m DACs, line 4
    "MSN2201-CB2F",  # line 6
    "CAT6A-RJ45-10M",  # line 7
)
SERVICES = D("59000.00")


def lines_by_sku(quote):
    revision = QuoteRevision.objects.get(quote=quote, number=0)
    return {line.sku: line for line in revision.lines.filter(kind="product")}


def revision_of(quote):
    return QuoteRevision.objects.get(quote=quote, number=0)


def save(user, quote, changes, version=1, **category):
    return services.revision_lines_update(
        user=user, quote=quote, revision_number=0, version=version, changes=changes, **category
    )


def totals(quote):
    revision = revision_of(quote)
    return revision.subtotal, revision.tax, revision.total


# --- The service --------------------------------------------------------------------------------


def test_many_lines_saved_at_once_in_one_version(quote, engineer):
    line = lines_by_sku(quote)
    save(
        engineer,
        quote,
        [
            LineCells(line_id=line[NIC].pk, quantity=40),
            LineCells(line_id=line[LEAF].pk, unit_price=D("90000")),
            LineCells(line_id=line[DAC].pk, discount_percent=D("10")),
        ],
    )
    after = lines_by_sku(quote)
    # 40 x 7,800 = 312,000.00; the leaf at 90,000.00 typed by hand; 16 x 600 x 0.90 = 8,640.00.
    assert [after[s].line_total for s in (NIC, LEAF, DAC)] == [
        D("312000.00"),
        D("90000.00"),
        D("8640.00"),
    ]
    # Products 312,000 + 90,000 + 8,640 + 22,000 + 10,050 = 442,690.00; + services 59,000
    # = 501,690.00. VAT 442,690 x 13% = 57,549.70 + 59,000 x 6% = 3,540.00 -> 61,089.70;
    # total 501,690.00 + 61,089.70 = 562,779.70.
    assert totals(quote) == (D("501690.00"), D("61089.70"), D("562779.70"))
    assert revision_of(quote).version == 2  # one save, one version
    # Each changed line's version moved (a line form opened before cannot undo the save); the
    # others did not.
    assert [after[s].version for s in (NIC, LEAF, DAC, MGMT_SWITCH)] == [2, 2, 2, 1]
    changes = AuditEvent.objects.filter(quote=quote, action__in=["line_changed", "price_override"])
    assert changes.count() == 3


def test_a_category_discount_fills_that_category_and_spares_prices_typed_by_hand(quote, engineer):
    line = lines_by_sku(quote)
    save(engineer, quote, [], category="switch", category_discount=D("5"))
    after = lines_by_sku(quote)
    # Both switches: 96,000 x 0.95 = 91,200.00 and 22,000 x 0.95 = 20,900.00; nothing else.
    assert [after[s].line_total for s in (LEAF, MGMT_SWITCH)] == [D("91200.00"), D("20900.00")]
    assert [after[s].discount_percent for s in (NIC, DAC, PATCH)] == [D("0")] * 3
    # Products 124,800 + 91,200 + 9,600 + 20,900 + 10,050 = 256,550.00; subtotal 315,550.00;
    # VAT 256,550 x 13% = 33,351.50 + 3,540.00 = 36,891.50; total 352,441.50.
    assert totals(quote) == (D("315550.00"), D("36891.50"), D("352441.50"))

    # A price typed by hand is the price: the category's discount does not go on top of it.
    save(
        engineer,
        quote,
        [LineCells(line_id=line[LEAF].pk, unit_price=D("90000"), discount_percent=D("0"))],
        version=2,
        category="switch",
        category_discount=D("10"),
    )
    after = lines_by_sku(quote)
    assert after[LEAF].line_total == D("90000.00")
    assert after[MGMT_SWITCH].line_total == D("19800.00")  # 22,000 x 0.90


def test_a_stale_version_is_refused_and_nothing_changes(quote, engineer, teammate):
    line = lines_by_sku(quote)
    save(teammate, quote, [LineCells(line_id=line[NIC].pk, quantity=33)])  # version 1 -> 2
    before = totals(quote)
    for language, text in (
        ("en", "Someone else changed"),
        ("zh-hans", "已有其他人修改了它"),
    ):
        with translation.override(language), pytest.raises(VersionConflict) as refused:
            save(engineer, quote, [LineCells(line_id=line[NIC].pk, quantity=40)], version=1)
        assert text in refused.value.message
    assert lines_by_sku(quote)[NIC].quantity == 33  # the teammate's save stands
    assert totals(quote) == before
    assert revision_of(quote).version == 2


def test_a_bad_cell_refuses_the_whole_grid_naming_each_line_and_cell(quote, engineer):
    line = lines_by_sku(quote)
    events = AuditEvent.objects.filter(quote=quote).count()
    with pytest.raises(LinesInvalid) as refused:
        save(
            engineer,
            quote,
            [
                LineCells(line_id=line[NIC].pk, quantity=40),  # good, yet not saved either
                LineCells(line_id=line[DAC].pk, quantity=0),  # line 4
                LineCells(line_id=line[MGMT_SWITCH].pk, discount_percent=D("150")),  # line 6
                LineCells(line_id=line[PATCH].pk, unit_price=D("-1")),  # line 7
            ],
        )
    error = refused.value
    assert error.errors == {
        f"line-{line[DAC].pk}-quantity": "The quantity is at least 1; delete the line instead.",
        f"line-{line[MGMT_SWITCH].pk}-discount_percent": "A discount is between 0 and 100%.",
        f"line-{line[PATCH].pk}-unit_price": "A price cannot be negative.",
    }
    assert error.message.startswith("3 cells cannot be saved; nothing was saved.")
    assert f"Line 4 ({DAC}), Quantity: The quantity is at least 1" in error.message
    assert f"Line 6 ({MGMT_SWITCH}), Discount %: A discount" in error.message
    assert f"Line 7 ({PATCH}), Unit price: A price cannot be negative." in error.message
    after = lines_by_sku(quote)
    assert after[NIC].quantity == 16  # the design's 16 NICs
    assert (after[DAC].quantity, after[MGMT_SWITCH].discount_percent) == (16, D("0"))
    assert revision_of(quote).version == 1
    assert AuditEvent.objects.filter(quote=quote).count() == events


def test_a_line_too_large_for_a_quote_is_named_on_its_cell(quote, engineer):
    line = lines_by_sku(quote)
    # 10^10 x 96,000.00 = 9.6 x 10^14: more than a line's amount holds (under 10^14).
    with pytest.raises(LinesInvalid) as refused:
        save(engineer, quote, [LineCells(line_id=line[LEAF].pk, quantity=10**10)])
    assert list(refused.value.errors) == [f"line-{line[LEAF].pk}-quantity"]
    assert lines_by_sku(quote)[LEAF].quantity == 1


def test_another_teams_quote_is_not_found_and_unchanged(quote, other_engineer):
    line = lines_by_sku(quote)
    with pytest.raises(QuoteNotFound):
        save(other_engineer, quote, [LineCells(line_id=line[NIC].pk, quantity=40)])
    assert lines_by_sku(quote)[NIC].quantity == 16  # the design's, unchanged
    assert revision_of(quote).version == 1


@pytest.mark.parametrize(
    ("policy", "status"),
    [(True, QuoteStatus.PENDING_APPROVAL), (False, QuoteStatus.APPROVED)],
)
def test_a_submitted_quote_is_not_edited(quote, engineer, discount_policy, policy, status):
    if not policy:
        discount_policy.delete()
    services.revision_discount_apply(
        user=engineer, revision=revision_of(quote), discount_percent=D("15")
    )
    services.revision_submit(user=engineer, revision=revision_of(quote))
    revision = revision_of(quote)
    assert revision.status == status
    line = lines_by_sku(quote)
    with pytest.raises(QuoteNotEditable):
        save(engineer, quote, [LineCells(line_id=line[NIC].pk, quantity=40)], revision.version)
    assert lines_by_sku(quote)[NIC].quantity == 16  # the design's, unchanged


def test_an_empty_unit_price_gives_the_line_its_catalog_price_back(quote, engineer):
    line = lines_by_sku(quote)
    save(engineer, quote, [LineCells(line_id=line[LEAF].pk, unit_price=D("90000"))])
    save(engineer, quote, [LineCells(line_id=line[LEAF].pk, unit_price=None)], version=2)
    assert lines_by_sku(quote)[LEAF].line_total == D("96000.00")


# --- The page, without JavaScript ---------------------------------------------------------------


def grid_post(quote, **cells):
    """The grid form as the page posts it: every line's cells as stored, `cells` changed."""
    revision = revision_of(quote)
    data = {"version": str(revision.version), "category": "", "category_discount": ""}
    for line in revision.lines.filter(kind__in=["product", "service"]):
        data[f"line-{line.pk}-quantity"] = str(line.quantity)
        data[f"line-{line.pk}-unit_price"] = (
            "" if line.override_unit_price is None else str(line.override_unit_price)
        )
        data[f"line-{line.pk}-discount_percent"] = str(line.discount_percent)
        if line.is_optional:
            data[f"line-{line.pk}-is_optional"] = "on"
    data.update(cells)
    return data


def grid_url(quote):
    return reverse("quotes:revision-lines", args=[quote.pk, 0])


def test_the_page_shows_the_grid_to_edit_and_not_once_submitted(client, quote, engineer):
    client.force_login(engineer)
    page = client.get(reverse("quotes:quote-detail", args=[quote.pk])).content.decode()
    nic = lines_by_sku(quote)[NIC]
    assert f'name="line-{nic.pk}-quantity"' in page
    assert 'form="lines-grid"' in page
    assert 'data-testid="save-grid"' in page
    services.revision_submit(user=engineer, revision=revision_of(quote))
    page = client.get(reverse("quotes:quote-detail", args=[quote.pk])).content.decode()
    assert f'name="line-{nic.pk}-quantity"' not in page
    assert 'data-testid="save-grid"' not in page


def test_the_page_saves_the_grid_and_a_category(client, quote, engineer):
    client.force_login(engineer)
    line = lines_by_sku(quote)
    data = grid_post(
        quote, **{f"line-{line[NIC].pk}-quantity": "40", "category": "switch"},
        category_discount="5",
    )  # fmt: skip
    response = client.post(grid_url(quote), data)
    assert response.status_code == 302
    after = lines_by_sku(quote)
    assert after[NIC].quantity == 40
    assert [after[s].discount_percent for s in (LEAF, MGMT_SWITCH)] == [D("5.00")] * 2
    # 40 x 7,800 + 91,200 + 9,600 + 20,900 + 10,050 = 443,750.00 + 59,000 = 502,750.00.
    assert revision_of(quote).subtotal == D("502750.00")


@pytest.mark.parametrize(
    ("language", "quantity_error", "number_error"),
    [
        ("en", "The quantity is at least 1; delete the line instead.", "no exponent such as 1e3"),
        ("zh-hans", "数量至少为 1；如不需要，请删除该行。", "不要使用 1e3 这样的指数写法"),
    ],
)
def test_the_page_shows_each_error_beside_its_cell_in_its_language(
    client, quote, engineer, language, quantity_error, number_error
):
    client.force_login(engineer)
    line = lines_by_sku(quote)
    dac, leaf = line[DAC].pk, line[LEAF].pk
    # A quantity out of range and a number that is no plain number: both marked in one answer,
    # each beside its cell, and nothing saved.
    bad = {f"line-{dac}-quantity": "0", f"line-{leaf}-unit_price": "1e5"}
    response = client.post(grid_url(quote), grid_post(quote, **bad), HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'data-testid="grid-errors"' in page
    assert page.count('data-testid="cell-error"') == 2
    cell = page.split(f'name="line-{dac}-quantity"', 1)[1].split("</td>", 1)[0]
    assert quantity_error in cell
    cell = page.split(f'name="line-{leaf}-unit_price"', 1)[1].split("</td>", 1)[0]
    assert number_error in cell
    typed = re.search(rf'<input[^>]*name="line-{dac}-quantity"[^>]*>', page)
    assert typed is not None
    assert 'value="0"' in typed.group(0)  # what was typed, kept to be corrected
    assert lines_by_sku(quote)[DAC].quantity == 16  # the design's 16 2 m DACs
    assert revision_of(quote).version == 1


def test_the_page_refuses_a_stale_grid_in_words(client, quote, engineer, teammate):
    client.force_login(engineer)
    line = lines_by_sku(quote)
    stale = grid_post(quote, **{f"line-{line[NIC].pk}-quantity": "40"})
    save(teammate, quote, [LineCells(line_id=line[NIC].pk, quantity=33)])
    response = client.post(grid_url(quote), stale, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 412
    assert "已有其他人修改了它" in response.content.decode()
    assert lines_by_sku(quote)[NIC].quantity == 33


def test_the_page_of_another_team_is_not_found(client, quote, other_engineer):
    client.force_login(other_engineer)
    response = client.post(grid_url(quote), grid_post(quote))
    assert response.status_code == 404


def test_the_page_refuses_a_grid_posted_to_a_submitted_quote(client, quote, engineer):
    client.force_login(engineer)
    line = lines_by_sku(quote)
    posted = grid_post(quote, **{f"line-{line[NIC].pk}-quantity": "40"})
    services.revision_submit(user=engineer, revision=revision_of(quote))  # approved: no policy
    response = client.post(grid_url(quote), posted, follow=True)
    assert response.status_code == 200
    assert "can no longer change" in response.content.decode()
    assert lines_by_sku(quote)[NIC].quantity == 16  # the design's, unchanged
