"""Where the meaning of a design shows: the design page's section (its htmx fragment), the API's
`meaning` action and `manage.py size --job`. Real seed catalog and engine; the figures are the
hand-computed ones of test_meaning_service."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from planner import services
from tests.conftest import load_seed_catalog
from tests.core.factories import UserFactory
from tests.planner.test_api import client_for
from tests.planner.test_meaning_service import GRADIENT_SECONDS_1_1, JOB_70B, RAIL_1024

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def _estimate(design):
    from planner.meaning import read_model

    job = read_model.job_parse(data=JOB_70B, design=design)
    found = read_model.design_meaning(design=design, job=job, with_alternatives=False,
                                      with_what_if=False)  # fmt: skip
    assert found.estimate is not None
    return found.estimate


@pytest.fixture
def design(engineer):
    load_seed_catalog()
    return services.design_create(owner=engineer, name="1,024 GPUs", request_data=RAIL_1024)


def test_the_design_page_loads_the_section_and_the_job_form_answers(client, engineer, design):
    client.force_login(engineer)
    page = client.get(reverse("planner:design-detail", args=[design.pk])).content.decode()
    url = reverse("planner:design-meaning", args=[design.pk])
    assert f'hx-get="{url}"' in page
    first = client.get(url, **HTMX).content.decode()
    # Before a job is stated the form holds the reference job (70B) and no estimate is shown.
    assert 'name="parameters" value="70B"' in first
    assert 'data-testid="step-seconds"' not in first
    assert 'data-testid="single-failures"' in first
    answer = client.get(url, {**JOB_70B}, **HTMX).content.decode()
    # The page shows NCCL's figures (engine.nccl), the service's own: their bandwidth parts are
    # the hand-worked 0.731086 s and, on the 3:1 leaf uplinks, 3 x that: 2.193257 s.
    est = _estimate(design)
    assert est.bandwidth_seconds_per_step == pytest.approx(GRADIENT_SECONDS_1_1, rel=1e-6)
    assert est.bandwidth_bound_seconds_per_step == pytest.approx(3 * GRADIENT_SECONDS_1_1)
    assert f'data-testid="step-seconds" data-value="{est.seconds_per_step:.6f}"' in answer
    assert f'data-testid="step-bound" data-value="{est.bound_seconds_per_step:.6f}"' in answer
    assert "<svg" in answer
    assert 'data-testid="meaning-chart"' in answer


def test_a_bad_job_is_explained_next_to_its_field(client, engineer, design):
    client.force_login(engineer)
    url = reverse("planner:design-meaning", args=[design.pk])
    answer = client.get(url, {**JOB_70B, "data_parallel": "100"}, **HTMX).content.decode()
    assert '<div class="field-errors" id="job-err-data_parallel"><p>' in answer
    assert "8 x 1 x 100 = 800, not the 1,024 GPUs" in answer
    assert 'id="job-data_parallel" name="data_parallel" value="100"' in answer
    # Without JavaScript the same URL is a page of its own.
    assert b"<html" in client.get(url, JOB_70B).content


def test_another_teams_design_is_not_found(client, design, roles):
    client.force_login(UserFactory(username="outsider", team_name="Team B"))
    assert client.get(reverse("planner:design-meaning", args=[design.pk])).status_code == 404


def test_the_api_answers_the_estimate_and_names_bad_fields(engineer, design):
    api = client_for(engineer)
    url = f"/api/v1/designs/{design.pk}/meaning/"
    body = api.post(url, JOB_70B, format="json").json()
    comms = body["comms"]
    assert comms["bandwidth_seconds_per_step"] == pytest.approx(GRADIENT_SECONDS_1_1, abs=1e-6)
    # The bound: every member of the ring on the 3:1 leaf uplinks.
    bound = comms["bandwidth_bound_seconds_per_step"]
    assert bound == pytest.approx(3 * GRADIENT_SECONDS_1_1, abs=1e-6)
    assert (
        comms["low_seconds_per_step"] < comms["seconds_per_step"] < comms["high_seconds_per_step"]
    )
    assert comms["collectives"][0]["algorithm"] in ("ring", "tree", "pat")
    assert body["comms"]["bottleneck_tier"] == "spine"
    assert body["options"][0]["is_design"] is True
    assert body["failures"]["network_per_month"] > 0
    # The same job as query parameters.
    query = api.get(url, {"parameters": "70B", "tensor_parallel": 8, "sharding": "optimizer"})
    assert query.json()["comms"]["seconds_per_step"] == body["comms"]["seconds_per_step"]
    bad = api.post(url, {**JOB_70B, "tensor_parallel": -2, "data_parallel": 100}, format="json")
    assert bad.status_code == 400
    assert bad["Content-Type"] == "application/problem+json"
    errors = bad.json()["errors"]
    assert errors["tensor_parallel"] == ["tensor_parallel must be between 1 and 1,000,000; got -2."]
    assert api.post(url, [1, 2], format="json").status_code == 400


def _size(*args: str) -> str:
    out = StringIO()
    call_command("size", *args, stdout=out)
    return out.getvalue()


REQUEST_ARGS = ("--gpus", "1024", "--gpus-per-server", "8", "--rails", "8", "--nic-speed", "400",
                "--fabric", "rail", "--leaf", "64x400", "--oversubscription", "3")  # fmt: skip


def test_size_with_a_job_adds_the_estimate(tmp_path):
    load_seed_catalog()
    job = tmp_path / "job.json"
    job.write_text(json.dumps(JOB_70B), encoding="utf-8")
    text = _size(*REQUEST_ARGS, "--job", str(job))
    data = json.loads(_size(*REQUEST_ARGS, "--job", str(job), "--format", "json"))
    comms = data["comms"]
    assert (
        f"Communication per step: {comms['seconds_per_step']:.4f} s in cabling order, at most "
        f"{comms['bound_seconds_per_step']:.4f} s with every member sharing the uplinks"
    ) in text
    # Of the job's stated 5 s of compute.
    share = comms["seconds_per_step"] / 5 * 100
    assert f"Share of compute time: {share:.1f} %" in text
    assert comms["bandwidth_seconds_per_step"] == pytest.approx(GRADIENT_SECONDS_1_1, abs=1e-6)
    bound = comms["bandwidth_bound_seconds_per_step"]
    assert bound == pytest.approx(3 * GRADIENT_SECONDS_1_1, abs=1e-6)
    assert data["servers"] == 128


def test_a_bad_job_file_is_one_line(tmp_path):
    load_seed_catalog()
    job = tmp_path / "job.json"
    job.write_text(json.dumps({**JOB_70B, "data_parallel": 100}), encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        _size(*REQUEST_ARGS, "--job", str(job))
    assert "\n" not in str(caught.value)
    assert "8 x 1 x 100 = 800" in str(caught.value)
    job.write_text("{not json", encoding="utf-8")
    with pytest.raises(CommandError, match="is not valid JSON"):
        _size(*REQUEST_ARGS, "--job", str(job))
