"""Parallel optics broken out over a splitter fibre: one module in a broken-out cage, its lanes
split `ways` ways by a fibre with one MPO at the module and a leg to each far module.

This is how the catalog's parallel modules serve breakouts (issue 26: stand-in "parallel
module ... with its harness" lines where the catalog sells the module): a 400GBASE-DR4 in a
4 x 100G cage meets four 100GBASE-DR modules (IEEE 802.3bs/cd lanes: one 100G PAM4 lane on a
duplex pair each) through an MPO-12/APC to 4 x LC harness; a 100GBASE-SR4 meets four
25GBASE-SR; a 400GBASE-SR8 meets two 200GBASE-SR4 through an MPO-16 to 2 x MPO-12; a twin-port
2 x 400G DR4 meets four 200G DR2 through two 1:2 splitters (NVIDIA MFP7E40). WDM modules (FR4,
LR4, CWDM4) carry their lanes on one fibre pair and cannot be split."""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal

from engine import generic
from engine.assemblies import PortEnd
from engine.catalog import CableKind, CableSpec, FibreType, MediaKind, TransceiverSpec, accepts
from engine.choice import MediaChoice, unit_cost
from engine.text import Text

# "400G-DR4", "100G-SR4", "400G-SR8": speed, a parallel kind, lanes. SR4.2 (BiDi) and the WDM
# kinds do not match, so they are never split.
_PARALLEL = re.compile(r"^(\d+)G-(SR|DR)(\d+)$")


def port_standard(module: TransceiverSpec) -> str:
    """One port's standard without "BASE": a twin-port 2x400GBASE-DR4 has two 400G-DR4 ports."""
    standard = module.standard.upper().replace("BASE", "")
    prefix = f"{module.links_per_module}X"
    if module.links_per_module > 1 and standard.startswith(prefix):
        standard = standard[len(prefix) :]
    return standard


def leg_standard(module: TransceiverSpec, split: int) -> str | None:
    """The standard of one leg when each port's lanes are split `split` ways, as the far
    module names it ("100G-DR", "25G-SR", "200G-SR4", "100G-SR1"); None when the port is not a
    parallel one or its lanes do not divide."""
    match = _PARALLEL.match(port_standard(module))
    if match is None or split < 2:
        return None
    speed, kind, lanes = int(match[1]), match[2], int(match[3])
    if lanes % split or speed % split:
        return None
    leg_speed, leg_lanes = speed // split, lanes // split
    if leg_lanes > 1:
        return f"{leg_speed}G-{kind}{leg_lanes}"
    # IEEE names one-lane 100G multimode SR1 (802.3db); 25G SR and 100G DR have no number.
    return f"{leg_speed}G-{kind}1" if kind == "SR" and leg_speed >= 100 else f"{leg_speed}G-{kind}"


def split_modules(
    transceivers: Iterable[TransceiverSpec], media: MediaKind, speed: int, end: PortEnd
) -> list[tuple[TransceiverSpec, int]]:
    """Modules that serve a broken-out cage's `end.ways` links by splitting each port's lanes,
    with the ways each port splits: a 400G DR4 in a 4 x 100G cage splits 4 ways, a twin-port
    2 x 400G DR4 in a 4 x 200G cage 2 ways per port. The module's `breakout_ways` is the most
    ways its vendor supports; fewer ways that divide it are supported too."""
    out = []
    for module in transceivers:
        if module.media != media or not accepts(end.form_factor, module.form_factor):
            continue
        if module.speed_gbps != speed * end.ways or end.ways % module.links_per_module:
            continue
        split = end.ways // module.links_per_module
        if split < 2 or module.breakout_ways % split or leg_standard(module, split) is None:
            continue
        out.append((module, split))
    return out


def _reaching(module: TransceiverSpec, length: float) -> set[FibreType]:
    return {r.fibre_type for r in module.reaches if r.reach_m >= length - 1e-9}


def _meets(fat: tuple[TransceiverSpec, int, int], thin: TransceiverSpec) -> bool:
    module, _, split = fat
    return leg_standard(module, split) == port_standard(thin) and thin.links_per_module == 1


def split_choice(
    splitters: Iterable[CableSpec],
    media: MediaKind,
    length: float,
    fat: tuple[TransceiverSpec, int, int],
    thin: TransceiverSpec,
    fat_is_a: bool,
) -> MediaChoice | None:
    """The cheapest catalog splitter joining `fat` (module, links it serves, ways each port
    splits) to one `thin` module per leg over `length` m, priced per link; None when the
    standards, connectors or reach do not meet. `fat_is_a`: the fat module sits in the upper
    tier's cage (the selector's end `a`)."""
    module, _, split = fat
    if not _meets(fat, thin):
        return None
    fibre_types = _reaching(module, length) & _reaching(thin, length)
    fits = [
        s
        for s in splitters
        if s.kind == CableKind.SPLITTER
        and s.media == media
        and s.breakout_ways == split
        and s.connector == module.connector
        and (s.leg_connector or s.connector) == thin.connector
        and s.fibre_type in fibre_types
        and s.length_m >= length - 1e-9
    ]
    if not fits:
        return None
    priced = [s for s in fits if unit_cost(s) is not None]
    splitter = min(priced or fits, key=lambda s: (unit_cost(s) or Decimal(0), s.length_m, s.sku))
    return _choice(splitter, fat, thin, fat_is_a, ())


def split_stand_in(
    media: MediaKind,
    length: float,
    stock_m: float,
    fat: tuple[TransceiverSpec, int, int],
    thin: TransceiverSpec,
    fat_is_a: bool,
) -> MediaChoice | None:
    """The catalog's modules joined by a generic breakout harness (a catalog gap) when the
    catalog sells the modules but no splitter that fits: better than a stand-in module that
    nobody ships."""
    module, _, split = fat
    fibre_types = _reaching(module, length) & _reaching(thin, length)
    if not _meets(fat, thin) or not fibre_types or length > generic.SPLITTER_MAX_M + 1e-9:
        return None
    fibre_type = min(fibre_types, key=generic.FIBRE_PREFERENCE.index)
    splitter, name = generic.splitter(
        media, fibre_type, module.connector, thin.connector, split,
        min(stock_m, generic.SPLITTER_MAX_M),
    )  # fmt: skip
    return _choice(splitter, fat, thin, fat_is_a, ((str(name), name),))


def _choice(
    splitter: CableSpec,
    fat: tuple[TransceiverSpec, int, int],
    thin: TransceiverSpec,
    fat_is_a: bool,
    gaps: tuple[tuple[str, Text], ...],
) -> MediaChoice:
    module, serves, split = fat
    cost: Decimal | None = None
    prices = (unit_cost(module), unit_cost(thin), unit_cost(splitter))
    if all(p is not None for p in prices):
        fat_price, thin_price, splitter_price = (p or Decimal(0) for p in prices)
        cost = fat_price / serves + thin_price + splitter_price / split
    ends = (module, serves, thin, 1) if fat_is_a else (thin, 1, module, serves)
    return MediaChoice(
        media=splitter.media,
        length_m=splitter.length_m,
        cable=splitter,
        links_per_cable=split,
        transceiver_a=ends[0],
        links_per_transceiver_a=ends[1],
        transceiver_b=ends[2],
        links_per_transceiver_b=ends[3],
        gaps=gaps,
        cost_per_link=cost,
        power_per_link_w=module.power_w / serves + thin.power_w,
    )
