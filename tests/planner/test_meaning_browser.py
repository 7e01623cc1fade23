"""In headless Chromium: on a saved 1,024-GPU design's page a sales engineer describes the
customer's job, sees a mistake explained next to its field, then the time per step, the
bottleneck and the chart of the design against its alternatives (htmx, under the site's CSP)."""

import pytest

from planner import services
from planner.meaning import read_model
from tests.conftest import load_seed_catalog, screenshot
from tests.planner.test_browser import console_errors
from tests.planner.test_meaning_service import GRADIENT_SECONDS_1_1, RAIL_1024

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.mark.slow
def test_engineer_states_a_job_and_sees_its_step_time(live_server, page, engineer):
    load_seed_catalog()
    design = services.design_create(owner=engineer, name="1,024 GPUs", request_data=RAIL_1024)
    errors = console_errors(page)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "engineer")
    page.fill("input[name=password]", "pw-engineer")
    page.click("button[type=submit].primary")
    page.click("button[name=language][value=en]")
    page.goto(f"{live_server.url}/designs/{design.pk}/")

    # The section loads its form; a data-parallel size that does not multiply to the GPUs.
    page.wait_for_selector("[data-testid=job-form]")
    page.fill("#job-parameters", "70B")
    page.fill("#job-tensor_parallel", "8")
    page.fill("#job-data_parallel", "100")
    page.select_option("#job-sharding", "optimizer")
    page.fill("#job-compute_seconds_per_step", "5")
    page.get_by_test_id("job-estimate").click()
    page.wait_for_selector("#job-err-data_parallel:has-text('8 x 1 x 100 = 800')")
    assert page.locator("#job-data_parallel").get_attribute("aria-invalid") == "true"

    # Left empty, data parallel is what tensor x pipeline leaves: 1,024 / 8 = 128.
    page.fill("#job-data_parallel", "")
    page.get_by_test_id("job-estimate").click()
    # The gradients' ReduceScatter+AllGather: bandwidth alone 0.731 s a step in cabling order,
    # 3 x 0.731086 = 2.193 s with every member on the 3:1 leaf uplinks; the page shows NCCL's
    # model of them (engine.nccl: each bucket's latency and the algorithm NCCL picks).
    job = read_model.job_parse(
        data={"parameters": "70B", "tensor_parallel": 8, "sharding": "optimizer",
              "compute_seconds_per_step": 5},
        design=design,
    )  # fmt: skip
    est = read_model.design_meaning(design=design, job=job, with_what_if=False).estimate
    assert est is not None
    assert est.bandwidth_seconds_per_step == pytest.approx(GRADIENT_SECONDS_1_1, rel=1e-6)
    expected = f"{est.seconds_per_step:.6f}"
    page.wait_for_selector(f'[data-testid=step-seconds][data-value="{expected}"]')
    assert page.get_by_test_id("step-seconds").inner_text() == f"{est.seconds_per_step:.3f} s"
    bound = f"{est.bound_seconds_per_step:.3f} s"
    assert page.get_by_test_id("step-bound").inner_text() == bound
    assert "spine" in page.get_by_test_id("bottleneck").inner_text()
    chart = page.locator("[data-testid=meaning-chart] svg")
    assert chart.is_visible()
    # One bar row per option: the design and its alternatives, the design's bar highlighted.
    assert chart.locator("rect.design").count() == 2
    # The bound drawn beside the estimate (a dashed outline) where it is longer: at 3:1, ours.
    assert chart.locator("rect.bound").count() >= 1
    assert page.get_by_test_id("what-if").is_visible()
    assert page.locator("[data-testid=comparisons] li").count() >= 1
    screenshot(page, "design-meaning")
    assert errors == [], errors
