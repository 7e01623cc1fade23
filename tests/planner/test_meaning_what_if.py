"""The training view's what-if (issue 28, item 4): the design's request with one choice changed
(NIC speed a step up and down, leaf oversubscription 1:1 / 2:1 / 3:1, rail-only against a full
fat tree), each sized again in the design's catalog snapshot and timed by the same model; and
the chart drawing each option's bound beside its estimate (issue 26's leftover).
Real seed catalog, real engine."""

import pytest

from planner import services
from planner.meaning import read_model as meaning
from planner.meaning import what_if as what_if_module
from planner.meaning.svg import ChartRow, meaning_chart_svg
from tests.conftest import load_seed_catalog
from tests.planner.test_api import client_for
from tests.planner.test_meaning_service import JOB_70B, RAIL_1024

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def design(engineer):
    load_seed_catalog()
    return services.design_create(owner=engineer, name="1,024 GPUs", request_data=RAIL_1024)


def _meaning(design):
    job = meaning.job_parse(data=JOB_70B, design=design)
    return meaning.design_meaning(design=design, job=job)


def test_the_variants_change_one_choice_each_and_leave_the_design_alone(design):
    stored = dict(design.result)
    found = _meaning(design)
    rows = {row.key: row for row in found.what_if}
    # The design first; RAIL_1024 is 400G at 3:1 on a rail fabric: NIC 200 and 800, leaves at
    # 1:1 and 2:1, and rail-only planes.
    assert found.what_if[0].is_design
    assert set(rows) == {"design", "nic_200", "nic_800", "leaf_1", "leaf_2", "fabric_rail-plane"}
    base = rows["design"]
    assert base.seconds == pytest.approx(found.estimate.seconds_per_step)
    assert base.cost_per_gpu == found.options[0].cost_per_gpu
    for row in found.what_if:
        assert row.error == "", row.label
        assert row.seconds is not None
        assert row.low_seconds < row.seconds < row.high_seconds
        assert row.bound_seconds >= row.seconds - 1e-12
    # At 1:1 the leaf uplinks stop dividing the bound; at 3:1 they divide it by 3.
    assert rows["leaf_1"].bound_seconds < base.bound_seconds
    # Twice the NIC: the gradients' bandwidth term halves (the latency term stays).
    assert rows["nic_800"].seconds < base.seconds < rows["nic_200"].seconds
    # A saved design's own figures never move: the stored result is as it was.
    design.refresh_from_db()
    assert design.result == stored


def test_variants_are_sized_once_per_process(design, monkeypatch):
    what_if_module._CACHE.clear()
    sized: list[object] = []
    real = what_if_module.size

    def counting(request, catalog, prices):
        # Sized with the design's own prices, so an open choice goes the way the design's did.
        assert prices
        sized.append(request)
        return real(request, catalog, prices)

    monkeypatch.setattr(what_if_module, "size", counting)
    _meaning(design)
    assert len(sized) == 5  # the five variants of the test above
    _meaning(design)
    assert len(sized) == 5  # the second view sizes nothing


def test_the_page_and_the_api_show_the_what_if_as_hypothetical(client, engineer, design):
    client.force_login(engineer)
    url = f"/designs/{design.pk}/meaning/"
    answer = client.get(url, JOB_70B, **HTMX).content.decode()
    assert 'data-testid="what-if"' in answer
    assert 'data-variant="leaf_1"' in answer
    assert 'data-testid="what-if-chart"' in answer
    assert "hypothetical" in answer
    assert 'data-testid="algorithm"' in answer
    body = client_for(engineer).post(f"/api/v1/designs/{design.pk}/meaning/", JOB_70B,
                                     format="json").json()  # fmt: skip
    option = body["options"][0]
    assert option["low_seconds_per_step"] < option["seconds_per_step"]
    assert option["bound_seconds_per_step"] >= option["seconds_per_step"]
    variants = body["what_if"]
    assert variants[0]["is_design"] is True
    assert variants[0]["hypothetical"] is False
    assert all(v["hypothetical"] for v in variants[1:])
    assert {"seconds_per_step", "low_seconds_per_step", "cost_per_gpu"} <= set(variants[1])


def test_the_chart_draws_the_bound_beside_the_estimate():
    rows = [
        ChartRow(label="3:1", seconds=0.8, cost_per_gpu=None, highlight=True, bound_seconds=2.4),
        ChartRow(label="1:1", seconds=0.8, cost_per_gpu=None, bound_seconds=0.8),
    ]
    svg = meaning_chart_svg(rows, {"bound": "at most", "unit_seconds": "s"})
    # One outline, for the row whose bound is longer; the scale is the longest bound (2.4 s =
    # the panel's 210 px), so the 0.8 s estimate is a third of it: 70 px.
    assert svg.count('class="bound"') == 1
    assert 'data-bound-seconds="2.400000"' in svg
    assert 'width="70.0"' in svg
    assert "0.8 s (at most 2.4 s)" in svg
