"""Saved means frozen, in the services and every export (issue 24, item 4).

A saved design's exports (pages, handover files, API downloads, the export job's file) stay what
they were after the catalog re-prices and retires a part it uses; the services refuse to change
a saved design whoever calls them, and a draft only by its author; re-deriving a saved design's
engine design (cabling, racks, labels) is refused when it no longer gives the stored result, or
the stored result names another engine version. Real seed catalog in the database."""

from __future__ import annotations

import io
import zipfile
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader
from rest_framework.test import APIClient

from catalog.models import LifecycleChoices, Price, Product
from engine.cabling import iter_cabling
from engine.version import ENGINE_VERSION
from planner import resize, services
from planner.exports import jobs as export_jobs
from planner.exports.models import ExportFormat
from planner.models import Design
from planner.selectors import DesignNotFound, current_catalog
from tests.conftest import load_seed_catalog

# 64 GPUs = 8 servers x 8 rails on 64 x 400G leaves: the 64 server links take the seed's 10 m
# 400G AOC at 6,200.00 CNY (its cheapest medium for the run), the part the tester re-priced.
REQUEST = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
           "leaf": "64x400"}  # fmt: skip
CABLE = "AOC-D-D-400G-10M"
OLD_PRICE, NEW_PRICE = Decimal("6200.00"), Decimal("9300.00")

# Every download of one design: the design pages', the handover page's and the API's.
PAGE_EXPORTS = (
    "bom-csv", "bom-xlsx", "cabling-csv", "request-json", "handover-racks-svg",
    "handover-racks-xlsx", "handover-labels-pdf", "handover-labels-csv", "handover-netbox",
    "handover-containerlab", "handover-slurm", "handover-cabling-json",
)  # fmt: skip
API_EXPORTS = ("", "bom.csv", "bom.xlsx", "cabling.csv", "labels.pdf")


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"


@pytest.fixture
def saved(db, engineer):
    load_seed_catalog()
    return services.design_create(owner=engineer, name="Pod A", request_data=REQUEST)


def _reprice_and_retire(sku: str, amount: Decimal, capture) -> None:
    """The catalog manager's change, saved as the catalog's models save it; the catalog-changed
    signal runs on commit, as in production."""
    product = Product.objects.get(sku=sku)
    price = Price.objects.get(product=product, price_list__is_default=True)
    with capture(execute=True):
        price.amount = amount
        price.save()
        product.lifecycle = LifecycleChoices.END_OF_SALE
        product.save()


def _body(response) -> bytes:
    assert response.status_code == 200, (response.status_code, getattr(response, "content", b""))
    if response.streaming:
        return b"".join(response.streaming_content)
    return bytes(response.content)


def _comparable(name: str, body: bytes) -> Any:
    """What must not change in a download. XLSX and ZIP files carry the time they were written
    in their zip entries (and the XLSX in its properties): their cells and members are compared.
    A PDF carries its creation time: its pages' text is compared (every label's cable id, ends,
    length and part). Everything else byte for byte."""
    if name.endswith("pdf"):
        pages = PdfReader(io.BytesIO(body)).pages
        return [page.extract_text() for page in pages]
    if name.endswith("xlsx"):
        workbook = load_workbook(io.BytesIO(body))
        return {
            sheet.title: [list(row) for row in sheet.iter_rows(values_only=True)]
            for sheet in workbook.worksheets
        }
    if name.endswith("netbox"):
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            return {member: archive.read(member) for member in archive.namelist()}
    return body


def _downloads(design: Design, client, api: APIClient) -> dict[str, Any]:
    files = {}
    for name in PAGE_EXPORTS:
        response = client.get(reverse(f"planner:{name}", args=[design.pk]))
        files[name] = _comparable(name, _body(response))
    for path in API_EXPORTS:
        response = api.get(f"/api/v1/designs/{design.pk}/{path}")
        files[f"api {path}"] = _comparable(path, _body(response))
    # What a background export job writes (the same text, made by the worker).
    for format in (ExportFormat.BOM_CSV, ExportFormat.CABLING_CSV):
        files[f"job {format}"] = "".join(export_jobs.export_chunks(design=design, format=format))
    return files


