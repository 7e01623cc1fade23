"""Patch panels and MPO cassettes: a typed spec, loaded from the seed, in the engine's snapshot,
the admin's import/export, the API and the compatibility lists."""

from decimal import Decimal

import pytest
import tablib
from django.core.exceptions import ValidationError

from catalog.models import PatchPanelSpec, Product
from catalog.resources import PatchPanelSpecResource
from catalog.selectors import catalog_problems, catalog_snapshot, compatible_items
from catalog.services import CatalogDataError, catalog_load
from catalog.snapshot import snapshot_from_seed
from engine.catalog import Connector
from tests.catalog.conftest import seed_product
from tests.catalog.factories import PatchPanelSpecFactory, ProductFactory

SEED_PANELS = {"PP-1U-48-MPO12APC", "PP-1U-48-MPO12", "PP-1U-48-LC"}


def test_seed_panels_in_the_snapshot(seed_data):
    panels = {p.sku: p for p in snapshot_from_seed(seed_data).patch_panels}
    assert set(panels) == SEED_PANELS
    # NVIDIA structured-cabling requirements: MPO (APC) IL max 0.35 dB, LC IL max 0.25 dB.
    apc = panels["PP-1U-48-MPO12APC"]
    assert (apc.connector, apc.ports, apc.rack_units) == (Connector.MPO12_APC, 48, 1)
    assert apc.insertion_loss_db == 0.35
    upc = panels["PP-1U-48-MPO12"]
    assert (upc.connector, upc.ports, upc.rack_units) == (Connector.MPO12, 48, 1)
    lc = panels["PP-1U-48-LC"]
    assert (lc.connector, lc.ports, lc.rack_units, lc.insertion_loss_db) == (
        Connector.LC,
        48,
        1,
        0.25,
    )
    for panel in panels.values():
        entry = seed_product(seed_data, panel.sku)
        assert entry["source"], panel.sku
        assert panel.price is not None, panel.sku  # priced on the default list
        assert panel.fibre_type is None  # adapter panels take any fibre of their connector


def test_seed_panels_load_and_match_the_seed(seeded, seed_data):
    for sku in SEED_PANELS:
        spec = Product.objects.get(sku=sku).patch_panel_spec
        entry = seed_product(seed_data, sku)["spec"]
        assert spec.connector == entry["connector"]
        assert spec.ports == entry["ports"]
        assert spec.insertion_loss_db == Decimal(str(entry["insertion_loss_db"]))
    assert catalog_snapshot().patch_panels == snapshot_from_seed(seed_data).patch_panels
    assert catalog_problems() == []


@pytest.mark.slow
def test_panel_without_connector_rejects_the_load(db, seed):
    del seed_product(seed, "PP-1U-48-LC")["spec"]["connector"]
    with pytest.raises(CatalogDataError) as info:
        catalog_load(seed)
    assert any(e.startswith("PP-1U-48-LC") for e in info.value.errors), info.value.errors
    assert not Product.objects.exists()


def test_panel_loss_must_be_positive(db):
    panel = PatchPanelSpecFactory.build(
        product=ProductFactory(category="patch_panel"), insertion_loss_db=Decimal("0")
    )
    with pytest.raises(ValidationError) as info:
        panel.full_clean()
    assert "insertion_loss_db" in info.value.message_dict


def test_panel_spec_belongs_to_a_patch_panel(db):
    panel = PatchPanelSpecFactory.build(product=ProductFactory(category="fibre"))
    with pytest.raises(ValidationError) as info:
        panel.full_clean()
    assert "product" in info.value.message_dict


def test_panel_compatibility_follows_the_connector(seeded):
    apc = {c.product.sku for c in compatible_items(Product.objects.get(sku="PP-1U-48-MPO12APC"))}
    assert "MFP7E10-N030" in apc  # NVIDIA MPO-12/APC OM4
    assert "MFP7E30-N100" in apc  # NVIDIA MPO-12/APC OS2
    assert "EZMAX-MPO12-OM4-1M" not in apc  # UPC does not mate with APC
    upc = {c.product.sku for c in compatible_items(Product.objects.get(sku="PP-1U-48-MPO12"))}
    assert "EZMAX-MPO12-OM4-1M" in upc
    assert "MFP7E10-N030" not in upc
    cord = {c.product.sku for c in compatible_items(Product.objects.get(sku="LC-LC-OS2-10M"))}
    assert "PP-1U-48-LC" in cord


def test_panel_spec_export_import_round_trip(seeded):
    exported = PatchPanelSpecResource().export()
    assert len(exported) == PatchPanelSpec.objects.count() == len(SEED_PANELS)
    dataset = tablib.Dataset().load(exported.export("csv"), format="csv")
    result = PatchPanelSpecResource().import_data(dataset, dry_run=False)
    assert not result.has_errors()
    assert not result.has_validation_errors()
    assert result.totals["skip"] == len(dataset)


def test_panel_spec_import_creates_and_rejects_per_row(seeded):
    ProductFactory(sku="PP-TEST-1", category="patch_panel")
    ProductFactory(sku="PP-TEST-2", category="patch_panel")
    headers = ["sku", "connector", "ports", "rack_units", "insertion_loss_db", "fibre_type"]
    good = tablib.Dataset(headers=headers)
    good.append(["PP-TEST-1", "MPO-12/APC", 96, 1, "0.35", ""])
    result = PatchPanelSpecResource().import_data(good, dry_run=True)
    assert not result.has_errors()
    assert not result.has_validation_errors()
    assert not PatchPanelSpec.objects.filter(product__sku="PP-TEST-1").exists()  # dry run

    mixed = tablib.Dataset(headers=headers)
    mixed.append(["PP-TEST-1", "MPO-12/APC", 96, 1, "0.35", ""])
    mixed.append(["PP-TEST-2", "", 48, 1, "0.25", ""])  # no connector
    result = PatchPanelSpecResource().import_data(mixed, dry_run=False)
    (invalid,) = result.invalid_rows
    assert "connector" in invalid.field_specific_errors
    assert not PatchPanelSpec.objects.filter(product__sku__startswith="PP-TEST").exists()


def test_api_serializes_the_panel_spec(seeded, engineer_client):
    body = engineer_client.get("/api/v1/products/PP-1U-48-LC/").json()
    assert body["category"] == "patch_panel"
    assert body["patch_panel_spec"]["connector"] == "LC"
    assert body["patch_panel_spec"]["ports"] == 48
    assert body["cable_spec"] is None


def test_panel_page_renders_its_spec(seeded, engineer_client):
    html = engineer_client.get("/catalog/products/PP-1U-48-MPO12APC/").content.decode()
    assert "48 × MPO-12/APC" in html
    assert "0.35 dB" in html
