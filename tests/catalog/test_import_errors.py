"""Bad rows on catalog import: a copper or AOC assembly without one of its ends, or a fibre
without its connector, is a clear error on its row and field, in a dry run and in a real import,
and nothing of the import is saved."""

import json

import pytest
import tablib
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from catalog.models import CableSpec, Product
from catalog.resources import CableSpecResource
from catalog.services import CatalogDataError, catalog_load
from tests.catalog.conftest import seed_product

CSV_INDEX = "0"  # CatalogImportExportAdmin.import_formats

BAD_ROWS = [
    # (SKU, spec field emptied, the message CableSpec.clean gives)
    ("MCP4Y10-N001", "end_a", "Enter the A end's form factor."),  # copper DAC
    ("MCA4J80-N004", "end_b", "Enter the B end's form factor."),  # active copper
    ("AOC-D-D-400G-10M", "end_b", "Enter the B end's form factor."),  # AOC
    ("MFP7E10-N010", "connector", "A fibre cable needs its connector."),  # fibre trunk
    ("EZMAX-MPO12-OM4-1M", "connector", "A fibre cable needs its connector."),  # patch cord
]


# --- The seed loader (load_catalog) ---------------------------------------------------------


def _small_seed(seed, *skus):
    """The seed file cut down to a few products (and their prices), for quick loads."""
    return {
        **seed,
        "products": [p for p in seed["products"] if p["sku"] in skus],
        "price_lists": [
            {**pl, "prices": [r for r in pl["prices"] if r["sku"] in skus]}
            for pl in seed["price_lists"]
        ],
    }


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "real"])
@pytest.mark.parametrize(("sku", "field", "message"), BAD_ROWS)
def test_seed_row_without_an_end_or_connector(db, seed, sku, field, message, dry_run):
    data = _small_seed(seed, sku, "NETI710-4CP")
    assert catalog_load(data, dry_run=True).counts["products"]["created"] == 2  # valid as is
    seed_product(data, sku)["spec"][field] = None
    with pytest.raises(CatalogDataError) as info:
        catalog_load(data, dry_run=dry_run)
    # One clear error, on the row and field (not repeated for the product's prices).
    assert info.value.errors == [f"{sku}: {field}: {message}"]
    assert not Product.objects.exists()  # nothing half-saved, not even NETI710-4CP


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "real"])
def test_bad_row_on_reload_keeps_the_catalog_as_it_was(seeded, seed, dry_run):
    seed_product(seed, "NETI710-4CP")["name"]["en"] = "renamed in the same file"
    seed_product(seed, "MCP4Y10-N001")["spec"]["end_b"] = ""
    with pytest.raises(CatalogDataError) as info:
        catalog_load(seed, dry_run=dry_run)
    assert info.value.errors == ["MCP4Y10-N001: end_b: Enter the B end's form factor."]
    assert Product.objects.get(sku="NETI710-4CP").name_en != "renamed in the same file"
    assert CableSpec.objects.get(product__sku="MCP4Y10-N001").end_b == "OSFP"


@pytest.mark.slow
def test_dry_run_reports_and_saves_nothing(db, seed_data):
    result = catalog_load(seed_data, dry_run=True)
    assert result.counts["products"]["created"] == len(seed_data["products"])
    assert not Product.objects.exists()


@pytest.mark.slow
def test_load_catalog_dry_run_command(db, tmp_path, seed, capsys):
    call_command("load_catalog", "--dry-run")
    assert "nothing was saved" in capsys.readouterr().out
    assert not Product.objects.exists()

    seed_product(seed, "MFP7E30-N010")["spec"]["connector"] = ""
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(seed), encoding="utf-8")
    with pytest.raises(CommandError):
        call_command("load_catalog", str(bad), "--dry-run")
    assert "MFP7E30-N010: connector: A fibre cable needs its connector." in (
        capsys.readouterr().err
    )
    assert not Product.objects.exists()


# --- CSV / XLSX import of cable specifications (admin) --------------------------------------


def _cable_dataset(edits):
    """The exported cable specs with `edits` ({sku: {field: value}}) applied."""
    dataset = CableSpecResource().export()
    for index, sku in enumerate(dataset["sku"]):
        if sku in edits:
            row = dict(zip(dataset.headers, dataset[index], strict=True))
            row.update(edits[sku])
            dataset[index] = [row[h] for h in dataset.headers]
    return tablib.Dataset().load(dataset.export("csv"), format="csv")


def _specs():
    return {
        c.product.sku: (c.end_a, c.end_b, c.connector, c.length_m)
        for c in CableSpec.objects.select_related("product")
    }


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "real"])
def test_csv_rows_without_an_end_or_connector(seeded, dry_run):
    before = _specs()
    edits = {sku: {field: ""} for sku, field, _message in BAD_ROWS}
    edits["MCP4Y10-N002"] = {"length_m": "2.5"}  # a valid change in the same file
    result = CableSpecResource().import_data(_cable_dataset(edits), dry_run=dry_run)
    errors = {
        invalid.values[0]: {
            name: " ".join(str(m) for m in messages)
            for name, messages in invalid.field_specific_errors.items()
        }
        for invalid in result.invalid_rows
    }
    assert set(errors) == {sku for sku, _field, _message in BAD_ROWS}
    for sku, field, message in BAD_ROWS:
        assert errors[sku] == {field: message}, sku
    assert _specs() == before  # nothing saved, not even the valid row


def test_csv_cable_spec_round_trip(seeded):
    dataset = _cable_dataset({})
    result = CableSpecResource().import_data(dataset, dry_run=False)
    assert not result.has_errors()
    assert not result.has_validation_errors()
    assert result.totals["skip"] == len(dataset) == CableSpec.objects.count()


def test_admin_cable_spec_import_preview_shows_the_row_errors(seeded, client, catalog_manager):
    client.force_login(catalog_manager)
    before = _specs()
    content = _cable_dataset({"MCP4Y10-N001": {"end_a": ""}}).export("csv").encode()
    response = client.post(
        reverse("admin:catalog_cablespec_import"),
        {"format": CSV_INDEX, "import_file": SimpleUploadedFile("c.csv", content, "text/csv")},
    )
    assert response.status_code == 200
    result = response.context["result"]
    (invalid,) = result.invalid_rows
    assert "end_a" in invalid.field_specific_errors
    assert "confirm_form" not in response.context  # nothing to confirm while a row is wrong
    assert "Enter the A end&#x27;s form factor." in response.content.decode()
    assert _specs() == before