@pytest.mark.slow  # every export twice, the PDFs included
@pytest.mark.django_db
def test_every_export_is_unchanged_after_the_catalog_reprices_and_retires_a_part(
    saved, engineer, client, django_capture_on_commit_callbacks
):
    result = saved.typed_result
    assert result is not None
    quantity = sum(line.quantity for line in result.bom if line.sku == CABLE)
    assert quantity == 64
    assert services.design_prices(design=saved).prices[CABLE] == OLD_PRICE
    client.force_login(engineer)
    api = APIClient()
    api.force_authenticate(engineer)
    before = _downloads(saved, client, api)
    # The BOM carries the saved price: 64 x 6,200.00 on the cable's line.
    assert f"{CABLE}".encode() in before["bom-csv"]
    assert str(OLD_PRICE * quantity).encode() in before["bom-csv"]

    _reprice_and_retire(CABLE, NEW_PRICE, django_capture_on_commit_callbacks)
    # The change is real: today's catalog no longer sells the cable, its list price is new.
    assert CABLE not in current_catalog().by_sku()
    assert Price.objects.get(product__sku=CABLE, price_list__is_default=True).amount == NEW_PRICE

    saved = Design.objects.get(pk=saved.pk)
    after = _downloads(saved, client, api)
    assert after.keys() == before.keys()
    changed = [name for name in before if after[name] != before[name]]
    assert changed == []
    assert str(NEW_PRICE * quantity).encode() not in after["bom-csv"]


# --- the services refuse to change a saved design ---------------------------------------------


def _row(design: Design) -> dict[str, Any]:
    return Design.objects.filter(pk=design.pk).values().get()


@pytest.mark.django_db
def test_every_write_refuses_a_saved_design_and_leaves_its_row_as_it_was(saved, engineer):
    stored = _row(saved)
    bigger = {**REQUEST, "gpus": 128}
    with pytest.raises(services.DesignFrozen) as refused:
        services.design_finalize(design=saved)
    assert refused.value.http_status == 409
    assert "re-size with today's catalog" in refused.value.message
    with pytest.raises(services.DesignFrozen):
        services.design_save_draft(owner=engineer, request_data=bigger, name="B", design=saved)
    # The stored row decides, not the caller's copy: one that says "draft" changes nothing.
    stale = Design.objects.get(pk=saved.pk)
    stale.is_draft = True
    with pytest.raises(services.DesignFrozen):
        services.design_save_draft(owner=engineer, request_data=bigger, design=stale)
    with pytest.raises(services.DesignFrozen):
        services.design_finalize(design=stale)
    assert _row(saved) == stored

    # What may be done with a saved design makes new rows and leaves this one alone.
    copy = services.design_copy(design=saved, owner=engineer)
    resized = resize.design_resize(design=saved, owner=engineer)
    list(services.design_cabling(design=saved))
    services.design_prices(design=saved)
    assert {copy.pk, resized.pk}.isdisjoint({saved.pk})
    assert (copy.is_draft, copy.copied_from_id) == (True, saved.pk)
    assert (resized.version, resized.copied_from_id) == (2, saved.pk)
    assert _row(saved) == stored


@pytest.mark.django_db
def test_a_draft_is_saved_again_and_finalized_only_once(saved, engineer):
    draft = services.design_save_draft(owner=engineer, request_data=REQUEST, name="Draft")
    draft = services.design_save_draft(
        owner=engineer, request_data={**REQUEST, "gpus": 128}, name="Draft", design=draft
    )
    assert (draft.is_draft, draft.gpus) == (True, 128)
    services.design_finalize(design=draft)
    stored = _row(draft)
    assert stored["is_draft"] is False
    assert stored["result"]["engine_version"] == ENGINE_VERSION
    with pytest.raises(services.DesignFrozen):
        services.design_finalize(design=draft)
    assert _row(draft) == stored


