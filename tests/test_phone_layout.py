"""Every screen fits a phone (issue 15 item 2) and reads well on it (issue 27 item 1): each page a
sales engineer, a manager or a customer opens is measured in real headless Chromium at 390 x 844
and at 1400 px, in English and in Chinese. The page may not scroll sideways (wide tables become
cards or scroll inside their own box), its main heading shows, no table cell breaks its text one
character per line, no text is under 12 px, and in the wizard the live summary stays in view
while the first input has the focus.

PHONE_SHOTS=/tmp/phone saves a full-page screenshot of every page there, to be looked at."""

import os
from decimal import Decimal

import pytest

from core.roles import SALES_MANAGER
from tests.conftest import load_seed_catalog, settle
from tests.core.factories import UserFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

WIDTH = 390
DESKTOP = 1400
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


def _context(browser, base_url: str, language: str, user: str | None, width: int = WIDTH):
    phone = width <= WIDTH
    context = browser.new_context(
        viewport={"width": width, "height": 844 if phone else 900},
        device_scale_factor=2 if phone else 1,
        is_mobile=phone,
        has_touch=phone,
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


# Measured in the page: what a reader would see as broken. Every visible element with text of its
# own is at least 12 px; every visible table cell with two or more characters is at least two
# characters wide (its content box >= 2 x its font size) and no line of it holds one lone CJK
# character while the text has more (a name broken one character per line).
MEASURE = r"""
() => {
  const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
  const visible = (el) => {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") return false;
    const rect = el.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2) return false;
    for (let node = el; node; node = node.parentElement) {
      const s = getComputedStyle(node);
      if (s.clip && s.clip !== "auto" && s.position === "absolute") return false;
      if (node.getAttribute("aria-hidden") === "true" && s.display === "none") return false;
    }
    return true;
  };
  const ownText = (el) => Array.from(el.childNodes)
    .filter((n) => n.nodeType === 3).map((n) => n.textContent).join("").trim();
  const small = [];
  for (const el of document.querySelectorAll("body *")) {
    if (["SCRIPT", "STYLE", "svg", "SVG"].includes(el.tagName) || el.closest("svg")) continue;
    const text = ownText(el);
    if (!text || !visible(el)) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < 12) small.push(`${el.tagName.toLowerCase()} ${size}px "${text.slice(0, 30)}"`);
  }
  const narrow = [];
  const ctx = document.createElement("canvas").getContext("2d");
  const shown = new Map();
  const textShown = (node) => {
    const el = node.parentElement;
    if (!shown.has(el)) shown.set(el, visible(el));
    return shown.get(el);
  };
  for (const cell of document.querySelectorAll("td, th")) {
    if (!visible(cell)) continue;
    const chars = [];
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!textShown(node)) continue;
      for (let i = 0; i < node.textContent.length; i++) chars.push([node, i]);
    }
    const text = chars.map(([node, i]) => node.textContent[i]).join("");
    if (text.replace(/\s/g, "").length < 2) continue;
    const style = getComputedStyle(cell);
    const size = parseFloat(style.fontSize);
    const inner = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    // Two characters of its own text, in its own font (or two em for CJK, whose glyphs are 1 em).
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const two = ctx.measureText(text.trim().slice(0, 2)).width;
    if (inner + 0.5 < Math.min(two, 2 * size)) {
      narrow.push(`${Math.round(inner)}px "${text.trim().slice(0, 30)}"`);
      continue;
    }
    if (!CJK.test(text)) continue;
    // A lone CJK character on a line, cut from its neighbour (no space between): a word broken.
    const lines = new Map();
    chars.forEach(([node, i], index) => {
      const ch = node.textContent[i];
      if (/\s/.test(ch)) return;
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getBoundingClientRect();
      if (!rect.width) return;
      const top = Math.round(rect.top);
      if (!lines.has(top)) lines.set(top, []);
      lines.get(top).push(index);
    });
    if (lines.size < 2) continue;
    for (const indexes of lines.values()) {
      if (indexes.length !== 1) continue;
      const index = indexes[0];
      const ch = text[index];
      const joined = CJK.test(text[index - 1] || "") || CJK.test(text[index + 1] || "");
      if (CJK.test(ch) && joined) narrow.push(`lone "${ch}" in "${text.trim().slice(0, 30)}"`);
    }
  }
  // What sticks out of the page, for the report (outermost elements only).
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const rect = el.getBoundingClientRect();
    if (rect.right > window.innerWidth + 1 && !out.some((o) => o.contains(el))) {
      let clipped = false;
      for (let node = el.parentElement; node; node = node.parentElement) {
        if (getComputedStyle(node).overflowX !== "visible") { clipped = true; break; }
      }
      if (!clipped) out.push(el);
    }
  }
  return {
    overflowing: out.slice(0, 5).map(
      (el) => `${el.tagName.toLowerCase()}.${el.className} `
        + `${Math.round(el.getBoundingClientRect().right)}`,
    ),
    width: document.documentElement.scrollWidth,
    small: small.slice(0, 8),
    smallCount: small.length,
    narrow: narrow.slice(0, 8),
    narrowCount: narrow.length,
  };
}
"""


def _measure(page, url: str, name: str) -> dict:
    page.goto(url)
    settle(page)
    found = page.evaluate(MEASURE)
    heading = page.locator("main h1").first
    found["heading"] = heading.count() == 1 and heading.is_visible()
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)
    return found


