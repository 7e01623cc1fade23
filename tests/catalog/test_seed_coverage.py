"""The seed covers what default designs need (issue 26, item 2): the parts added to close catalog
gaps load through the real loader with a price on both lists, every module and cable in the seed
is true to its standard (lanes, fibres, connector, media), and a small sweep of random requests
keeps the share of designs a quote can be sent for without pricing a part by hand."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bench.priced_sweep import catalog_prices, fully_priced, seed_catalog, sweep
from catalog.models import Price, Product
from catalog.selectors import catalog_snapshot
from catalog.snapshot import CABLE_CATEGORIES
from engine.catalog import NATIVE_SPEEDS_GBPS, FormFactor
from engine.request import parse_request
from engine.sizing import size

# Structured-cabling trunks (between two patch panels) added for the runs the sweep asks for:
# duplex LC OM4 (10G/25G SR) and MPO-12/APC OS2 past 150 m (400G DR4 reaches 500 m). Length in
# metres by SKU.
TRUNKS = (
    *(f"LC-LC-OM4-TRUNK-{m}M" for m in (20, 30, 50, 70, 100)),
    *(f"MPO12APC-OS2-TRUNK-{m}M" for m in (200, 250, 300, 400, 500)),
)

# The real parts added for issue 26, item 2 (sources in each entry's `source`).
NEW_SKUS = (
    "MFM1T02A-LR",  # NVIDIA 10GBASE-LR SFP+
    "MMA2L20-AR",  # NVIDIA 25GBASE-LR SFP28
    "QDD-400G-VSR4",  # Arista 400GBASE-SR4 QSFP-DD (100G lanes, MPO-12/APC)
    "QDD-400G-SRBD",  # Arista 400GBASE-SR4.2 QSFP-DD (BiDi, MPO-12)
    "MCP7H60-W001R30",  # NVIDIA 400GbE QSFP-DD to 2 x 200GbE QSFP56 DAC
    "MCP7H60-W002R26",
    "MCP7H60-W003R26",
    "MCP7F60-W001R30",  # NVIDIA 400GbE QSFP-DD to 4 x 100GbE QSFP56 DAC
    "MCP7F60-W002R26",
    "MC3309124-005",  # NVIDIA 10GbE SFP+ DAC, 24 AWG
    "MC3309124-007",
    "MFA7A50-C003",  # NVIDIA 100GbE QSFP28 to 4 x 25GbE SFP28 AOC
    # Second round (`python -m bench.priced_sweep 1000`: 430 -> 480 of 1,000 fully priced).
    "MMS1V70-CM",  # NVIDIA 100GBASE-DR (DR1) QSFP28, LC, 500 m
    "MMS1W50-HM",  # NVIDIA 200GBASE-FR4 QSFP56, LC, 2 km
    *TRUNKS,
)
LISTS = {"CNY-2026", "USD-2026"}

# Fibres each connector carries.
STRANDS = {"LC": 2, "MPO-12": 12, "MPO-12/APC": 12, "MPO-16": 16, "MPO-24": 24}

# Per PMD family of IEEE 802.3 (and the CWDM4 MSA): media, the connectors it is built with, the
# fibres one port uses, and the longest reach any speed of the family is specified for.
#   SR (1 lane, duplex): 10GBASE-SR 400 m OM4 (802.3ae); 25GBASE-SR 100 m OM4 (802.3by).
#   SR4 (4 lanes, 8 of 12 fibres): 40GBASE-SR4 150 m OM4 (802.3ba); 100G/400G SR4 100 m OM4.
#   SR4.2 (BiDi, 8 fibres): 150 m OM5 (802.3cm).   SR8 (16 fibres, MPO-16): 150 m OM5 (802.3cm).
#   DR4 (4 lanes, 8 of 12 fibres): 500 m (802.3bs).  DR8 (16 fibres): 500 m (802.3df).
#   DR (1 x 100G lane on a duplex pair, 100GBASE-DR of 802.3cd): 500 m.
#   FR4 / CWDM4 (4 wavelengths on a duplex pair): 2 km.  LR / LR4: 10 km.
FAMILIES: dict[str, tuple[str, frozenset[str], int, float]] = {
    "SR": ("mmf", frozenset({"LC"}), 2, 400),
    "SR4": ("mmf", frozenset({"MPO-12", "MPO-12/APC"}), 8, 150),
    "SR4.2": ("mmf", frozenset({"MPO-12", "MPO-12/APC"}), 8, 150),
    "SR8": ("mmf", frozenset({"MPO-16"}), 16, 150),
    "DR": ("smf", frozenset({"LC"}), 2, 500),
    "DR4": ("smf", frozenset({"MPO-12", "MPO-12/APC"}), 8, 500),
    "DR8": ("smf", frozenset({"MPO-16"}), 16, 500),
    "FR4": ("smf", frozenset({"LC"}), 2, 2000),
    "CWDM4": ("smf", frozenset({"LC"}), 2, 2000),
    "LR": ("smf", frozenset({"LC"}), 2, 10000),
    "LR4": ("smf", frozenset({"LC"}), 2, 10000),
}
# "2x400GBASE-SR4": links, speed per link, family; "100G-CWDM4" (an MSA, not "BASE") as well.
STANDARD = re.compile(r"^(?:(?P<links>\d+)X)?(?P<speed>\d+)G(?:BASE)?-(?P<family>[A-Z0-9.]+)$")


def _by_category(seed_data: dict[str, Any], categories: set[str]) -> list[dict[str, Any]]:
    return [p for p in seed_data["products"] if p["category"] in categories]


@pytest.mark.django_db
def test_new_parts_load_through_the_loader_priced_on_both_lists(seeded: None) -> None:
    for sku in NEW_SKUS:
        product = Product.objects.get(sku=sku)
        assert product.source.strip(), sku
        codes = set(
            Price.objects.filter(product=product).values_list("price_list__code", flat=True)
        )
        assert codes == LISTS, sku
    # The engine's view of the database carries them, priced on the default (CNY) list.
    items = catalog_snapshot().by_sku()
    for sku in NEW_SKUS:
        assert items[sku].price is not None, sku


def test_new_parts_are_in_the_seed_with_both_prices(seed_data: dict[str, Any]) -> None:
    skus = {p["sku"] for p in seed_data["products"]}
    assert set(NEW_SKUS) <= skus
    for price_list in seed_data["price_lists"]:
        priced = {row["sku"] for row in price_list["prices"]}
        assert set(NEW_SKUS) <= priced, price_list["code"]


def test_every_module_is_true_to_its_standard(seed_data: dict[str, Any]) -> None:
    modules = _by_category(seed_data, {"transceiver"})
    assert modules
    for entry in modules:
        sku, spec = entry["sku"], entry["spec"]
        assert entry["source"].strip(), sku
        match = STANDARD.match(spec["standard"].upper())
        assert match, (sku, spec["standard"])
        links = int(match["links"] or 1)
        family = match["family"]
        assert family in FAMILIES, (sku, family)  # a new PMD needs its row above first
        media, connectors, fibres, longest = FAMILIES[family]
        # Twin-port modules carry their links on one port each, so speed is per link x links.
        assert links == spec.get("links_per_module", 1), sku
        assert int(match["speed"]) * links == spec["speed_gbps"], sku
        assert spec["media"] == media, sku
        assert spec["connector"] in connectors, sku
        assert fibres <= STRANDS[spec["connector"]], sku
        fibre_types = set(spec["reaches"])
        assert fibre_types <= ({"OM3", "OM4", "OM5"} if media == "mmf" else {"OS2"}), sku
        assert 0 < max(spec["reaches"].values()) <= longest, sku


def test_every_fibre_has_the_strands_of_its_connector(seed_data: dict[str, Any]) -> None:
    fibres = _by_category(seed_data, {"fibre"})
    assert fibres
    for entry in fibres:
        sku, spec = entry["sku"], entry["spec"]
        assert entry["source"].strip(), sku
        assert spec["strands"] == STRANDS[spec["connector"]], sku
        assert spec["speed_gbps"] == 0, sku  # passive glass: any speed its modules run
        assert spec["end_a"] is None, sku
        assert spec["end_b"] is None, sku
        media_types = {"OM3", "OM4", "OM5"} if spec["media"] == "mmf" else {"OS2"}
        assert spec["fibre_type"] in media_types, sku


def test_every_assembly_fits_the_cages_it_joins(seed_data: dict[str, Any]) -> None:
    assemblies = [
        p for p in _by_category(seed_data, set(CABLE_CATEGORIES)) if p["category"] != "fibre"
    ]
    assert assemblies
    for entry in assemblies:
        sku, spec = entry["sku"], entry["spec"]
        assert entry["source"].strip(), sku
        fat, leg = FormFactor(spec["end_a"]), FormFactor(spec["end_b"])
        ways = spec["breakout_ways"]
        assert ways in (1, 2, 4, 8), sku
        assert spec["speed_gbps"] % ways == 0, sku
        # The bundled end runs the cable's speed natively; each leg at most its cage's fastest
        # speed (a 2 x 200G OSFP leg of an 800G splitter runs below the cage's 400G).
        assert spec["speed_gbps"] in NATIVE_SPEEDS_GBPS[fat], sku
        assert spec["speed_gbps"] // ways <= max(NATIVE_SPEEDS_GBPS[leg]), sku
        if spec["media"] == "utp":
            assert fat is leg is FormFactor.RJ45, sku
        if spec["media"] in ("dac", "utp"):
            assert spec["power_w"] == 0, sku  # passive copper draws nothing in the data path


def test_new_trunks_run_between_panels_the_seed_sells(seed_data: dict[str, Any]) -> None:
    by_sku = {p["sku"]: p for p in seed_data["products"]}
    panels = {p["spec"]["connector"] for p in _by_category(seed_data, {"patch_panel"})}
    for sku in TRUNKS:
        spec = by_sku[sku]["spec"]
        connector, fibre_type = spec["connector"], spec["fibre_type"]
        assert spec["kind"] == "trunk", sku
        assert sku.endswith(f"-{spec['length_m']:g}M"), sku
        assert fibre_type in sku, sku
        assert connector.replace("-", "").replace("/", "") in sku.replace("-", ""), sku
        assert connector in panels, sku  # both ends land on a panel the seed sells
        # ... and a cord of the same glass joins each panel to its module in the rack.
        assert any(
            p["spec"]["kind"] == "patch_cord"
            and p["spec"]["connector"] == connector
            and p["spec"]["fibre_type"] == fibre_type
            and p["spec"]["length_m"] >= 3
            for p in _by_category(seed_data, {"fibre"})
        ), sku


@pytest.mark.parametrize(
    ("request_data", "sku"),
    [
        # 25G SR NIC links on multimode through the row's patch panels: a 30 m OM4 LC trunk.
        (
            {"gpus": 8, "gpus_per_server": 8, "leaf": "DCS-7060DX5-64S", "media": "mmf",
             "oversubscription": 2, "nic": "NETI710-4CP", "fabric": "rail",
             "spine": "MSN2410-CB2F"},
            "LC-LC-OM4-TRUNK-30M",
        ),
    ],
)  # fmt: skip
def test_designs_that_needed_the_new_parts_are_fully_priced(
    request_data: dict[str, object], sku: str
) -> None:
    # Found by the sweep: each carried that part as "to be priced" before it was in the seed.
    catalog = seed_catalog()
    design = size(parse_request(request_data, catalog), catalog, catalog_prices(catalog))
    assert fully_priced(design), [line.description for line in design.bom if line.catalog_gap]
    assert sku in {line.sku for line in design.bom}


@pytest.mark.slow
def test_a_small_sweep_stays_mostly_priced() -> None:
    # bench.priced_sweep with 150 designs, seed 26 (`python -m bench.priced_sweep 150`): 62 of
    # 150 designs were fully priced after the first parts above were added (46 before them); 73
    # with the second round's unverified MFA7A50 lengths, 69 without them (taken out: NVIDIA's
    # ordering table could not be read to confirm them);
    # after the second round (66 before it, on the engine that refuses impossible lanes). The
    # floor leaves 3 designs of room for catalog or engine changes that move a borderline design.
    result = sweep(seed_catalog(), 150)
    assert result.designs == 150
    assert result.priced >= 66, (result.priced, result.gaps.most_common(5))
