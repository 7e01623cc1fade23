"""The customer pages fit a 390 px phone in both languages (as tests/test_phone_layout.py checks
for the other pages): no sideways scroll, the main heading shows. Long names, a long e-mail
address and a CRM id are the worst case for width."""

import pytest

from customers.models import Customer
from customers.services import contact_create, customer_create
from tests.conftest import settle

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WIDTH = 390


def test_customer_pages_fit_a_390px_phone_in_both_languages(live_server, browser, engineer):
    acme = customer_create(
        user=engineer,
        name_en="Acme Artificial Intelligence Research Laboratories International",
        name_zh="阿克米人工智能研究实验室国际有限公司上海分公司",
    )
    Customer.objects.filter(pk=acme.pk).update(
        external_source="salesforce", external_id="0015g00000XyZAbCDE"
    )
    contact = contact_create(
        user=engineer,
        customer_id=acme.pk,
        name="Li Wei",
        title="Head of infrastructure and high-performance computing",
        email="li.wei.head-of-infrastructure@acme-artificial-intelligence.example",
        phone="+86 21 5555 0100",
        is_primary=True,
    )
    pages = {
        "list": "/customers/",
        "search": "/customers/?q=acme",
        "new": "/customers/new/",
        "detail": f"/customers/{acme.pk}/",
        "edit": f"/customers/{acme.pk}/edit/",
        "contact-new": f"/customers/{acme.pk}/contacts/new/",
        "contact-edit": f"/customers/contacts/{contact.pk}/edit/",
    }
    base = live_server.url
    host = base.split("//", 1)[1].split(":")[0]
    measured: dict[str, int] = {}
    headless: list[str] = []
    for language in ("en", "zh-hans"):
        context = browser.new_context(
            viewport={"width": WIDTH, "height": 844}, is_mobile=True, has_touch=True
        )
        context.add_cookies(
            [{"name": "django_language", "value": language, "domain": host, "path": "/"}]
        )
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(f"{base}/accounts/login/")
        page.fill("input[name=username]", "engineer")
        page.fill("input[name=password]", "pw-engineer")
        page.click("button[type=submit].primary")
        page.wait_for_selector("[data-testid=current-user]")
        for name, path in pages.items():
            page.goto(f"{base}{path}")
            settle(page)
            key = f"{language}-{name}"
            measured[key] = page.evaluate("document.documentElement.scrollWidth")
            heading = page.locator("main h1").first
            if not (heading.count() == 1 and heading.is_visible()):
                headless.append(key)
        context.close()
    too_wide = {key: width for key, width in measured.items() if width > WIDTH}
    assert too_wide == {}, f"pages wider than {WIDTH} px: {too_wide}"
    assert headless == [], f"pages whose main heading is hidden: {headless}"
    assert len(measured) == 14  # 7 pages x 2 languages, all measured
