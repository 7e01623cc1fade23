"""Expired sessions lose nothing (issue 27 item 2): an htmx request after expiry is redirected
(HX-Redirect) to the login page with the page as `next`, the login page says the session expired,
a POST-only URL never ends in a 405, and in real Chromium the input typed before expiry is back
on the right page after signing in again."""

from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session

from tests.conftest import load_seed_catalog

REQUEST = {
    "gpus": 64,
    "gpus_per_server": 8,
    "rails": 8,
    "nic_speed": 25,
    "nic": "MCX631102AN-ADAT",
    "leaf": "MSN2410-CB2F",
    "fabric": "tor",
}


def _query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


# --- the server's answers -----------------------------------------------------------------------


@pytest.mark.django_db
def test_htmx_request_after_expiry_gets_hx_redirect_to_login_with_the_page(client):
    client.cookies[settings.SESSION_COOKIE_NAME] = "gone"
    response = client.post(
        "/designs/7/wizard/gpus/preview/",
        {"gpus": "128"},
        headers={
            "HX-Request": "true",
            "HX-Current-URL": "http://testserver/designs/7/wizard/gpus/",
        },
    )
    assert response.status_code == 200
    assert response.content == b""  # nothing for htmx to swap into the panel
    target = response["HX-Redirect"]
    assert urlsplit(target).path == "/accounts/login/"
    assert _query(target) == {"next": ["/designs/7/wizard/gpus/"], "expired": ["1"]}


@pytest.mark.django_db
def test_htmx_page_on_another_site_is_not_taken_as_next(client):
    response = client.post(
        "/designs/7/wizard/gpus/preview/",
        headers={"HX-Request": "true", "HX-Current-URL": "https://evil.example/steal/"},
    )
    target = response["HX-Redirect"]
    assert _query(target) == {"next": ["/designs/7/wizard/gpus/preview/"]}  # no cookie: not expired


@pytest.mark.django_db
def test_form_post_after_expiry_returns_to_the_page_it_came_from(client):
    client.cookies[settings.SESSION_COOKIE_NAME] = "gone"
    response = client.post(
        "/quotes/3/lines/9/",
        {"quantity": "5"},
        headers={"Referer": "http://testserver/quotes/3/?rev=1"},
    )
    assert response.status_code == 302
    assert urlsplit(response["Location"]).path == "/accounts/login/"
    assert _query(response["Location"]) == {"next": ["/quotes/3/?rev=1"], "expired": ["1"]}


@pytest.mark.django_db
def test_first_visit_is_not_called_expired(client):
    response = client.get("/quotes/")
    assert _query(response["Location"]) == {"next": ["/quotes/"]}
    page = client.get(response["Location"])
    assert b'data-testid="session-expired"' not in page.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "text"),
    [("en", "Session expired — sign in again")],
)
def test_login_page_says_the_session_expired(client, language, text):
    client.cookies["django_language"] = language
    page = client.get("/accounts/login/?next=/quotes/&expired=1")
    assert page.status_code == 200
    assert text in page.content.decode()


FROM_LOGIN = {"Referer": "http://testserver/accounts/login/?next=/quotes/3/lines/9/"}


def test_post_only_url_as_next_lands_on_its_page(engineer_client):
    response = engineer_client.get("/quotes/3/lines/9/", headers=FROM_LOGIN)
    assert response.status_code == 302
    assert response["Location"] == "/quotes/3/"
    wizard = engineer_client.get("/designs/4/wizard/gpus/preview/", headers=FROM_LOGIN)
    assert wizard.status_code == 302
    assert wizard["Location"] == "/designs/4/wizard/gpus/"


def test_post_only_url_is_still_405_elsewhere(engineer_client):
    htmx = engineer_client.get("/quotes/3/lines/9/", headers={"HX-Request": "true", **FROM_LOGIN})
    assert htmx.status_code == 405
    assert engineer_client.get("/quotes/3/lines/9/").status_code == 405  # not after a login


