"""One language per output (issue 27, item 5): the BOM a sales engineer downloads from the pages,
as CSV or XLSX, reads in the language of the page: headings, planes, tiers, the "to be priced"
mark and the total line, with no raw key ("plane=compute", "tier=server-leaf",
"catalog_gap True"). The API's CSV keeps its keys: integrations parse them."""

import csv
import io
import re

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from planner import services

# 32 GPUs of 400G on a 64x400 leaf, with a 400G uplink: a BOM with compute lines on several
# tiers and a catalog gap or two (the seed sells no 64x400 inline switch).
REQUEST = {"gpus": 32, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}
RAW = re.compile(r"^(compute|storage|frontend|oob|server-leaf|leaf-spine|True|False|total)$")
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def design(catalog, engineer):
    return services.design_create(owner=engineer, name="Pod A", request_data=REQUEST)


def _check_rows(rows: list[list[str]], language: str) -> None:
    heading, *lines = rows
    if language == "zh-hans":
        assert heading[:3] == ["SKU", "描述", "数量"]
        assert "单价" in heading
        assert "待定价" in heading
        assert all(CJK.search(cell) for cell in heading[1:])  # every heading but "SKU"
        planes = {line[3] for line in lines if line[3]}
        assert planes
        assert all(CJK.search(p) for p in planes), planes
        assert lines[-1][0] == "合计"
    else:
        assert heading[:3] == ["SKU", "Description", "Quantity"]
        assert lines[-1][0] == "Total"
    for line in lines:
        raw = [cell for cell in line if RAW.match(cell)]
        assert not raw, (language, line)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_pages_bom_reads_in_the_pages_language(engineer_client, design, language):
    engineer_client.cookies["django_language"] = language
    body = engineer_client.get(reverse("planner:bom-csv", args=[design.pk])).content
    _check_rows(list(csv.reader(io.StringIO(body.decode("utf-8-sig")))), language)

    content = engineer_client.get(reverse("planner:bom-xlsx", args=[design.pk])).content
    workbook = load_workbook(io.BytesIO(content))
    sheet = workbook["BOM"]
    rows = [
        ["" if cell is None else str(cell) for cell in row]
        for row in sheet.iter_rows(min_row=2, values_only=True)
    ]
    _check_rows(rows, language)
    cabling_heading = [cell.value for cell in workbook["Cabling"][1]]
    if language == "zh-hans":
        assert all(CJK.search(str(cell)) for cell in cabling_heading), cabling_heading
    assert "a_device" not in cabling_heading


def test_the_apis_csv_keeps_the_keys_integrations_parse(engineer, design):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(engineer)
    body = client.get(f"/api/v1/designs/{design.pk}/bom.csv", HTTP_ACCEPT_LANGUAGE="zh-hans")
    heading = next(csv.reader(io.StringIO(body.content.decode("utf-8-sig"))))
    assert heading[:3] == ["sku", "description", "quantity"]
