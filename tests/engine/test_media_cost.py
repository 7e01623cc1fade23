"""Media are chosen by cost per link among those that fit and reach; the seller's own brand wins
within its margin; without prices the catalog's cost decides, then the documented order."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from engine.catalog import (
    CableKind,
    CableSpec,
    CatalogSnapshot,
    Connector,
    FibreType,
    FormFactor,
    Lifecycle,
    MediaKind,
    MediaRule,
    Reach,
    TransceiverSpec,
)
from engine.media import MediaSelector, PortEnd
from engine.request import MediaPolicy

SFP28 = PortEnd(form_factor=FormFactor.SFP28, native_gbps=25, ways=1)


def _aoc(price: str | None, cost: str | None = None) -> CableSpec:
    return CableSpec(
        sku="AOC-25G-10M", name="25G AOC 10 m", vendor="Other", lifecycle=Lifecycle.AVAILABLE,
        price=None if price is None else Decimal(price),
        cost=None if cost is None else Decimal(cost),
        media=MediaKind.AOC, end_a=FormFactor.SFP28, end_b=FormFactor.SFP28, speed_gbps=25,
        length_m=10.0, power_w=2.0,
    )  # fmt: skip


def _sr(price: str | None, cost: str | None = None) -> TransceiverSpec:
    return TransceiverSpec(
        sku="EZ-SR", name="25G SR", vendor="EZMAX", lifecycle=Lifecycle.AVAILABLE,
        price=None if price is None else Decimal(price),
        cost=None if cost is None else Decimal(cost), own_brand=True,
        form_factor=FormFactor.SFP28, speed_gbps=25, standard="25GBASE-SR",
        media=MediaKind.MMF, connector=Connector.LC,
        reaches=(Reach(fibre_type=FibreType.OM4, reach_m=100.0),), power_w=1.0,
    )  # fmt: skip


def _cord(price: str | None) -> CableSpec:
    return CableSpec(
        sku="LC-OM4-10M", name="LC OM4 10 m", vendor="Generic", lifecycle=Lifecycle.AVAILABLE,
        price=None if price is None else Decimal(price), media=MediaKind.MMF, end_a=None,
        end_b=None, speed_gbps=0, length_m=10.0, fibre_type=FibreType.OM4,
        connector=Connector.LC, strands=2, kind=CableKind.PATCH_CORD,
    )  # fmt: skip


RULES = (
    MediaRule(speed_gbps=25, media=MediaKind.DAC, max_reach_m=3.0),
    MediaRule(speed_gbps=25, media=MediaKind.AOC, max_reach_m=100.0),
    MediaRule(speed_gbps=25, media=MediaKind.MMF, max_reach_m=100.0),
)


def _choose(aoc: CableSpec, sr: TransceiverSpec, cord: CableSpec, margin: float = 0.05) -> str:
    catalog = CatalogSnapshot(
        transceivers=(sr,), cables=(aoc, cord), media_rules=RULES, own_brand_margin=margin
    )
    choice = MediaSelector(catalog, MediaPolicy.AUTO).choose("compute server-leaf", 25, 8.0,
                                                              SFP28, SFP28)  # fmt: skip
    return choice.media.value


def test_the_cheaper_link_wins() -> None:
    # Optics: 2 x 260 + 55 = 575 per link; the AOC: 850. The brochure's cross-rack SR optic.
    assert _choose(_aoc("850"), _sr("260"), _cord("55")) == "mmf"
    # An AOC at 500 beats 575 of optics.
    assert _choose(_aoc("500"), _sr("260"), _cord("55")) == "aoc"


def test_own_brand_within_the_margin() -> None:
    # Optics (own brand) 2 x 270 + 55 = 595, AOC 570: 595 / 570 = 1.044, within 5 %.
    assert _choose(_aoc("570"), _sr("270"), _cord("55")) == "mmf"
    # With a 2 % margin the cheaper AOC wins.
    assert _choose(_aoc("570"), _sr("270"), _cord("55"), margin=0.02) == "aoc"
    # AOC 530: 595 / 530 = 1.12, beyond 5 %.
    assert _choose(_aoc("530"), _sr("270"), _cord("55")) == "aoc"


def test_without_prices_the_catalog_cost_decides_then_the_order() -> None:
    # No list price: costs 2 x 169 + 36 = 374 for optics against 553 for the AOC.
    assert _choose(_aoc(None, "553"), _sr(None, "169"), replace(_cord(None), cost=Decimal(36))) == (
        "mmf"
    )
    # Nothing priced at all: the documented order (DAC, AEC, AOC, multimode, single-mode).
    assert _choose(_aoc(None), _sr(None), _cord(None)) == "aoc"


def _fibre(sku: str, kind: CableKind, length: float, price: str) -> CableSpec:
    return CableSpec(
        sku=sku, name=sku, vendor="Generic", lifecycle=Lifecycle.AVAILABLE,
        price=Decimal(price), media=MediaKind.MMF, end_a=None, end_b=None, speed_gbps=0,
        length_m=length, fibre_type=FibreType.OM4, connector=Connector.LC, strands=2, kind=kind,
    )  # fmt: skip


def test_the_cheapest_trunk_and_cord_that_reach_are_taken_not_the_first_listed() -> None:
    # A 40 m run: beyond every cord, so structured (trunk + a cord at each end). Two 50 m
    # trunks at 900 and 600, listed dearest first; two 3 m cords at 60 and 40.
    fibres = (
        _fibre("TRUNK-A-50M", CableKind.TRUNK, 50.0, "900"),
        _fibre("TRUNK-B-50M", CableKind.TRUNK, 50.0, "600"),
        _fibre("CORD-A-3M", CableKind.PATCH_CORD, 3.0, "60"),
        _fibre("CORD-B-3M", CableKind.PATCH_CORD, 3.0, "40"),
    )
    catalog = CatalogSnapshot(transceivers=(_sr("260"),), cables=fibres, media_rules=RULES)
    choice = MediaSelector(catalog, MediaPolicy.MMF).choose(
        "compute server-leaf", 25, 40.0, SFP28, SFP28
    )
    assert choice.media == MediaKind.MMF
    assert choice.cable is not None
    assert choice.cable.sku == "TRUNK-B-50M"
    assert choice.cord is not None
    assert choice.cord.sku == "CORD-B-3M"
