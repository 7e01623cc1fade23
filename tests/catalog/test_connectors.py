"""MPO-12/APC (angled polish) is its own connector: NVIDIA NDR-class modules and fibres take it,
the EZMAX MPO-12 cords stay UPC for 100G/200G SR4, and the two never pass as compatible."""

import pytest
from django.core.exceptions import ValidationError

from catalog.models import Product
from catalog.selectors import catalog_snapshot, compatible_items
from catalog.snapshot import snapshot_from_seed
from engine.catalog import Connector
from tests.catalog.factories import CableSpecFactory, ProductFactory, TransceiverSpecFactory

# NVIDIA sells its NDR-class twin-port and single-port modules and MFP7E10 / MFP7E30 fibres
# with MPO-12/APC connectors (NVIDIA LinkX product specifications, e.g. MMA4Z00-NS400: "a single,
# 4-channel MPO-12/APC optical connector ... not compatible with UPC").
NVIDIA_APC_MODULES = ("MMA4Z00-NS", "MMA4Z00-NS400", "MMS4X00-NS", "MMS4X00-NS400")


def test_seed_connectors(seed_data):
    items = snapshot_from_seed(seed_data).by_sku()
    for sku in NVIDIA_APC_MODULES:
        assert items[sku].connector is Connector.MPO12_APC, sku
    fibres = [c for c in snapshot_from_seed(seed_data).cables if c.sku.startswith("MFP7E")]
    assert fibres
    assert all(c.connector is Connector.MPO12_APC for c in fibres)
    # 100G / 200G SR4 modules and EZMAX's MPO-12 cords are UPC (plain "MPO-12").
    for sku in ("MMA1B00-C100D", "MMA1T00-VS", "EZMAX-QSFP28-100G-SR4"):
        assert items[sku].connector is Connector.MPO12, sku
    ezmax = [c for c in snapshot_from_seed(seed_data).cables if c.sku.startswith("EZMAX-MPO12")]
    assert ezmax
    assert all(c.connector is Connector.MPO12 for c in ezmax)


def test_apc_round_trips_through_the_loader(seeded, seed_data):
    product = Product.objects.get(sku="MMA4Z00-NS")
    assert product.transceiver_spec.connector == "MPO-12/APC"
    assert Product.objects.get(sku="MFP7E10-N050").cable_spec.connector == "MPO-12/APC"
    from_db = catalog_snapshot().by_sku()
    assert from_db["MMA4Z00-NS"].connector is Connector.MPO12_APC
    assert from_db == snapshot_from_seed(seed_data).by_sku()


def test_apc_fibre_fits_apc_modules_only(seeded):
    twin = {c.product.sku for c in compatible_items(Product.objects.get(sku="MMA4Z00-NS"))}
    assert "MFP7E10-N010" in twin
    assert not any(sku.startswith("EZMAX-MPO12-OM4-") for sku in twin)  # UPC does not mate
    sr4 = {c.product.sku for c in compatible_items(Product.objects.get(sku="MMA1B00-C100D"))}
    assert "EZMAX-MPO12-OM4-10M" in sr4
    assert "MFP7E10-N010" not in sr4


def test_apc_is_a_valid_choice_for_modules_and_cables(db):
    module = TransceiverSpecFactory.build(
        product=ProductFactory(category="transceiver"),
        form_factor="OSFP",
        speed_gbps=400,
        standard="400GBASE-SR4",
        connector="MPO-12/APC",
    )
    module.full_clean()
    cable = CableSpecFactory.build(
        product=ProductFactory(category="fibre"),
        kind="trunk",
        media="mmf",
        end_a="",
        end_b="",
        speed_gbps=0,
        fibre_type="OM4",
        connector="MPO-12/APC",
        strands=12,
    )
    cable.full_clean()
    cable.connector = "MPO-12/PC"
    with pytest.raises(ValidationError) as info:
        cable.full_clean()
    assert "connector" in info.value.message_dict


def _splitter(**kw):
    values = {
        "product": ProductFactory(category="fibre"), "kind": "splitter", "media": "smf",
        "end_a": "", "end_b": "", "speed_gbps": 0, "fibre_type": "OS2",
        "connector": "MPO-12/APC", "leg_connector": "LC", "breakout_ways": 4, "strands": 8,
        "length_m": 10,
    }  # fmt: skip
    values.update(kw)
    return CableSpecFactory(**values)


def test_a_splitter_is_fibre_with_legs(db):
    _splitter().full_clean()
    # A splitter of one leg, or a plain cord with legs, says which field is wrong.
    for bad in ({"breakout_ways": 1}, {"kind": "patch_cord"}):
        with pytest.raises(ValidationError) as info:
            _splitter(**bad).full_clean()
        assert "breakout_ways" in info.value.message_dict
    copper = CableSpecFactory.build(
        product=ProductFactory(category="copper_cable"), kind="splitter"
    )
    with pytest.raises(ValidationError) as info:
        copper.full_clean()
    assert "kind" in info.value.message_dict


def test_a_splitter_reaches_the_engine_and_fits_modules_at_both_ends(seeded):
    spec = _splitter()
    engine_spec = catalog_snapshot().by_sku()[spec.product.sku]
    assert engine_spec.leg_connector is Connector.LC
    assert engine_spec.breakout_ways == 4
    fits = {c.product.sku: c.reason for c in compatible_items(spec.product)}
    # Arista QDD-400G-DR4 takes the MPO-12/APC end; NVIDIA MMS1V70-CM (100G-DR, LC) a leg.
    assert "QDD-400G-DR4" in fits
    assert "MMS1V70-CM" in fits
    assert str(fits["MMS1V70-CM"]).startswith("breakout leg")
