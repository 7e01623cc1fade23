"""How an assembly (DAC, AEC, AOC, a breakout) joins two cages: which end goes where and how
many links one cable carries (media.MediaSelector asks this of every catalog assembly)."""

from __future__ import annotations

from typing import NamedTuple

from engine.catalog import CableSpec, FormFactor, MediaKind, accepts


class PortEnd(NamedTuple):
    """One end of a link. A named tuple, not a dataclass: it keys the media selector's cache on
    every look-up, and a tuple hashes in C."""

    form_factor: FormFactor | None  # None: unknown (inline NIC speed without a NIC SKU)
    native_gbps: int
    ways: int  # logical links per physical port at this end


def _assembly_shape(
    speed: int, a: PortEnd, b: PortEnd, shared: bool
) -> tuple[int, int, int, bool] | None:
    """(cable speed, breakout ways, links per cable, fat end at b) of an assembly joining the
    cages: straight between cages broken out alike (all lanes to one far cage), a breakout
    assembly from a broken-out cage to native ones, never between cages broken out unalike."""
    if a.ways == b.ways:
        if a.ways > 1 and not shared:
            return None
        return speed * a.ways, 1, a.ways, False
    if b.ways == 1:
        return speed * a.ways, a.ways, a.ways, False
    if a.ways == 1:
        return speed * b.ways, b.ways, b.ways, True
    return None


def _assembly_fit(cable: CableSpec, speed: int, a: PortEnd, b: PortEnd, shared: bool) -> int:
    """Links one `cable` carries between cages `a` and `b`; 0 when it does not fit them."""
    if cable.media == MediaKind.UTP:
        # Twisted pair is rated by category: a Cat6A cord (10GBASE-T) also carries 1000BASE-T.
        rj45 = {a.form_factor, b.form_factor} <= {FormFactor.RJ45, None}
        return 1 if rj45 and cable.breakout_ways == 1 and cable.speed_gbps >= speed else 0
    shape = _assembly_shape(speed, a, b, shared)
    if shape is None:
        return 0
    cable_speed, ways, links, flipped = shape
    if cable.speed_gbps != cable_speed or cable.breakout_ways != ways:
        return 0
    fat, thin = (b, a) if flipped else (a, b)
    if ways > 1:  # the bundled end goes into the broken-out cage, a leg into each far cage
        ok = accepts(fat.form_factor, cable.end_a) and accepts(thin.form_factor, cable.end_b)
    else:
        ok = (accepts(a.form_factor, cable.end_a) and accepts(b.form_factor, cable.end_b)) or (
            accepts(a.form_factor, cable.end_b) and accepts(b.form_factor, cable.end_a)
        )
    return links if ok else 0
