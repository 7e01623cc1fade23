"""The design page's rack elevations in real headless Chromium on a 390 px phone screen: the
drawing keeps its size (1 U = 9 px) and scrolls inside its own box, the page itself does not
scroll sideways, and nothing is refused by the Content Security Policy."""

import pytest

from planner import services
from planner.handover.services import DESIGN_PAGE_RACKS
from tests.conftest import load_seed_catalog, screenshot
from tests.planner.test_browser import console_errors
from tests.planner.test_handover_views import GPUS_1024

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
PHONE_PX = 390


@pytest.mark.slow
def test_the_design_pages_elevations_scroll_in_their_box_at_390_px(live_server, browser, engineer):
    load_seed_catalog()
    design = services.design_create(owner=engineer, name="1k", request_data=GPUS_1024)
    context = browser.new_context(viewport={"width": PHONE_PX, "height": 844}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors = console_errors(page)
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", "engineer")
        page.fill("input[name=password]", "pw-engineer")
        page.click("button[type=submit].primary")
        page.goto(f"{live_server.url}/designs/{design.pk}/")
        box = page.locator("[data-testid=elevations-box]")
        box.scroll_into_view_if_needed()
        assert page.locator("[data-testid=elevations-box] g.rack").count() == DESIGN_PAGE_RACKS
        sizes = box.evaluate(
            "b => ({scrollW: b.scrollWidth, clientW: b.clientWidth, scrollH: b.scrollHeight,"
            " clientH: b.clientHeight, svgW: b.querySelector('svg').getBoundingClientRect().width,"
            " drawnW: Number(b.querySelector('svg').getAttribute('width')),"
            " pageW: document.documentElement.scrollWidth})"
        )
        # Drawn at the size rack_svg gives it (150 px a rack and 24 px gaps, a line a row of
        # racks: far wider than a phone), not shrunk to the screen.
        assert sizes["svgW"] == sizes["drawnW"] > 4 * PHONE_PX
        assert sizes["clientW"] < PHONE_PX < sizes["scrollW"]  # scrolls sideways in its box
        assert sizes["clientH"] < sizes["scrollH"]  # and up and down, under its 32rem height
        assert sizes["pageW"] <= PHONE_PX  # the page itself does not
        # The box scrolls: its far right end can be reached.
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
        assert box.evaluate("b => b.scrollLeft") > 0
        box.evaluate("b => { b.scrollLeft = 0; }")
        page.locator("[data-testid=design-elevations]").screenshot(
            path=screenshot_path("design-elevations-390px")
        )
        screenshot(page, "design-page-390px")
        assert errors == []
    finally:
        context.close()


def screenshot_path(name: str) -> str:
    import os

    from tests.conftest import ARTIFACTS

    os.makedirs(ARTIFACTS, exist_ok=True)
    return os.path.join(ARTIFACTS, f"{name}.png")
