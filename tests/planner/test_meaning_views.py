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
    # In cabling order 0.731086 s; with every member on the 3:1 leaf uplinks 2.193257 s.
    assert f'data-testid="step-seconds" data-value="{GRADIENT_SECONDS_1_1:.6f}"' in answer
    assert f'data-testid="step-bound" data-value="{3 * GRADIENT_SECONDS_1_1:.6f}"' in answer
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
    assert body["comms"]["seconds_per_step"] == pytest.approx(GRADIENT_SECONDS_1_1, abs=1e-6)
    # The bound: every member of the ring on the 3:1 leaf uplinks.
    bound = body["comms"]["bound_seconds_per_step"]
    assert bound == pytest.approx(3 * GRADIENT_SECONDS_1_1, abs=1e-6)
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
    assert (
        f"Communication per step: {GRADIENT_SECONDS_1_1:.4f} s in cabling order, at most "
        f"{3 * GRADIENT_SECONDS_1_1:.4f} s with every member sharing the uplinks"
    ) in text
    # 0.731 s of the job's stated 5 s of compute: 14.6 %.
    assert "Share of compute time: 14.6 %" in text
    data = json.loads(_size(*REQUEST_ARGS, "--job", str(job), "--format", "json"))
    assert data["comms"]["seconds_per_step"] == pytest.approx(GRADIENT_SECONDS_1_1, abs=1e-6)
    bound = data["comms"]["bound_seconds_per_step"]
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
