"""Parallel optics broken out over a splitter fibre (issue 26: the catalog's modules, not an
invented "parallel module with its harness", serve a broken-out cage).

Lane arithmetic from IEEE 802.3: 400GBASE-DR4 is four 100G PAM4 lanes on four fibre pairs, so
each leg of a 4-way split is one lane, 100GBASE-DR (802.3cd); 100GBASE-SR4 is four 25G lanes,
each leg 25GBASE-SR; 400GBASE-SR8 is eight 50G lanes, a 2-way split leaves four per leg,
200GBASE-SR4. WDM modules (FR4, CWDM4) put every lane on one pair and cannot split."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.snapshot import snapshot_from_seed
from engine.catalog import (
    CableKind,
    CableSpec,
    CatalogSnapshot,
    Connector,
    FibreType,
    FormFactor,
    Lifecycle,
    MediaKind,
    Reach,
    TransceiverSpec,
)
from engine.design import Design
from engine.fit import FitError, check_group
from engine.media import MediaSelector, PortEnd
from engine.request import MediaPolicy, parse_request
from engine.sizing import size
from engine.splitters import leg_standard, port_standard

SEED = Path(__file__).resolve().parents[2] / "catalog" / "seed" / "catalog.json"
QSFP_DD_4X100 = PortEnd(form_factor=FormFactor.QSFP_DD, native_gbps=400, ways=4)
QSFP28 = PortEnd(form_factor=FormFactor.QSFP28, native_gbps=100, ways=1)


def _module(
    standard: str, speed: int, links: int = 1, ways: int = 1, **kw: object
) -> TransceiverSpec:
    values: dict[str, object] = {
        "sku": f"M-{standard}", "name": standard, "vendor": "X",
        "lifecycle": Lifecycle.AVAILABLE, "form_factor": FormFactor.QSFP_DD,
        "speed_gbps": speed, "standard": standard, "media": MediaKind.SMF,
        "connector": Connector.MPO12_APC,
        "reaches": (Reach(fibre_type=FibreType.OS2, reach_m=500),),
        "power_w": 10.0, "links_per_module": links, "breakout_ways": ways,
    }  # fmt: skip
    values.update(kw)
    return TransceiverSpec(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("standard", "speed", "links", "split", "leg"),
    [
        ("400GBASE-DR4", 400, 1, 4, "100G-DR"),  # one 100G lane per leg (802.3cd 100GBASE-DR)
        ("400GBASE-DR4", 400, 1, 2, "200G-DR2"),  # two lanes per leg
        ("100GBASE-SR4", 100, 1, 4, "25G-SR"),  # 25G lanes (802.3by 25GBASE-SR)
        ("400GBASE-SR8", 400, 1, 2, "200G-SR4"),  # 8 x 50G lanes, four per leg
        ("400GBASE-SR4", 400, 1, 4, "100G-SR1"),  # 802.3db names one 100G multimode lane SR1
        ("2x400GBASE-DR4", 800, 2, 2, "200G-DR2"),  # twin-port: each port splits on its own
        ("400GBASE-FR4", 400, 1, 4, None),  # WDM: four lanes on one pair, no split
        ("400GBASE-SR4.2", 400, 1, 4, None),  # BiDi, two wavelengths per pair
        ("400GBASE-DR4", 400, 1, 3, None),  # lanes do not divide
    ],
)
def test_leg_standard(standard: str, speed: int, links: int, split: int, leg: str | None) -> None:
    assert leg_standard(_module(standard, speed, links), split) == leg


def _splitter(price: str | None, length: float = 10.0, ways: int = 4) -> CableSpec:
    return CableSpec(
        sku=f"SPLIT-{length:g}", name="harness", vendor="X", lifecycle=Lifecycle.AVAILABLE,
        price=None if price is None else Decimal(price), media=MediaKind.SMF, end_a=None,
        end_b=None, speed_gbps=0, length_m=length, breakout_ways=ways,
        fibre_type=FibreType.OS2, connector=Connector.MPO12_APC, leg_connector=Connector.LC,
        strands=8, kind=CableKind.SPLITTER,
    )  # fmt: skip


DR4 = _module("400GBASE-DR4", 400, ways=4, price=Decimal("4000"))
DR1 = _module(
    "100GBASE-DR", 100, form_factor=FormFactor.QSFP28, connector=Connector.LC,
    price=Decimal("1000"), power_w=4.5,
)  # fmt: skip


def _choose(catalog: CatalogSnapshot, length: float = 8.0) -> object:
    selector = MediaSelector(catalog, MediaPolicy.SMF)
    return selector.choose("leaf-spine", 100, length, QSFP_DD_4X100, QSFP28)


def test_a_catalog_splitter_joins_the_catalog_modules_priced_per_link() -> None:
    catalog = CatalogSnapshot(transceivers=(DR4, DR1), cables=(_splitter("400"),))
    choice = _choose(catalog)
    assert choice.cable.sku == "SPLIT-10"  # type: ignore[attr-defined]
    assert choice.links_per_cable == 4  # type: ignore[attr-defined]
    assert not choice.catalog_gap  # type: ignore[attr-defined]
    # One DR4 and one splitter serve four links, each link has its own DR1:
    # 4000/4 + 1000 + 400/4 = 2100 per link.
    assert choice.cost_per_link == Decimal("2100")  # type: ignore[attr-defined]


def test_without_a_splitter_the_modules_stay_and_only_the_harness_stands_in() -> None:
    choice = _choose(CatalogSnapshot(transceivers=(DR4, DR1)))
    assert choice.transceiver_a is DR4  # type: ignore[attr-defined]
    assert choice.transceiver_b is DR1  # type: ignore[attr-defined]
    assert choice.cable.kind == CableKind.SPLITTER  # type: ignore[attr-defined]
    assert choice.cable.sku == ""  # type: ignore[attr-defined]
    names = [name for name, _ in choice.gaps]  # type: ignore[attr-defined]
    # Without media rules a stand-in's stock length is the run rounded up to whole metres.
    assert names == ["OS2 MPO-12/APC to 4 x LC breakout harness, 8 m"]


def test_a_module_not_sold_to_split_is_not_split() -> None:
    catalog = CatalogSnapshot(transceivers=(replace(DR4, breakout_ways=1), DR1))
    choice = _choose(catalog)
    # The catalog's 400G module is not sold as 4 x 100G: a stand-in module, not DR4 split.
    assert choice.transceiver_a is not DR4  # type: ignore[attr-defined]
    assert choice.cable.kind != CableKind.SPLITTER  # type: ignore[attr-defined]


def test_a_splitter_shorter_than_the_run_is_not_used() -> None:
    catalog = CatalogSnapshot(transceivers=(DR4, DR1), cables=(_splitter("400", 10.0),))
    choice = _choose(catalog, length=30.0)
    assert choice.cable.sku != "SPLIT-10"  # type: ignore[attr-defined]


def _seed() -> CatalogSnapshot:
    return snapshot_from_seed(json.loads(SEED.read_text(encoding="utf-8")))


def _split_groups(design: Design) -> list[object]:
    return [
        g
        for plane in design.planes
        for g in plane.links
        if g.choice is not None and g.choice.cable.kind == CableKind.SPLITTER
    ]


def test_a_100g_leaf_under_400g_spines_uses_the_catalogs_dr4_and_dr1() -> None:
    """An SN2700 (32 x 100G QSFP28) under Arista 7060DX5-64S spines on single-mode: each spine
    cage holds one QDD-400G-DR4 split to four MMS1V70-CM on the leaves (Arista: "Connect up to
    4 x QSFP-100G-DRs to a single ... QDD-400G-DR4")."""
    catalog = _seed()
    request = {
        "gpus": 2048, "nic_speed": 100, "leaf": "MSN2700-CS2F", "spine": "DCS-7060DX5-64S",
        "media": "smf", "fabric": "rail",
    }  # fmt: skip
    design = size(parse_request(request, catalog), catalog)
    groups = _split_groups(design)
    assert groups
    for group in groups:
        assert group.transceiver_sku_b == "QDD-400G-DR4"  # type: ignore[attr-defined]
        assert group.transceiver_sku_a == "MMS1V70-CM"  # type: ignore[attr-defined]
        # Four links per spine cage, one harness and one DR4 per cage, one DR1 per link.
        assert group.links == 4 * group.cables  # type: ignore[attr-defined]
        assert group.transceivers_b == group.cables  # type: ignore[attr-defined]
        assert group.transceivers_a == group.links  # type: ignore[attr-defined]
    descriptions = [line.description for line in design.bom]
    assert not any("parallel module" in d for d in descriptions)


def test_the_fit_check_refuses_a_splitter_short_of_legs() -> None:
    catalog = _seed()
    request = {
        "gpus": 2048, "nic_speed": 100, "leaf": "MSN2700-CS2F", "spine": "DCS-7060DX5-64S",
        "media": "smf", "fabric": "rail",
    }  # fmt: skip
    group = _split_groups(size(parse_request(request, catalog), catalog))[0]
    check_group(group)  # type: ignore[arg-type]
    with pytest.raises(FitError, match="splitters for"):
        check_group(replace(group, cables=group.cables - 1))  # type: ignore[type-var]


@settings(max_examples=40, deadline=None)
@given(
    servers=st.integers(min_value=1, max_value=512),
    media=st.sampled_from(["smf", "mmf", "optical", "auto"]),
    fabric=st.sampled_from(["rail", "rail-plane", "tor"]),
)
def test_every_split_group_fits_its_cages(servers: int, media: str, fabric: str) -> None:
    """Over random sizes: a split group's parallel module sits in the broken-out cage, the
    far modules' standard is the module's leg standard, one splitter per split port."""
    catalog = _seed()
    request = {
        "gpus": servers * 8, "nic_speed": 100, "leaf": "MSN2700-CS2F",
        "spine": "DCS-7060DX5-64S", "media": media, "fabric": fabric,
    }  # fmt: skip
    design = size(parse_request(request, catalog), catalog)
    for group in _split_groups(design):
        choice = group.choice  # type: ignore[attr-defined]
        fat, thin = (
            (choice.transceiver_a, choice.transceiver_b)
            if choice.links_per_transceiver_a > 1
            else (choice.transceiver_b, choice.transceiver_a)
        )
        split = choice.cable.breakout_ways
        assert leg_standard(fat, split) == port_standard(thin)
        assert fat.links_per_module * split == max(
            choice.links_per_transceiver_a, choice.links_per_transceiver_b
        )
        assert group.cables * split >= group.links  # type: ignore[attr-defined]
