"""The seed loader: idempotent upserts, per-SKU errors, all-or-nothing."""

import pytest
from django.core.management import CommandError, call_command

from catalog.models import MediaRule, Price, PriceTier, Product, TransceiverReach
from catalog.services import CatalogDataError, catalog_load
from tests.catalog.conftest import seed_product


def _history_rows():
    return (
        Product.history.count()
        + Price.history.count()
        + TransceiverReach.history.count()
        + MediaRule.history.count()
    )


@pytest.mark.slow
def test_load_catalog_twice_changes_nothing(db, seed_data, capsys):
    call_command("load_catalog")
    first = capsys.readouterr().out
    assert f"products: {len(seed_data['products'])} created" in first
    counts = (Product.objects.count(), Price.objects.count(), PriceTier.objects.count())
    history = _history_rows()

    call_command("load_catalog")
    second = capsys.readouterr().out
    assert f"products: 0 created, 0 updated, {len(seed_data['products'])} unchanged" in second
    assert "(no changes)" in second
    assert (Product.objects.count(), Price.objects.count(), PriceTier.objects.count()) == counts
    assert _history_rows() == history  # no save at all on the second run


def test_load_updates_by_sku_and_records_history_with_user(seeded, seed, catalog_manager):
    seed_product(seed, "NETI710-4CP")["name"]["en"] = "EZMAX NETI710-4CP (renamed)"
    result = catalog_load(seed, user=catalog_manager)
    assert result.counts["products"]["updated"] == 1
    product = Product.objects.get(sku="NETI710-4CP")
    assert product.name_en == "EZMAX NETI710-4CP (renamed)"
    latest = product.history.first()
    assert latest.history_type == "~"
    assert latest.history_user == catalog_manager


def test_removed_breakout_is_deleted_on_reload(seeded, seed):
    group = seed_product(seed, "MSN5600-VS2FC")["spec"]["port_groups"][0]
    group["breakouts"] = [b for b in group["breakouts"] if b["ways"] != 8]
    result = catalog_load(seed)
    assert result.counts["breakouts"]["deleted"] == 1


def _assert_nothing_loaded():
    assert Product.objects.count() == 0
    assert Price.objects.count() == 0
    assert MediaRule.objects.count() == 0


@pytest.mark.slow
def test_negative_price_rejects_the_whole_load(db, seed):
    seed["price_lists"][0]["prices"][0]["amount"] = "-1.00"
    sku = seed["price_lists"][0]["prices"][0]["sku"]
    with pytest.raises(CatalogDataError) as info:
        catalog_load(seed)
    assert any(sku in e and "amount" in e for e in info.value.errors), info.value.errors
    _assert_nothing_loaded()


@pytest.mark.slow
def test_zero_reach_is_an_error_on_the_reach_field(db, seed):
    seed_product(seed, "EZMAX-SFP28-25G-SR")["spec"]["reaches"]["OM4"] = 0
    with pytest.raises(CatalogDataError) as info:
        catalog_load(seed)
    assert any(e.startswith("EZMAX-SFP28-25G-SR") and "reach_m" in e for e in info.value.errors), (
        info.value.errors
    )
    _assert_nothing_loaded()


@pytest.mark.slow
def test_breakout_that_does_not_divide_the_port_is_rejected(db, seed):
    # 3 x 200G = 600G is not an 800G port; 800 = 2 x 400 would be fine.
    group = seed_product(seed, "MSN5600-VS2FC")["spec"]["port_groups"][0]
    group["breakouts"].append({"ways": 3, "speed_gbps": 200})
    with pytest.raises(CatalogDataError) as info:
        catalog_load(seed)
    message = next(e for e in info.value.errors if e.startswith("MSN5600-VS2FC"))
    assert "3 x 200G = 600G" in message
    assert "800G" in message
    _assert_nothing_loaded()


@pytest.mark.slow
def test_cable_breakout_must_divide_the_speed(db, seed):
    spec = seed_product(seed, "MCP7Y00-N001")["spec"]
    spec["breakout_ways"] = 3  # 800G into 3 legs is not a whole number of Gb/s per leg
    with pytest.raises(CatalogDataError) as info:
        catalog_load(seed)
    assert any(e.startswith("MCP7Y00-N001: breakout_ways") for e in info.value.errors)
    _assert_nothing_loaded()


@pytest.mark.slow
def test_zero_media_rule_reach_and_missing_spec_field_are_both_reported(db, seed):
    seed["media_rules"][0]["max_reach_m"] = 0
    del seed_product(seed, "NETI710-2CP")["spec"]["pcie_lanes"]
    with pytest.raises(CatalogDataError) as info:
        catalog_load(seed)
    errors = info.value.errors
    assert any(e.startswith("media rule") and "max_reach_m" in e for e in errors), errors
    assert any(e.startswith("NETI710-2CP") and "pcie_lanes" in e for e in errors), errors
    _assert_nothing_loaded()


@pytest.mark.slow
def test_unknown_form_factor_on_a_cable_end_is_rejected(db, seed):
    seed_product(seed, "EZMAX-SFP28-DAC-1M")["spec"]["end_b"] = "SFP99"
    with pytest.raises(CatalogDataError) as info:
        catalog_load(seed)
    assert any(e.startswith("EZMAX-SFP28-DAC-1M: end_b") for e in info.value.errors)


def test_wrong_format_and_malformed_file(db, tmp_path):
    with pytest.raises(CatalogDataError):
        catalog_load({"format": "something-else"})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(CommandError):
        call_command("load_catalog", str(bad))
    _assert_nothing_loaded()
