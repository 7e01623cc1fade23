"""The lines grid in real headless Chromium (issue 27 item 6): typing changes the totals before
saving, Enter and the arrows move down and up a column, a category's discount fills its lines,
one Save all keeps everything; at 390 px the lines are cards and the page does not scroll
sideways. Amounts from the seed prices (tests/quotes/test_grid.py's docstring)."""

import pytest

from quotes.models import QuoteRevision
from tests.quotes.test_browser import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

NIC, LEAF = "MCX623106AN-CDAT", "MSN2700-CS2F"


def _cell(line, column):
    return f"input[name=line-{line.pk}-{column}]"


def _focused(page):
    return page.evaluate("document.activeElement && document.activeElement.name")


def test_the_grid_totals_live_moves_by_keyboard_and_saves_once(live_server, page, browser, quote):
    revision = QuoteRevision.objects.get(quote=quote)
    lines = {line.sku: line for line in revision.lines.filter(kind="product")}
    nic, leaf = lines[NIC], lines[LEAF]
    base = live_server.url
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    log_in(page, base, "engineer")
    url = f"{base}/quotes/{quote.pk}/"
    page.goto(url)
    total = page.locator("table [data-testid=total]")
    assert total.inner_text() == "359,108.50"  # test_services.py's TOTAL

    # 40 NICs instead of 16: + 24 x 7,800 = 187,200 of goods, 262,450 + 187,200 = 449,650.
    # Subtotal 508,650.00; VAT goods 449,650 x 13% = 58,454.50 + services 3,540.00; total
    # 570,644.50, shown before any save.
    page.click(_cell(nic, "quantity"))
    page.fill(_cell(nic, "quantity"), "40")
    assert page.locator(f"tr[data-line='{nic.pk}'] [data-grid-amount]").inner_text() == (
        "312,000.00"
    )
    assert total.inner_text() == "570,644.50"
    assert page.locator("[data-testid=grid-total]").inner_text() == "570,644.50"

    # Enter moves down the column (it does not submit); the next line's cell is selected, so
    # typing replaces it: 2 leaf switches, + 96,000 of goods -> VAT 545,650 x 13% = 70,934.50;
    # total 604,650 + 70,934.50 + 3,540 = 679,124.50.
    page.keyboard.press("Enter")
    assert _focused(page) == f"line-{leaf.pk}-quantity"
    page.keyboard.type("2")
    assert total.inner_text() == "679,124.50"
    page.keyboard.press("ArrowUp")
    assert _focused(page) == f"line-{nic.pk}-quantity"
    page.keyboard.press("ArrowDown")
    assert _focused(page) == f"line-{leaf.pk}-quantity"
    assert page.locator(_cell(nic, "quantity")).input_value() == "40"  # no arrow stepping

    # 5% on the switches fills both switch lines: 2 x 96,000 x 0.95 = 182,400.00 and
    # 22,000 x 0.95 = 20,900.00. Goods 312,000 + 182,400 + 20,900 + the DACs 4,160 + 9,600
    # + 5,600 + the patch cords 290 = 534,950.00; VAT 534,950 x 13% = 69,543.50 + 3,540.00;
    # total 593,950 + 73,083.50 = 667,033.50.
    page.select_option("select[name=category]", "switch")
    page.fill("input[name=category_discount]", "5")
    page.click("[data-testid=fill-category]")
    assert page.locator(_cell(leaf, "discount_percent")).input_value() == "5"
    assert total.inner_text() == "667,033.50"

    page.click("[data-testid=save-grid]")
    page.wait_for_load_state("networkidle")
    page.goto(url)  # a fresh read: the server's figures
    assert page.locator(_cell(nic, "quantity")).input_value() == "40"
    assert page.locator(_cell(leaf, "quantity")).input_value() == "2"
    assert page.locator(_cell(leaf, "discount_percent")).input_value() == "5.00"
    assert total.inner_text() == "667,033.50"  # what the browser showed is what was saved
    revision.refresh_from_db()
    assert (revision.version, str(revision.total)) == (2, "667033.50")
    assert [e for e in errors if "status of 404" not in e] == []  # the favicon probe aside

    # On a phone the lines are cards: the cells are on screen, the page never scrolls sideways.
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="zh-CN"
    )
    small = phone.new_page()
    log_in(small, base, "engineer")
    small.goto(url)
    small.wait_for_load_state("networkidle")
    assert small.evaluate("document.documentElement.scrollWidth") <= 390
    for column in ("quantity", "unit_price", "discount_percent"):
        box = small.locator(_cell(nic, column)).bounding_box()
        assert box is not None, column
        assert 0 <= box["x"] <= box["x"] + box["width"] <= 390, column
    amount = small.locator(f"tr[data-line='{nic.pk}'] [data-grid-amount]").bounding_box()
    assert amount is not None
    assert amount["x"] + amount["width"] <= 390
    phone.close()


def test_the_grid_input_survives_an_expired_session(live_server, page, quote):
    """Save all after the session expired: sign in again, land on the quote page (not a 405)
    with the typed cells put back; saving then keeps them (issue 27 item 2)."""
    from django.contrib.sessions.models import Session

    nic = QuoteRevision.objects.get(quote=quote).lines.get(sku=NIC)
    base = live_server.url
    log_in(page, base, "engineer")
    page.goto(f"{base}/quotes/{quote.pk}/")
    page.fill(_cell(nic, "quantity"), "37")

    Session.objects.all().delete()
    page.click("[data-testid=save-grid]")
    page.wait_for_url("**/accounts/login/**")
    assert page.locator("[data-testid=session-expired]").is_visible()
    page.fill("input[name=username]", "engineer")  # on the login page it was sent to
    page.fill("input[name=password]", "pw-engineer")
    page.click("button[type=submit].primary")
    page.wait_for_selector("[data-testid=current-user]")
    assert page.url.split("?")[0] == f"{base}/quotes/{quote.pk}/"
    assert page.locator(_cell(nic, "quantity")).input_value() == "37"
    nic.refresh_from_db()
    assert nic.quantity == 16  # the design's; 37 kept in the browser, not saved behind its back
    page.click("[data-testid=save-grid]")
    page.wait_for_load_state("networkidle")
    nic.refresh_from_db()
    assert nic.quantity == 37
