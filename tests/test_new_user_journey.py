"""A new sales engineer's first quote, tried in real headless Chromium as a new user would, with
no administrator involved: the user is made the way `make run` makes the demo users
(`setup_roles`, then `create_demo_user`, whose printed password is the only one they get), logs
in, creates a customer and its contact, sizes a design for that customer in the wizard, and makes
a quote from the design."""

import io
import re

import pytest
from django.core.management import call_command

from customers.models import Contact, Customer
from planner.models import Design
from quotes.models import Quote
from tests.conftest import load_seed_catalog, screenshot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def _new_sales_engineer() -> tuple[str, str]:
    call_command("setup_roles", stdout=io.StringIO())
    out = io.StringIO()
    call_command("create_demo_user", stdout=out)
    found = re.search(r"Sales engineer: user '([^']+)' password '([^']+)'", out.getvalue())
    assert found, out.getvalue()
    return found.group(1), found.group(2)


def test_a_new_sales_engineer_makes_a_first_quote_without_an_administrator(live_server, page):
    load_seed_catalog()  # `make run` loads the catalog before anyone logs in
    username, password = _new_sales_engineer()
    base = live_server.url

    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit].primary")
    page.click("button[name=language][value=en]")
    nav = page.get_by_role("navigation", name="Main")
    assert not nav.get_by_role("link", name="Admin").count()  # not staff: no admin to lean on

    # A customer, from the navigation, and its first contact on the customer's page.
    nav.get_by_role("link", name="Customers").click()
    page.wait_for_selector("text=Your team has no customers yet.")
    page.get_by_role("link", name="New customer").click()
    page.get_by_label("Name (English)").fill("Acme AI")
    page.get_by_label("Name (Chinese)").fill("阿克米人工智能")
    page.get_by_label("Preferred language").select_option("en")
    page.get_by_role("button", name="Create customer").click()
    page.wait_for_selector("[data-testid=customer-name]:has-text('Acme AI')")
    form = page.locator("form[data-testid=contact-form]")
    form.get_by_label("Name", exact=True).fill("Li Wei")
    form.get_by_label("Role or job title").fill("Head of infrastructure")
    form.get_by_label("Email").fill("li.wei@acme.example")
    form.get_by_label("Phone").fill("+86 21 5555 0100")
    form.get_by_label("Primary contact").check()
    form.get_by_role("button", name="Add contact").click()
    page.wait_for_selector("[data-testid=contact-list] >> text=li.wei@acme.example")
    screenshot(page, "journey-1-customer")

    customer = Customer.objects.get()
    contact = Contact.objects.get()
    assert (customer.name_en, customer.name_zh, customer.preferred_language) == (
        "Acme AI",
        "阿克米人工智能",
        "en",
    )
    assert (contact.customer, contact.title, contact.is_primary) == (
        customer,
        "Head of infrastructure",
        True,
    )

    # A design for them: the customer's page starts the wizard with the customer chosen.
    page.get_by_role("link", name="Size a design for this customer").click()
    page.wait_for_selector("h1:has-text('Customer and scenario')")
    assert page.locator("#id_customer").input_value() == str(customer.pk)
    page.get_by_label("Design name").fill("Acme first pod")
    page.get_by_role("button", name="Start the design").click()
    page.wait_for_selector("h1:has-text('GPUs and servers')")
    page.fill("#id_gpus", "64")
    page.fill("#id_gpus_per_server", "8")
    page.wait_for_selector('[data-testid=gpus][data-value="64"]')
    while not page.locator("[data-testid=finish]").count():  # the remaining steps' defaults
        page.get_by_role("button", name="Next").click()
        page.wait_for_load_state("networkidle")
    page.locator("[data-testid=finish]").click()
    page.wait_for_selector("[data-testid=topology] svg")
    screenshot(page, "journey-2-design")

    design = Design.objects.get()
    assert (design.customer, design.is_draft, design.gpus) == (customer, False, 64)

    # A quote from the design: the customer is offered (the team's) and chosen.
    nav.get_by_role("link", name="Quotes").click()
    page.get_by_role("link", name="New quote from a design").click()
    page.get_by_label("Design").select_option(str(design.pk))
    page.get_by_label("Customer", exact=True).select_option(str(customer.pk))
    page.get_by_role("button", name="Create quote").click()
    page.wait_for_selector("text=Acme")
    screenshot(page, "journey-3-quote")

    quote = Quote.objects.get()
    assert (quote.customer, quote.design, quote.owner.username) == (customer, design, username)
    assert page.url.endswith(f"/quotes/{quote.pk}/")
    assert quote.number in page.content()
    assert quote.revisions.get().lines.exists()  # priced from the design's bill of materials
