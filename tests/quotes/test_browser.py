"""The whole quote, in real headless Chromium: an engineer quotes a design with a discount that
needs approval, a manager approves, the engineer sends, the customer opens the link and accepts."""

import re

import pytest

from quotes.models import CustomerDecision, QuoteRevision, QuoteStatus
from tests.conftest import screenshot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def log_in(page, base_url, username):
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", f"pw-{username}")
    page.click("button[type=submit].primary")
    page.wait_for_selector("[data-testid=current-user]")


def new_page(browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


@pytest.mark.slow
def test_engineer_quotes_manager_approves_customer_accepts(
    live_server, page, browser, catalog, engineer, manager, design, customer, discount_policy
):
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    missing = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    base = live_server.url
    log_in(page, base, "engineer")
    page.click("button[name=language][value=en]")

    # Create the quote from the design.
    page.goto(f"{base}/quotes/new/?design={design.pk}")
    page.select_option("select[name=customer]", str(customer.pk))
    screenshot(page, "quotes-1-create")
    page.click("button[type=submit].primary")
    page.wait_for_selector("[data-testid=quote-lines]")
    assert page.locator("[data-testid=status]").inner_text() == "Draft"
    # 321,450.00 + VAT per kind = 359,108.50 (see test_services.py).
    assert page.locator("[data-testid=total]").inner_text() == "359,108.50"
    screenshot(page, "quotes-2-draft")

    # 15% on every product: above the 10% policy.
    page.fill("input[name=discount_percent]#id_discount_percent", "15")
    page.click("[data-testid=apply-discount]")
    page.wait_for_selector("[data-testid=approval-reasons]")
    # Products 262,450 x 0.85 = 223,082.50 + services 59,000 = 282,082.50; VAT: goods
    # 223,082.50 x 13% = 29,000.725 -> 29,000.73 (half up), services 59,000 x 6% = 3,540.00;
    # total 282,082.50 + 32,540.73 = 314,623.23.
    assert page.locator("[data-testid=total]").inner_text() == "314,623.23"
    page.click("[data-testid=submit]")
    page.wait_for_selector("text=Pending approval")
    screenshot(page, "quotes-3-pending")
    quote_url = page.url

    # The manager approves.
    manager_page = new_page(browser)
    log_in(manager_page, base, "manager")
    manager_page.goto(quote_url)
    assert manager_page.locator("[data-testid=margin]").is_visible()
    manager_page.click("[data-testid=approve]")
    manager_page.wait_for_selector("[data-testid=approved-by]")
    assert manager_page.locator("[data-testid=status]").inner_text() == "Approved"
    screenshot(manager_page, "quotes-4-approved")

    # The engineer sends (confirming the dialog).
    page.once("dialog", lambda dialog: dialog.accept())
    page.goto(quote_url)
    page.click("[data-testid=send]")
    page.wait_for_selector("[data-testid=share-link]")
    assert page.locator("[data-testid=status]").inner_text() == "Sent"
    share_url = page.locator("[data-testid=share-link]").get_attribute("href")
    screenshot(page, "quotes-5-sent")

    # The customer, not logged in, opens the link and accepts.
    customer_page = new_page(browser)
    customer_page.goto(f"{base}{share_url}")
    assert customer_page.locator("[data-testid=current-user]").count() == 0
    # The approved total, 314,623.23 (15% off the products, above).
    assert customer_page.locator("[data-testid=total]").inner_text() == "314,623.23"
    screenshot(customer_page, "quotes-6-proposal")
    customer_page.fill("#id_name", "Li Wei")
    customer_page.fill("#id_email", "li.wei@example.com")
    customer_page.check("#id_agree")
    customer_page.click("[data-testid=accept]")
    customer_page.wait_for_selector("[data-testid=decision]")
    assert re.search("Accepted", customer_page.locator("[data-testid=decision]").inner_text())
    screenshot(customer_page, "quotes-7-accepted")

    revision = QuoteRevision.objects.get()
    assert revision.status == QuoteStatus.ACCEPTED
    assert revision.approved_by == manager
    decision = CustomerDecision.objects.get()
    assert (decision.name, decision.email) == ("Li Wei", "li.wei@example.com")
    assert decision.ip == "127.0.0.1"
    # No missing page resource (the browser's own favicon probe, which the site does not
    # serve, is logged as a 404 console error but is not a page resource) and no other console
    # error, such as a CSP violation.
    assert missing == []
    assert [e for e in errors if "status of 404" not in e] == []
