"""The cable-label sheet as an export job (issue 16 item 2): above LABELS_SYNC_MAX_CABLES cables
the handover page's "Cable labels (PDF)" link starts (or finds) a job that a worker renders with
a moving progress bar; the page then offers the download, whose bytes match their SHA-256 and
whose pages hold two labels a cable, 24 a page. The API reports and serves the same job."""

from __future__ import annotations

import hashlib
import io
import json
import time

import pytest
from pypdf import PdfReader
from rest_framework.test import APIClient

from planner.exports import jobs as export_jobs
from planner.exports.jobs import export_run
from planner.exports.models import ExportFormat, ExportJob
from planner.services import design_create
from tests.conftest import load_seed_catalog

# 64 GPUs = 8 servers x 8 rails on 64 x 400G leaves.
SMALL = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}
# bench.handover's design: 1,024 GPUs with storage and out-of-band planes (2,652 cables).
GPUS_1024 = {"gpus": 1024, "nic_speed": 400, "fabric": "rail", "leaf": "64x400",
             "storage": {"nic_speed": 200, "storage_nodes": 16}, "oob": {}}  # fmt: skip
LABELS_PER_PAGE = 24  # 3 columns x 8 rows of 70 x 37.125 mm on A4


def pages_for(cables: int) -> int:
    return -(-2 * cables // LABELS_PER_PAGE)  # two labels a cable, the last page part full


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def body_of(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"


# --- No worker: the job's code run in this process ----------------------------------------------


@pytest.fixture
def small(db, engineer):
    load_seed_catalog()
    return design_create(owner=engineer, name="pod", request_data=SMALL)


@pytest.mark.django_db
def test_a_small_sheet_comes_at_once(small, engineer_client):
    response = engineer_client.get(f"/designs/{small.pk}/handover/labels.pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert len(PdfReader(io.BytesIO(response.content)).pages) == pages_for(
        small.result["cables_total"]
    )
    assert not ExportJob.objects.exists()


@pytest.mark.slow
@pytest.mark.django_db
def test_over_the_cap_the_link_starts_one_job_and_its_page_shows_the_bar(
    small, engineer, engineer_client, settings
):
    settings.LABELS_SYNC_MAX_CABLES = small.result["cables_total"] - 1  # one cable over
    url = f"/designs/{small.pk}/handover/labels.pdf"
    first = engineer_client.get(url)
    assert first.status_code == 302
    job = ExportJob.objects.get()
    assert job.format == ExportFormat.LABELS_PDF
    assert job.rows_total == small.result["cables_total"]
    assert job.language == "en"
    assert first["Location"] == f"/designs/{small.pk}/exports/{job.pk}/"
    assert engineer_client.get(url)["Location"] == first["Location"]  # the same job again
    assert ExportJob.objects.count() == 1
    page = engineer_client.get(first["Location"]).content.decode()
    assert "<progress" in page
    assert 'hx-trigger="every 1s"' in page
    assert "The label sheet is being rendered in the background." in page
    # The API reports the job; its file is not there yet.
    api = client_for(engineer)
    status = api.get(f"/api/v1/designs/{small.pk}/exports/{job.pk}/").json()
    assert (status["format"], status["status"]) == ("labels.pdf", "queued")
    assert api.get(status["links"]["download"]).status_code == 409

    done = export_run(job_id=job.pk)
    assert done.status == "done", done.error
    assert done.progress == 100
    partial = engineer_client.get(
        f"/designs/{small.pk}/exports/{job.pk}/", headers={"HX-Request": "true"}
    ).content.decode()
    assert 'data-testid="export-download"' in partial
    download = engineer_client.get(f"/designs/{small.pk}/exports/{job.pk}/download/")
    assert download["Content-Type"] == "application/pdf"
    assert f'filename="design-{small.pk}-labels.pdf"' in download["Content-Disposition"]
    data = body_of(download)
    assert hashlib.sha256(data).hexdigest() == done.sha256 == download["X-Content-SHA256"]
    # The job's sheet is the page's own: the same pages as the synchronous render.
    settings.LABELS_SYNC_MAX_CABLES = 10_000
    at_once = engineer_client.get(url).content
    job_pdf, sync_pdf = PdfReader(io.BytesIO(data)), PdfReader(io.BytesIO(at_once))
    assert len(job_pdf.pages) == len(sync_pdf.pages) == pages_for(small.result["cables_total"])
    for mine, theirs in zip(job_pdf.pages, sync_pdf.pages, strict=True):
        assert mine.extract_text() == theirs.extract_text()
    via_api = api.get(status["links"]["download"])
    assert via_api["Content-Type"] == "application/pdf"
    assert body_of(via_api) == data


@pytest.mark.django_db
def test_the_sheet_is_in_the_requesters_language(small, engineer_client, settings):
    settings.LABELS_SYNC_MAX_CABLES = 0
    engineer_client.get(
        f"/designs/{small.pk}/handover/labels.pdf", headers={"Accept-Language": "zh-hans"}
    )
    job = ExportJob.objects.get()
    assert job.language == "zh-hans"
    done = export_run(job_id=job.pk)
    assert done.status == "done", done.error
    with done.file.open("rb") as stored:
        first = PdfReader(stored).pages[0].extract_text()
    assert "本端" in first  # "This end" in Chinese
    assert "This end" not in first


@pytest.mark.django_db
def test_a_sheet_past_the_workers_bound_points_to_the_csv(
    small, engineer_client, settings, monkeypatch
):
    cables = small.result["cables_total"]
    settings.LABELS_SYNC_MAX_CABLES = 0
    # The bound (4,000 cables) made this design's size minus one, to avoid a 1,600-GPU design.
    monkeypatch.setattr(export_jobs, "LABELS_JOB_MAX_CABLES", cables - 1)
    response = engineer_client.get(f"/designs/{small.pk}/handover/labels.pdf", follow=True)
    assert response.redirect_chain[-1][0] == f"/designs/{small.pk}/handover/"
    assert f"This design has {cables:,} cables, too many for one label sheet" in (
        response.content.decode()
    )
    assert not ExportJob.objects.exists()


# --- Over the API: GET /api/v1/designs/{id}/labels.pdf -------------------------------------------


@pytest.mark.django_db
def test_api_sends_a_small_sheet_at_once(small, engineer):
    response = client_for(engineer).get(f"/api/v1/designs/{small.pk}/labels.pdf")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/pdf"
    assert f'filename="design-{small.pk}-labels.pdf"' in response["Content-Disposition"]
    pdf = PdfReader(io.BytesIO(response.content))
    assert len(pdf.pages) == pages_for(small.result["cables_total"])
    assert "This end" in pdf.pages[0].extract_text()
    assert not ExportJob.objects.exists()  # nothing queued for a sheet sent at once


@pytest.mark.django_db
def test_api_answers_a_large_sheet_with_its_job_and_serves_the_pdf_when_done(
    small, engineer, settings
):
    settings.LABELS_SYNC_MAX_CABLES = small.result["cables_total"] - 1  # one cable over
    api = client_for(engineer)
    url = f"/api/v1/designs/{small.pk}/labels.pdf"
    first = api.get(url)
    assert first.status_code == 202, first.content
    job = ExportJob.objects.get()
    body = first.json()
    assert (body["id"], body["format"], body["status"]) == (job.pk, "labels.pdf", "queued")
    assert first["Location"] == body["links"]["self"]
    assert body["links"]["self"] == f"/api/v1/designs/{small.pk}/exports/{job.pk}/"
    assert api.get(url).json()["id"] == job.pk  # asking again: the same job
    assert ExportJob.objects.count() == 1
    assert api.get(body["links"]["download"]).status_code == 409  # not rendered yet

    done = export_run(job_id=job.pk)
    assert done.status == "done", done.error
    status = api.get(first["Location"]).json()
    assert (status["status"], status["progress"]) == ("done", 100)
    download = api.get(status["links"]["download"])
    assert download.status_code == 200
    assert download["Content-Type"] == "application/pdf"
    data = body_of(download)
    assert hashlib.sha256(data).hexdigest() == status["sha256"]
    assert len(PdfReader(io.BytesIO(data)).pages) == pages_for(small.result["cables_total"])


@pytest.mark.django_db
def test_api_labels_need_credentials_and_hide_another_teams_design(small, engineer, other_engineer):
    url = f"/api/v1/designs/{small.pk}/labels.pdf"
    anonymous = APIClient().get(url)
    assert anonymous.status_code == 401
    assert anonymous["Content-Type"] == "application/problem+json"
    outsider = client_for(other_engineer).get(url)
    assert outsider.status_code == 404
    assert outsider["Content-Type"] == "application/problem+json"
    assert not ExportJob.objects.exists()


@pytest.mark.django_db
def test_api_labels_past_the_workers_bound_are_a_409(small, engineer, settings, monkeypatch):
    cables = small.result["cables_total"]
    settings.LABELS_SYNC_MAX_CABLES = 0
    monkeypatch.setattr(export_jobs, "LABELS_JOB_MAX_CABLES", cables - 1)
    response = client_for(engineer).get(f"/api/v1/designs/{small.pk}/labels.pdf")
    assert response.status_code == 409
    assert response.json()["code"] == "label_sheet_too_large"
    assert not ExportJob.objects.exists()


# --- With a real worker -------------------------------------------------------------------------


@pytest.fixture
def seed_committed(transactional_db):
    load_seed_catalog()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_renders_1024_gpus_of_labels_with_a_moving_bar(
    seed_committed, engineer, engineer_client, start_worker
):
    design = design_create(owner=engineer, name="1k", request_data=GPUS_1024)
    cables = design.result["cables_total"]
    assert cables == 2652  # bench.handover's count; over the default 300-cable cap
    started = time.monotonic()
    response = engineer_client.get(f"/designs/{design.pk}/handover/labels.pdf")
    assert time.monotonic() - started < 5  # the request only queues the job
    assert response.status_code == 302
    job = ExportJob.objects.get()
    worker = start_worker()
    seen: list[int] = []

    def finished() -> bool:
        job.refresh_from_db()
        seen.append(job.progress)
        return job.status in ("done", "failed")

    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not finished():
        time.sleep(0.5)
    assert job.status == "done", f"{job.status} at {job.progress}%: {job.error}"
    rendered_s = (job.finished_at - job.started_at).total_seconds()
    print(f"\n{cables:,} cables, {2 * cables:,} labels: the worker took {rendered_s:.1f} s")
    # The worker's own measure of the render, wall and CPU (its log, a JSON line per event).
    logged = [
        json.loads(line)["message"]
        for line in worker.log_path.read_text().splitlines()
        if f"export {job.pk}: label sheet of {cables} cables" in line
    ]
    assert logged, "the worker logs the render's times"
    print(logged[-1])
    # 2,652 cables in batches of 240 (20 pages): 12 reports on the way, each one higher.
    moving = [p for p in seen if 0 < p < 100]
    assert len(set(moving)) >= 3, seen
    assert moving == sorted(moving)
    assert rendered_s < 240

    api = client_for(engineer)
    status = api.get(f"/api/v1/designs/{design.pk}/exports/{job.pk}/").json()
    assert (status["status"], status["progress"]) == ("done", 100)
    download = api.get(status["links"]["download"])
    assert download.status_code == 200
    data = body_of(download)
    assert hashlib.sha256(data).hexdigest() == job.sha256 == status["sha256"]
    assert len(data) == job.size_bytes
    pdf = PdfReader(io.BytesIO(data))
    assert len(pdf.pages) == pages_for(cables) == 221  # 5,304 labels / 24 = 221 pages
    # The last cable's two labels close the sheet: 5,304 = 221 x 24 exactly, so the last page
    # is full.
    assert pdf.pages[-1].extract_text().count("This end") == LABELS_PER_PAGE
