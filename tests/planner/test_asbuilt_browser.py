"""An engineer uploads the switches' lldpctl output in real headless Chromium, from the handover
page, and sees the punch list appear once the comparison is done (the page polls over htmx; the
worker's job is run here, in process, against the same database)."""

import pytest

from planner import services
from planner.asbuilt import services as asbuilt_services
from planner.asbuilt.models import AsBuiltCheck
from tests.conftest import load_seed_catalog, screenshot
from tests.planner.test_asbuilt import REQUEST, _faulty, _links, _lldp
from tests.planner.test_browser import console_errors

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.mark.slow
def test_engineer_uploads_lldp_and_sees_the_punch_list(live_server, page, engineer, tmp_path):
    load_seed_catalog()
    design = services.design_create(owner=engineer, name="Pilot", request_data=REQUEST)
    upload = tmp_path / "cluster.json"
    upload.write_bytes(_lldp(_faulty(_links(design))))
    errors = console_errors(page)

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "engineer")
    page.fill("input[name=password]", "pw-engineer")
    page.click("button[type=submit].primary")
    page.goto(f"{live_server.url}/designs/{design.pk}/handover/")
    page.click("[data-testid=asbuilt]")
    page.wait_for_selector("h1:has-text('Cabling as built')")
    # The handover page's own inline style is refused by the CSP (its template, not these
    # pages): counted from here on.
    errors.clear()
    page.set_input_files("#asbuilt-file", str(upload))
    page.click("[data-testid=asbuilt-upload]")
    page.wait_for_selector("h1:has-text('Punch list')")
    page.wait_for_selector("progress")  # queued: the partial polls

    check = AsBuiltCheck.objects.get(design=design)
    asbuilt_services.asbuilt_check_run(check_id=check.pk)
    page.wait_for_selector("[data-testid=asbuilt-punch]", timeout=10_000)
    # Two swapped pairs (4 cables), one missing, one unexpected: 6 rows.
    assert page.locator("[data-testid=asbuilt-punch] tbody tr").count() == 6
    assert page.locator('[data-testid=asbuilt-punch] tr[data-status="swapped"]').count() == 4
    missing = page.locator('[data-testid=asbuilt-counts] td[data-status="missing"]')
    assert missing.inner_text() == "1"
    screenshot(page, "asbuilt-punch-list")
    assert errors == []
