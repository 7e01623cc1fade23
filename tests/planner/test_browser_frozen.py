"""In Chromium: a saved design whose product was retired offers "Re-size against today's
catalog", shows what would change, and saves a new version only when asked."""

import pytest

from catalog.models import LifecycleChoices, Product
from planner.models import Design
from planner.services import design_create
from tests.conftest import load_seed_catalog, screenshot
from tests.planner.test_browser import console_errors

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

# 256 GPUs on 64x400 leaves: 192 server links run 10 m on the 400G AOC (tests/planner/
# test_frozen.py derives the count); retiring it leaves the engine to pick another part.
REQUEST_256 = {"gpus": 256, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
               "leaf": "64x400"}  # fmt: skip
RETIRED = "AOC-D-D-400G-10M"


def test_resize_from_the_design_page(live_server, page, engineer):
    load_seed_catalog()
    design = design_create(owner=engineer, name="Pod 256", request_data=REQUEST_256)
    product = Product.objects.get(sku=RETIRED)
    product.lifecycle = LifecycleChoices.END_OF_SALE
    product.save()  # a transactional test: the catalog-changed signal runs on commit
    errors = console_errors(page)

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "engineer")
    page.fill("input[name=password]", "pw-engineer")
    page.click("button[type=submit].primary")
    page.click("button[name=language][value=en]")
    page.goto(f"{live_server.url}/designs/{design.pk}/")
    # The saved design still lists the retired part, 192 of them.
    assert page.locator(f'[data-testid=bom-table] [data-sku="{RETIRED}"]').inner_text() == "192"
    assert page.get_by_test_id("frozen-note").is_visible()

    page.get_by_test_id("resize").click()
    page.wait_for_selector("h1:has-text('Re-size against today')")
    row = page.locator(f'[data-testid=resize-changes] tr[data-sku="{RETIRED}"]')
    assert row.get_attribute("data-kind") == "removed"
    assert "Removed" in row.inner_text()
    screenshot(page, "design-resize-preview")
    assert Design.objects.count() == 1  # looking saves nothing

    page.get_by_test_id("resize-save").click()
    page.wait_for_selector("h1:has-text('version 2')")
    new = Design.objects.exclude(pk=design.pk).get()
    assert page.url.endswith(f"/designs/{new.pk}/")
    assert page.locator(f'[data-testid=bom-table] [data-sku="{RETIRED}"]').count() == 0
    screenshot(page, "design-resize-saved")
    assert errors == []
