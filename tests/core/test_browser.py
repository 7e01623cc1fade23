"""Smoke test in real headless Chromium: log in, see the home page in English and in Chinese."""

import pytest
from playwright.sync_api import expect

from tests.conftest import screenshot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.mark.slow
def test_login_and_switch_language(live_server, page, engineer):
    page.goto(f"{live_server.url}/")
    page.fill("input[name=username]", "engineer")
    page.fill("input[name=password]", "pw-engineer")
    page.click("button[type=submit].primary")
    page.wait_for_selector("text=Welcome, engineer")
    assert page.locator("html").get_attribute("lang") == "en"
    screenshot(page, "core-home-en")

    page.click("button[name=language][value=zh-hans]")
    page.wait_for_selector("text=欢迎，engineer")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert page.get_by_role("button", name="退出登录").is_visible()
    screenshot(page, "core-home-zh")
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.reload()
    assert not errors, errors  # e.g. a CSP violation would show up here


def test_wrong_password_shows_an_error(live_server, page, engineer):
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "engineer")
    page.fill("input[name=password]", "nope")
    page.click("button[type=submit].primary")
    # Waits for the answer to the POST: `is_visible()` asked at once, and in one CI run (on
    # 945d0c9) before the refused login's page had loaded.
    expect(page.locator("[role=alert]")).to_be_visible()


@pytest.mark.slow
def test_api_docs_render_under_the_content_security_policy(live_server, page):
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(f"{live_server.url}/api/v1/docs/")
    page.wait_for_selector(".opblock")
    assert page.locator(".opblock").count() >= 30  # one block per operation
    assert not errors, errors