@pytest.mark.django_db
def test_another_users_draft_is_refused_by_the_service(saved, engineer, teammate, other_engineer):
    draft = services.design_save_draft(owner=engineer, request_data=REQUEST, name="Mine")
    stored = _row(draft)
    # A teammate sees it, but it is not theirs to change (they copy it).
    with pytest.raises(services.DesignNotYours) as refused:
        services.design_save_draft(
            owner=teammate, request_data={**REQUEST, "gpus": 8}, name="Theirs", design=draft
        )
    assert refused.value.http_status == 403
    # Another team does not even learn that it exists.
    with pytest.raises(DesignNotFound):
        services.design_save_draft(owner=other_engineer, request_data=REQUEST, design=draft)
    assert _row(draft) == stored


# --- re-deriving a saved design checks the engine ---------------------------------------------


@pytest.mark.django_db
def test_a_design_whose_stored_result_was_changed_is_not_derived_again(saved, engineer, client):
    engine = services.design_engine(design=saved)  # as saved: derived
    assert list(iter_cabling(engine))
    tampered = {**saved.result, "cables_total": saved.result["cables_total"] + 1}
    Design.objects.filter(pk=saved.pk).update(result=tampered)
    saved.refresh_from_db()
    with pytest.raises(services.DesignEngineChanged) as refused:
        services.design_engine(design=saved)
    assert refused.value.http_status == 409
    assert "re-size with today's catalog" in refused.value.message
    with pytest.raises(services.DesignEngineChanged):
        services.design_cabling(design=saved)

    # The pages say why, on the design page; the API answers 409 in words.
    client.force_login(engineer)
    response = client.get(reverse("planner:handover-netbox", args=[saved.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("planner:design-detail", args=[saved.pk])
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert "re-size with today" in page.content.decode()
    api = APIClient()
    api.force_authenticate(engineer)
    response = api.get(f"/api/v1/designs/{saved.pk}/cabling.csv")
    assert response.status_code == 409
    assert response.json()["code"] == "design_engine_changed"


@pytest.mark.django_db
def test_a_design_sized_by_another_engine_version_is_not_derived_again(saved):
    assert saved.result["engine_version"] == ENGINE_VERSION
    Design.objects.filter(pk=saved.pk).update(result={**saved.result, "engine_version": "0"})
    saved.refresh_from_db()
    with pytest.raises(services.DesignEngineChanged) as refused:
        services.design_engine(design=saved)
    assert "version 0 of the planner's engine" in refused.value.message
    # Also when a quote asks with its own frozen request: the design's engine is what counts.
    with pytest.raises(services.DesignEngineChanged):
        services.design_engine(design=saved, request_data=saved.request)


@pytest.mark.django_db
def test_a_result_stored_before_engine_versions_is_checked_by_its_content(saved):
    legacy = {k: v for k, v in saved.result.items() if k != "engine_version"}
    Design.objects.filter(pk=saved.pk).update(result=legacy)
    saved.refresh_from_db()
    assert list(iter_cabling(services.design_engine(design=saved)))
    Design.objects.filter(pk=saved.pk).update(result={**legacy, "racks": legacy["racks"] + 1})
    saved.refresh_from_db()
    with pytest.raises(services.DesignEngineChanged):
        services.design_engine(design=saved)


@pytest.mark.django_db
def test_a_quotes_frozen_result_is_checked_when_given(saved):
    """What quotes/pdf.py passes: the quote's frozen request, snapshot and result."""
    assert saved.sizing_snapshot is not None
    frozen = dict(saved.result)
    engine = services.sizing_snapshot_engine(
        snapshot=saved.sizing_snapshot, request_data=saved.request, expected_result=frozen
    )
    assert engine.cables_total == frozen["cables_total"]
    for changed in ({**frozen, "power_w": frozen["power_w"] + 1},
                    {**frozen, "engine_version": "0"}):  # fmt: skip
        with pytest.raises(services.DesignEngineChanged):
            services.sizing_snapshot_engine(
                snapshot=saved.sizing_snapshot, request_data=saved.request, expected_result=changed
            )
        with pytest.raises(services.DesignEngineChanged):
            services.design_engine(
                design=saved, request_data=saved.request, expected_result=changed
            )
