"""Every screen fits a phone (issue 15 item 2): each page a sales engineer, a manager or a customer
opens is measured in real headless Chromium at 390 x 844, in English and in Chinese. The page may
not scroll sideways (wide tables scroll inside their own box) and its main heading shows.

PHONE_SHOTS=/tmp/phone saves a full-page screenshot of every page there, to be looked at."""

import os
from decimal import Decimal

import pytest

from core.roles import SALES_MANAGER
from tests.conftest import load_seed_catalog
from tests.core.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WIDTH = 390
REQUEST = {
    "gpus": 64,
    "gpus_per_server": 8,
    "rails": 8,
    "nic_speed": 25,
    "nic": "MCX631102AN-ADAT",
    "leaf": "MSN2410-CB2F",
    "fabric": "tor",
}
LANGUAGES = ("en", "zh-hans")
SHOTS = os.environ.get("PHONE_SHOTS", "")


@pytest.fixture
def data(engineer):
    """A sized design, a draft design (for the wizard), a draft quote (its lines editable) and a
    sent quote with its share link."""
    load_seed_catalog()
    from core.selectors import user_team
    from customers.models import Customer
    from planner.services import design_create, design_save_draft
    from quotes.models import DiscountPolicy
    from quotes.services import _unpriced_lines, quote_create, revision_line_update, revision_send

    DiscountPolicy.objects.all().delete()  # nothing needs approval: the quote can be sent
    design = design_create(owner=engineer, name="64-GPU ToR pod", request_data=REQUEST)
    draft_design = design_save_draft(owner=engineer, request_data=REQUEST, name="64-GPU draft")
    customer = Customer.objects.create(
        name_en="Example AI Lab",
        name_zh="示例人工智能实验室",
        team=user_team(engineer),
    )
    draft = quote_create(user=engineer, design=design, customer=customer)
    sent = quote_create(user=engineer, design=design, customer=customer)
    revision = sent.revisions.get()
    for line in _unpriced_lines(revision):  # a catalog gap: priced by hand, as an engineer would
        revision_line_update(user=engineer, line=line, override_unit_price=Decimal("1200.00"))
    link = revision_send(user=engineer, revision=revision)
    return {
        "design": design,
        "draft_design": draft_design,
        "draft": draft,
        "sent": sent,
        "token": link.token,
    }


def _context(browser, base_url: str, language: str, user: str | None):
    context = browser.new_context(
        viewport={"width": WIDTH, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        locale="en-US" if language == "en" else "zh-CN",
    )
    host = base_url.split("//", 1)[1].split(":")[0]
    cookie = {"name": "django_language", "value": language, "domain": host, "path": "/"}
    context.add_cookies([cookie])
    page = context.new_page()
    page.set_default_timeout(15_000)
    if user:
        page.goto(f"{base_url}/accounts/login/")
        page.fill("input[name=username]", user)
        page.fill("input[name=password]", f"pw-{user}")
        page.click("button[type=submit].primary")
        page.wait_for_selector("[data-testid=current-user]")
    return context, page


def _measure(page, url: str, name: str) -> tuple[int, bool]:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    width = page.evaluate("document.documentElement.scrollWidth")
    heading = page.locator("main h1").first
    visible = heading.count() == 1 and heading.is_visible()
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)
    return width, visible


def test_every_page_fits_a_390px_phone_in_both_languages(live_server, browser, engineer, data):
    from planner.forms import STEP_KEYS

    UserFactory(username="manager", role=SALES_MANAGER, team_name="Team A")
    base = live_server.url
    design = data["design"]
    draft, sent = data["draft"], data["sent"]
    wizard_pk = data["draft_design"].pk
    engineer_pages = {
        "home": "/",
        "designs": "/designs/",
        "designs-archived": "/designs/?archived=1",
        "design": f"/designs/{design.pk}/",
        "design-new": "/designs/new/",
        **{f"wizard-{step}": f"/designs/{wizard_pk}/wizard/{step}/" for step in STEP_KEYS},
        "quotes": "/quotes/",
        "customers": "/customers/",
        "quote-new": f"/quotes/new/?design={design.pk}",
        "quote-draft": f"/quotes/{draft.pk}/",
        "quote-sent": f"/quotes/{sent.pk}/",
        "catalog": "/catalog/",
        "product": "/catalog/products/MSN2410-CB2F/",
    }
    manager_pages = {"home": "/", "quotes": "/quotes/", "quote-draft": f"/quotes/{draft.pk}/"}
    public_pages = {"login": "/accounts/login/", "share": f"/s/{data['token']}/"}

    measured: dict[str, int] = {}
    headless: list[str] = []
    for language in LANGUAGES:
        for user, pages in (
            ("engineer", engineer_pages),
            ("manager", manager_pages),
            (None, public_pages),
        ):
            context, page = _context(browser, base, language, user)
            for name, path in pages.items():
                key = f"{language}-{user or 'public'}-{name}"
                width, visible = _measure(page, f"{base}{path}", key)
                measured[key] = width
                if not visible:
                    headless.append(key)
            context.close()
    if SHOTS:
        with open(os.path.join(SHOTS, "widths.txt"), "w", encoding="utf-8") as out:
            out.writelines(f"{key} {width}\n" for key, width in measured.items())
    too_wide = {key: width for key, width in measured.items() if width > WIDTH}
    assert too_wide == {}, f"pages wider than {WIDTH} px: {too_wide}"
    assert headless == [], f"pages whose main heading is hidden: {headless}"


def test_customer_accepts_on_a_phone_in_chinese(live_server, browser, data):
    """The share page's decision forms are usable at 390 px: accepting works and still fits."""
    context, page = _context(browser, live_server.url, "zh-hans", None)
    page.goto(f"{live_server.url}/s/{data['token']}/")
    for selector in ("#id_name", "#id_email", "[data-testid=accept]"):
        box = page.locator(selector).first.bounding_box()
        assert box is not None, selector
        assert box["x"] >= 0, selector
        assert box["x"] + box["width"] <= WIDTH, selector
    page.fill("#id_name", "李伟")
    page.fill("#id_email", "li.wei@example.com")
    page.check("#id_agree")
    page.click("[data-testid=accept]")
    page.wait_for_selector("[data-testid=decision]")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "zh-share-accepted.png"), full_page=True)
    context.close()
