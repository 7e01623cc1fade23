"""The BOM workbook as a job (issue 27, item 3): its cabling sheet runs to 100,000 rows, which
openpyxl took 22 s to write for the page (47 s at a million GPUs), so past
EXPORT_XLSX_SYNC_MAX_ROWS rows the page and the API answer 202 with an export job whose file is
the workbook the page writes under the cap, in the requester's language."""

import io

import pytest
from openpyxl import load_workbook
from rest_framework.test import APIClient

from planner.exports import files as exports
from planner.exports.jobs import export_rows_total, export_run
from planner.exports.models import ExportFormat, ExportJob
from planner.services import design_create
from tests.conftest import load_seed_catalog

SMALL = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}


@pytest.fixture
def design(db, engineer):
    load_seed_catalog()
    return design_create(owner=engineer, name="64 GPUs", request_data=SMALL)


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _sheets(data: bytes) -> dict[str, list[tuple]]:
    workbook = load_workbook(io.BytesIO(data), read_only=True)
    return {sheet.title: list(sheet.iter_rows(values_only=True)) for sheet in workbook}


def _stored(job: ExportJob) -> bytes:
    with job.file.open("rb") as stored:
        return stored.read()


def test_rows_are_the_bom_lines_and_the_cabling_sheet(design):
    bom, cables = len(design.result["bom"]), design.result["cables_total"]
    assert export_rows_total(design=design, format=ExportFormat.BOM_XLSX) == bom + cables
    sheets = _sheets(exports.design_bom_xlsx(design=design))
    assert len(sheets["Cabling"]) == 1 + cables  # a heading and one row per cable


def test_under_the_cap_the_workbook_is_the_answer(design, engineer, settings):
    settings.EXPORT_XLSX_SYNC_MAX_ROWS = export_rows_total(design=design, format="bom.xlsx")
    response = _api(engineer).get(f"/api/v1/designs/{design.pk}/bom.xlsx")
    assert response.status_code == 200
    assert response["Content-Type"] == exports_type()
    assert not ExportJob.objects.exists()


def exports_type() -> str:
    return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_over_the_cap_a_job_writes_the_same_workbook_in_the_readers_language(
    design, engineer, settings, language
):
    from django.utils.translation import override

    rows = export_rows_total(design=design, format=ExportFormat.BOM_XLSX)
    with override(language):
        expected = _sheets(exports.design_bom_xlsx(design=design))
    settings.EXPORT_XLSX_SYNC_MAX_ROWS = rows - 1  # one row over the cap
    api = _api(engineer)
    response = api.get(
        f"/api/v1/designs/{design.pk}/bom.xlsx", headers={"Accept-Language": language}
    )
    assert response.status_code == 202
    body = response.json()
    assert (body["format"], body["rows_total"]) == ("bom.xlsx", rows)
    job = export_run(job_id=body["id"])  # the worker's code, in this process
    assert job.status == "done", job.error
    assert (job.progress, job.language) == (100, language)
    assert _sheets(_stored(job)) == expected  # every cell of both sheets
    # The headings are the reader's: Chinese ones for a Chinese reader, English ones otherwise.
    with override(language):
        first = str(exports.BOM_HEADINGS[exports.BOM_COLUMNS[1]])  # "description"
    assert expected["BOM"][1][1] == first
    assert any("\u4e00" <= ch <= "\u9fff" for ch in first) == (language == "zh-hans")


def test_the_page_shows_a_progress_bar_over_the_cap(design, engineer, client, settings):
    settings.EXPORT_XLSX_SYNC_MAX_ROWS = 1
    client.force_login(engineer)
    response = client.get(f"/designs/{design.pk}/bom.xlsx")
    assert response.status_code == 202
    job = ExportJob.objects.get()
    assert job.format == ExportFormat.BOM_XLSX
    assert f"/designs/{design.pk}/exports/{job.pk}/" in response.content.decode()


def test_another_team_gets_404(design, other_engineer, client, settings):
    settings.EXPORT_XLSX_SYNC_MAX_ROWS = 1
    client.force_login(other_engineer)
    assert client.get(f"/designs/{design.pk}/bom.xlsx").status_code == 404
    assert _api(other_engineer).get(f"/api/v1/designs/{design.pk}/bom.xlsx").status_code == 404
    assert not ExportJob.objects.exists()