@pytest.mark.django_db
def test_login_with_a_post_only_next_lands_on_the_owning_page(client, engineer):
    response = client.post(
        "/accounts/login/?next=/quotes/3/lines/9/",
        {"username": "engineer", "password": "pw-engineer", "next": "/quotes/3/lines/9/"},
        headers=FROM_LOGIN,
        follow=True,
    )
    hops = [url for url, _status in response.redirect_chain]
    assert hops[:2] == ["/quotes/3/lines/9/", "/quotes/3/"]
    assert response.status_code != 405  # no such quote here: 404, but never a 405


# --- in the browser -----------------------------------------------------------------------------


def _log_in(page, base: str, *, expect_expired: bool = False) -> None:
    if expect_expired:
        assert page.locator("[data-testid=session-expired]").is_visible()
    page.fill("input[name=username]", "engineer")
    page.fill("input[name=password]", "pw-engineer")
    page.click("button[type=submit].primary")
    page.wait_for_selector("[data-testid=current-user]")


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_wizard_input_survives_expiry(live_server, browser, engineer):
    from planner.models import Design
    from planner.services import design_save_draft

    load_seed_catalog()
    draft = design_save_draft(owner=engineer, request_data=REQUEST, name="Expiry draft")
    base = live_server.url
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base}/accounts/login/")
    _log_in(page, base)
    wizard = f"/designs/{draft.pk}/wizard/gpus/"
    page.goto(f"{base}{wizard}")
    page.wait_for_selector("#id_gpus")

    Session.objects.all().delete()  # the session ends on the server mid-edit
    page.fill("#id_gpus", "96")  # the live preview (htmx) is answered with HX-Redirect
    page.wait_for_url("**/accounts/login/**")
    assert _query(page.url)["next"] == [wizard]
    assert page.locator("#live").count() == 0  # a page of its own, not a panel
    _log_in(page, base, expect_expired=True)

    assert urlsplit(page.url).path == wizard
    assert page.input_value("#id_gpus") == "96"
    assert page.locator("[data-testid=draft-restored]").is_visible()
    # The restored value is sent again: the draft on the server has it.
    page.wait_for_function(
        "document.querySelector('#live') && !document.querySelector('.htmx-request')"
    )
    for _ in range(50):
        if Design.objects.get(pk=draft.pk).request.get("gpus") == 96:
            break
        page.wait_for_timeout(100)
    assert Design.objects.get(pk=draft.pk).request["gpus"] == 96
    context.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_quote_line_edit_survives_expiry(live_server, browser, engineer):
    from core.selectors import user_team
    from customers.models import Customer
    from planner.services import design_create
    from quotes.models import DiscountPolicy
    from quotes.services import quote_create

    load_seed_catalog()
    DiscountPolicy.objects.all().delete()
    design = design_create(owner=engineer, name="64-GPU pod", request_data=REQUEST)
    customer = Customer.objects.create(name_en="Lab", name_zh="实验室", team=user_team(engineer))
    quote = quote_create(user=engineer, design=design, customer=customer)
    line = quote.revisions.get().lines.filter(kind="product").order_by("position", "id").first()
    assert line is not None
    base = live_server.url
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base}/accounts/login/")
    _log_in(page, base)
    page.goto(f"{base}/quotes/{quote.pk}/")
    quantity = f"input[name=line-{line.pk}-quantity]"
    page.fill(quantity, "37")

    Session.objects.all().delete()
    page.click("[data-testid=save-grid]")
    page.wait_for_url("**/accounts/login/**")
    _log_in(page, base, expect_expired=True)

    assert urlsplit(page.url).path == f"/quotes/{quote.pk}/"  # the page, not a 405
    assert page.input_value(quantity) == "37"
    line.refresh_from_db()
    assert line.quantity != 37  # kept in the browser, not yet saved
    with page.expect_navigation():
        page.click("[data-testid=save-grid]")
    line.refresh_from_db()
    assert line.quantity == 37
    # Saved: a fresh visit shows the server's page, with nothing restored.
    page.goto(f"{base}/quotes/{quote.pk}/")
    assert page.locator("[data-testid=draft-restored]").count() == 0
    context.close()