def _summary_in_view(page, url: str) -> bool:
    """The wizard's live summary is inside the viewport while its first input has the focus."""
    page.goto(url)
    settle(page)
    first = page.locator(".wizard-form .fields input:not([type=hidden]):visible").first
    first.focus()
    first.press("End")
    summary = page.locator("[data-testid=live-summary]")
    # On wide screens the whole live panel, beside the form, is the summary.
    shown = summary if summary.is_visible() else page.locator("#live")
    box = shown.bounding_box()
    viewport = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + min(box["height"], 80) <= viewport["height"]
        and box["x"] >= 0
        and box["x"] + box["width"] <= viewport["width"]
    )


def _pages(data) -> tuple[dict[str, str], dict[str, str], dict[str, str], list[str]]:
    from planner.forms import STEP_KEYS

    design = data["design"]
    draft, sent = data["draft"], data["sent"]
    wizard_pk = data["draft_design"].pk
    wizards = {f"wizard-{step}": f"/designs/{wizard_pk}/wizard/{step}/" for step in STEP_KEYS}
    engineer_pages = {
        "home": "/",
        "designs": "/designs/",
        "designs-archived": "/designs/?archived=1",
        "design": f"/designs/{design.pk}/",
        "design-new": "/designs/new/",
        **wizards,
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
    typed = ["/designs/new/", *(path for key, path in wizards.items() if key != "wizard-review")]
    return engineer_pages, manager_pages, public_pages, typed


@pytest.mark.parametrize("width", [WIDTH, DESKTOP])
def test_every_page_reads_well_in_both_languages(live_server, browser, engineer, data, width):
    UserFactory(username="manager", role=SALES_MANAGER, team_name="Team A")
    base = live_server.url
    engineer_pages, manager_pages, public_pages, typed = _pages(data)
    measured: dict[str, dict] = {}
    hidden_summary: list[str] = []
    for language in LANGUAGES:
        for user, pages in (
            ("engineer", engineer_pages),
            ("manager", manager_pages),
            (None, public_pages),
        ):
            context, page = _context(browser, base, language, user, width)
            for name, path in pages.items():
                key = f"{width}-{language}-{user or 'public'}-{name}"
                measured[key] = _measure(page, f"{base}{path}", key)
            if user == "engineer":
                for path in typed:
                    if not _summary_in_view(page, f"{base}{path}"):
                        hidden_summary.append(f"{width}-{language}-{path}")
            context.close()
    if SHOTS:
        with open(os.path.join(SHOTS, f"measures-{width}.txt"), "w", encoding="utf-8") as out:
            out.writelines(f"{key} {found}\n" for key, found in measured.items())
    too_wide = {key: m["width"] for key, m in measured.items() if m["width"] > width}
    headless = [key for key, m in measured.items() if not m["heading"]]
    narrow = {key: m["narrow"] for key, m in measured.items() if m["narrowCount"]}
    small = {key: m["small"] for key, m in measured.items() if m["smallCount"]}
    assert len(measured) == 2 * sum(map(len, (engineer_pages, manager_pages, public_pages)))
    assert too_wide == {}, f"pages wider than {width} px: {too_wide}"
    assert headless == [], f"pages whose main heading is hidden: {headless}"
    assert narrow == {}, f"table cells broken per character: {narrow}"
    assert small == {}, f"text under 12 px: {small}"
    assert hidden_summary == [], f"live summary out of view while typing: {hidden_summary}"


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
