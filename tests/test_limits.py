"""Bounded requests (issue 18, item 4): an export over EXPORT_SYNC_MAX_ROWS rows is a background
job written by a real worker to an immutable file; a smaller one streams the very same rows; the
design list carries summaries, never the stored request or result."""

import csv
import hashlib
import io
import time

import pytest
from django.core.files.storage import default_storage
from rest_framework.test import APIClient

from planner.exports.jobs import export_request, export_run, exports_sweep
from planner.exports.models import ExportFormat, ExportJob
from planner.services import design_create
from tests.conftest import load_seed_catalog
from tests.waiting import wait_until

SMALL = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}
# 16,384 GPUs on 64x400 rail leaves: 2,048 servers' 16,384 NIC cables plus the switch tiers'.
LARGE = {"gpus": 16_384, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


def streamed(response) -> bytes:
    assert response.streaming, "a small export streams"
    return b"".join(response.streaming_content)


# --- No worker ----------------------------------------------------------------------------------


@pytest.fixture
def seed(db):
    load_seed_catalog()


def test_small_export_streams_all_its_rows(seed, engineer):
    design = design_create(owner=engineer, name="small", request_data=SMALL)
    response = client_for(engineer).get(f"/api/v1/designs/{design.pk}/cabling.csv")
    assert response.status_code == 200
    assert len(csv_rows(streamed(response))) == design.result["cables_total"]
    assert not ExportJob.objects.exists()


def test_over_the_cap_is_202_with_a_job(
    seed, engineer, settings, django_capture_on_commit_callbacks
):
    design = design_create(owner=engineer, name="small", request_data=SMALL)
    cables = design.result["cables_total"]
    settings.EXPORT_SYNC_MAX_ROWS = cables - 1  # one row over the cap
    client = client_for(engineer)
    with django_capture_on_commit_callbacks() as sent:
        first = client.get(f"/api/v1/designs/{design.pk}/cabling.csv")
    assert first.status_code == 202
    body = first.json()
    assert body["status"] == "queued"
    assert body["rows_total"] == cables
    assert first["Location"] == body["links"]["self"]
    assert len(sent) == 1  # the task's message, sent when the row committed
    # Asking again is the same job, and no second message.
    with django_capture_on_commit_callbacks() as again:
        second = client.get(f"/api/v1/designs/{design.pk}/cabling.csv")
    assert second.status_code == 202
    assert second.json()["id"] == body["id"]
    assert len(again) == 0
    assert client.get(body["links"]["self"]).json()["status"] == "queued"
    assert client.get(body["links"]["download"]).status_code == 409  # not ready yet
    # At the cap exactly it streams.
    settings.EXPORT_SYNC_MAX_ROWS = cables
    assert client.get(f"/api/v1/designs/{design.pk}/cabling.csv").status_code == 200


def test_bom_over_the_cap_is_a_job_with_the_same_bytes(seed, engineer, settings):
    """The job run in process (the worker's code without the worker): the BOM's file is the very
    CSV the API streams under the cap."""
    design = design_create(owner=engineer, name="small", request_data=SMALL)
    client = client_for(engineer)
    small = client.get(f"/api/v1/designs/{design.pk}/bom.csv")
    assert small.status_code == 200
    settings.EXPORT_SYNC_MAX_ROWS = len(design.result["bom"]) - 1
    response = client.get(f"/api/v1/designs/{design.pk}/bom.csv")
    assert response.status_code == 202
    body = response.json()
    assert body["format"] == "bom.csv"
    job = export_run(job_id=body["id"])
    assert job.status == "done", job.error
    assert _downloaded(client, body) == small.content


def test_another_teams_export_job_is_404(seed, engineer, other_engineer, settings):
    design = design_create(owner=engineer, name="ours", request_data=SMALL)
    settings.EXPORT_SYNC_MAX_ROWS = 1
    job = export_request(user=engineer, design=design)
    theirs = client_for(other_engineer)
    assert theirs.get(f"/api/v1/designs/{design.pk}/exports/{job.pk}/").status_code == 404
    assert theirs.get(f"/api/v1/designs/{design.pk}/exports/{job.pk}/download/").status_code == 404
    other = design_create(owner=other_engineer, name="theirs", request_data=SMALL)
    # A job reached through another design's path is not found either.
    assert theirs.get(f"/api/v1/designs/{other.pk}/exports/{job.pk}/").status_code == 404


def test_list_carries_summaries_only(seed, engineer, django_assert_max_num_queries):
    design_create(owner=engineer, name="a", request_data=SMALL)
    design_create(owner=engineer, name="b", request_data=SMALL)
    response = client_for(engineer).get("/api/v1/designs/")
    assert response.status_code == 200
    results = response.json()["results"]
    assert len(results) == 2
    for row in results:
        assert "result" not in row
        assert "request" not in row
        assert row["gpus"] == 64
        assert row["links"]["self"].endswith(f"/{row['id']}/")
    detail = client_for(engineer).get(results[0]["links"]["self"]).json()
    assert detail["result"]["cables_total"] > 0  # the detail keeps the whole design


def test_page_over_the_cap_shows_a_progress_bar(seed, engineer_client, engineer, settings):
    design = design_create(owner=engineer, name="small", request_data=SMALL)
    settings.EXPORT_SYNC_MAX_ROWS = 1
    response = engineer_client.get(f"/designs/{design.pk}/cabling.csv")
    assert response.status_code == 202
    page = response.content.decode()
    assert "<progress" in page
    assert 'hx-trigger="every 1s"' in page
    job = ExportJob.objects.get()
    partial = engineer_client.get(
        f"/designs/{design.pk}/exports/{job.pk}/", headers={"HX-Request": "true"}
    )
    assert partial.status_code == 200
    assert "<html" not in partial.content.decode()
    settings.EXPORT_SYNC_MAX_ROWS = 100_000
    small = engineer_client.get(f"/designs/{design.pk}/cabling.csv")
    assert small.status_code == 200
    assert len(csv_rows(streamed(small))) == design.result["cables_total"]


# --- With a real worker -------------------------------------------------------------------------


@pytest.fixture
def seed_committed(transactional_db):
    load_seed_catalog()


def _done(job: ExportJob) -> ExportJob:
    job.refresh_from_db()
    return job


def _downloaded(client: APIClient, body: dict) -> bytes:
    response = client.get(body["links"]["download"])
    assert response.status_code == 200
    data = b"".join(response.streaming_content)
    assert hashlib.sha256(data).hexdigest() == response["X-Content-SHA256"]
    return data


@pytest.mark.slow
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_job_writes_the_same_rows_as_the_stream(
    seed_committed, engineer, engineer_client, settings, start_worker
):
    design = design_create(owner=engineer, name="small", request_data=SMALL)
    client = client_for(engineer)
    stream = streamed(client.get(f"/api/v1/designs/{design.pk}/cabling.csv"))
    settings.EXPORT_SYNC_MAX_ROWS = 1
    body = client.get(f"/api/v1/designs/{design.pk}/cabling.csv").json()
    job = ExportJob.objects.get(pk=body["id"])
    start_worker()
    assert wait_until(lambda: _done(job).status in ("done", "failed"), 120, every=0.5), job.status
    assert job.status == "done", job.error
    data = _downloaded(client, body)
    assert data == stream  # byte for byte: one writer, two ways to deliver it
    assert job.size_bytes == len(data)
    assert job.progress == 100
    assert default_storage.listdir("exports")[1] == [job.file.name.split("/")[-1]]
    # The page: the bar has become a download link, which serves the same bytes.
    partial = engineer_client.get(
        f"/designs/{design.pk}/exports/{job.pk}/", headers={"HX-Request": "true"}
    ).content.decode()
    assert 'data-testid="export-download"' in partial
    assert "hx-trigger" not in partial  # polling stops once done
    page = engineer_client.get(f"/designs/{design.pk}/exports/{job.pk}/download/")
    assert b"".join(page.streaming_content) == stream
    assert exports_sweep() == {"requeued": 0, "failed": 0}


@pytest.mark.slow
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_large_cabling_export_is_a_job_whose_bar_moves(
    seed_committed, engineer, settings, start_worker
):
    """A cabling schedule over the cap is queued, not streamed, and a real worker writes it with
    a bar that moves. The million-GPU schedule itself (2.8 M rows, about a minute of writing)
    is timed by `make bench` (bench/handover.py), not here: the job's code is the same at every
    size, and this size takes the worker a few seconds, long enough to watch the bar."""
    design = design_create(owner=engineer, name="16k", request_data=LARGE)
    cables = design.result["cables_total"]
    settings.EXPORT_SYNC_MAX_ROWS = cables - 1  # one row over the cap
    client = client_for(engineer)
    started = time.monotonic()
    response = client.get(f"/api/v1/designs/{design.pk}/cabling.csv")
    answered = time.monotonic() - started
    assert response.status_code == 202
    assert answered < 5  # the request only queues the job
    body = response.json()
    job = ExportJob.objects.get(pk=body["id"])
    assert job.format == ExportFormat.CABLING_CSV
    assert job.rows_total == cables
    start_worker()
    seen: set[int] = set()

    def finished() -> bool:
        seen.add(_done(job).progress)
        return job.status in ("done", "failed")

    assert wait_until(finished, 120, every=0.1), f"{job.status} at {job.progress}%"
    assert job.status == "done", job.error
    assert len(seen - {0, 100}) >= 2  # the bar moved in between
    data = _downloaded(client, body)
    lines = data.decode("utf-8-sig").splitlines()
    assert len(lines) == 1 + cables  # a header and one row per cable
