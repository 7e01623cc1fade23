"""The link groups of one plane: every cage of every switch counted by run and lanes, and the
runs that share stock parts (cable, modules, cords and panels) merged into one group.

Kept apart from `sizing`, which puts a plane's design together, to hold both modules under 700
lines. Leaves alike in their runs are counted once, and each layout of pod runs is tallied once
(`_tally_fabric`)."""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from engine.design import DownPart, LinkEnd, LinkGroup, PlaneShape
from engine.errors import SwitchMismatch
from engine.fabric import ceil_div
from engine.geometry import leaf_link_runs, leaf_pattern_key, pods_by_runs
from engine.media import MediaChoice, MediaSelector, PortEnd
from engine.plane_models import PlaneModels
from engine.ports import SwitchModel
from engine.request import Layout
from engine.text import gettext_noop, text
from engine.wiring import fabric_cages, port_parts

# Runs merged by the stock parts they round up to: the choice, [links, upper cages, cables]
# and links by run.
_Merged = dict[tuple[object, ...], tuple[MediaChoice, list[int], dict[float, int]]]


def link_groups(
    plane: str,
    a: str,
    b: str,
    units: Mapping[tuple[float, int], int],
    speed: int,
    end_a: PortEnd,
    end_b: PortEnd,
    selector: MediaSelector,
    shared: bool,
    lower_links: int = 1,
    lower_by_run: Mapping[float, int] | None = None,
) -> list[tuple[LinkGroup, tuple[float, ...]]]:
    """Link groups with the computed runs each one carries. `units` counts the upper tier's
    cages (`end_a`, the fat end of a breakout) by (run, links used in the cage); `end_b` is the
    lower tier's cage. The group reports its ends the other way round: `a` is the lower tier."""
    merged = _merge_runs(f"{plane} {a}-{b}", units, speed, end_a, end_b, selector, shared)
    groups: list[tuple[LinkGroup, tuple[float, ...]]] = []
    for choice, (links, upper_cages, cables), runs in merged.values():
        # Each lower device fills its own cages: `lower_links` links in ceil(lower_links / ways)
        # cages (2 uplinks of a leaf in a 4x100G cage take the whole cage).
        lower_cages = ceil_div(links * ceil_div(lower_links, end_b.ways), lower_links)
        if lower_by_run is not None:  # counted cage by cage (`wiring.fabric_cages`)
            lower_cages = sum(lower_by_run.get(run, 0) for run in runs)
        if choice.links_per_cable > end_a.ways:
            # One assembly per lower cage; a twin-port module splits each port on its own fibre.
            cables = lower_cages * max(1, end_b.ways // choice.links_per_cable)
        group = _link_group(
            plane, a, b, speed, choice, (links, upper_cages, lower_cages, cables), runs,
            end_a, end_b, shared,
        )  # fmt: skip
        groups.append((group, tuple(runs)))
    if len(groups) > 1:
        groups.sort(key=lambda g: (g[0].length_m, g[0].media.value, g[0].cable_sku))
    return groups


def _merge_runs(
    link: str,
    units: Mapping[tuple[float, int], int],
    speed: int,
    end_a: PortEnd,
    end_b: PortEnd,
    selector: MediaSelector,
    shared: bool,
) -> _Merged:
    # Runs that round up to the same stock parts form one group.
    merged: _Merged = {}
    for length, lanes in sorted(units):
        cages = units[(length, lanes)]
        if cages == 0:
            continue
        choice = selector.choose(link, speed, length, end_a, end_b, shared)
        entry = merged.get(choice.group_key)
        if entry is None:
            entry = merged[choice.group_key] = (choice, [0, 0, 0], {})
        counts, runs = entry[1], entry[2]
        counts[0] += cages * lanes
        counts[1] += cages
        per_cable = choice.links_per_cable
        if per_cable <= end_a.ways:
            counts[2] += cages * ceil_div(lanes, per_cable)
        # else: a breakout whose bundled end sits in the lower tier's cages, one per such cage,
        # counted for the whole group in `link_groups`.
        runs[length] = runs.get(length, 0) + cages * lanes
    return merged


def _link_group(
    plane: str,
    a: str,
    b: str,
    speed: int,
    choice: MediaChoice,
    counts: tuple[int, int, int, int],
    runs: dict[float, int],
    end_a: PortEnd,
    end_b: PortEnd,
    shared: bool,
) -> LinkGroup:
    """One group, its ends swapped to lower tier first; `counts` is (links, upper cages, lower
    cages, cables)."""
    links, upper_cages, lower_cages, cables = counts
    optics = choice.transceiver_a is not None
    upper_modules = upper_cages if optics else 0  # one module per cage, always
    lower_modules = lower_cages if optics else 0
    structured = choice.cord is not None and choice.panel is not None
    panel_ports = 2 * links if structured else 0
    return LinkGroup(
        plane=plane,
        a=a,
        b=b,
        links=links,
        speed_gbps=speed,
        media=choice.media,
        length_m=choice.length_m,
        cable_sku=choice.cable.sku,
        cables=cables,
        links_per_cable=choice.links_per_cable,
        transceiver_sku_a=choice.transceiver_b.sku if choice.transceiver_b else None,
        transceiver_sku_b=choice.transceiver_a.sku if choice.transceiver_a else None,
        transceivers=upper_modules + lower_modules,
        links_per_transceiver_a=choice.links_per_transceiver_b,
        links_per_transceiver_b=choice.links_per_transceiver_a,
        end_a=LinkEnd(
            role=a,
            form_factor=end_b.form_factor,
            cages=lower_cages,
            links_per_cage=end_b.ways,
        ),
        end_b=LinkEnd(
            role=b,
            form_factor=end_a.form_factor,
            cages=upper_cages,
            links_per_cage=end_a.ways,
        ),
        transceivers_a=lower_modules,
        transceivers_b=upper_modules,
        cord_sku=choice.cord.sku if structured and choice.cord else None,
        cords=2 * links if structured else 0,
        panel_sku=choice.panel.sku if structured and choice.panel else None,
        panel_ports=panel_ports,
        panels=2 * ceil_div(links, choice.panel.ports) if choice.panel else 0,
        catalog_gap=choice.catalog_gap,
        runs_m=tuple(sorted(runs)),
        run_links=tuple(sorted(runs.items())),
        shared=shared,
        choice=choice,
    )


def leaf_split(model: SwitchModel, nic: int, downlinks: int) -> tuple[tuple[PortEnd, int], ...]:
    """One leaf's server-facing links by port group, in the order the leaf fills them
    (`wiring.port_parts`: slowest groups first, so a 48 x SFP28 + 8 x QSFP28 switch breaks out
    its QSFP28 cages last)."""
    return tuple(
        (PortEnd(form_factor=part.form_factor, native_gbps=0, ways=part.ways), part.links)
        for part in port_parts(model, nic, downlinks, 0, 0)[0]
    )


def down_parts(
    model: SwitchModel, shape: PlaneShape
) -> tuple[tuple[int, tuple[DownPart, ...]], ...]:
    """How a leaf spreads each downlink count of the plane over its port groups."""
    nic = shape.nic_speed_gbps
    counts = sorted({g.downlinks_per_leaf for g in shape.leaf_groups})
    return tuple((count, port_parts(model, nic, count, 0, 0)[0]) for count in counts)


def _leaf_cages(
    runs: tuple[float, ...], split: tuple[tuple[PortEnd, int], ...]
) -> Counter[tuple[PortEnd, float, int]]:
    """The cages of one leaf by (end, run of the cage's longest lane, lanes used)."""
    cages: Counter[tuple[PortEnd, float, int]] = Counter()
    first = 0
    for end, links in split:
        for start in range(0, links, end.ways):
            lanes = min(end.ways, links - start)
            cages[(end, max(runs[first + start : first + start + lanes]), lanes)] += 1
        first += links
    return cages


def down_units(
    shape: PlaneShape, layout: Layout, model: SwitchModel
) -> dict[PortEnd, Counter[tuple[float, int]]]:
    """Every leaf's server-facing cages, by end and (run, lanes), leaf by leaf as the cabling
    plan wires them; leaves with the same geometry are computed once."""
    units: dict[PortEnd, Counter[tuple[float, int]]] = {}
    memo: dict[tuple[object, ...], Counter[tuple[PortEnd, float, int]]] = {}
    period = layout.servers_per_rack * layout.racks_per_row
    nic = shape.nic_speed_gbps

    def add(key_args: tuple[int, int, int, int, int, int], times: int) -> None:
        servers, downlinks, first_server, leaf_index, within, fabric_plane = key_args
        split = leaf_split(model, nic, downlinks)
        args = (shape, layout, servers, downlinks, first_server, leaf_index, within, fabric_plane)
        key = leaf_pattern_key(*args)
        cages = memo.get(key)
        if cages is None:
            cages = memo[key] = _leaf_cages(leaf_link_runs(*args), split)
        for (end, run, lanes), count in cages.items():
            units.setdefault(end, Counter())[(run, lanes)] += count * times

    for fabric_plane in range(shape.fabric_planes):
        leaf_index = first_server = 0
        for group in shape.leaf_groups:
            if shape.style == "packed":
                for _ in range(group.count * group.leaves):
                    args = (group.servers, group.downlinks_per_leaf, first_server, leaf_index, 0,
                            fabric_plane)  # fmt: skip
                    add(args, 1)
                    leaf_index += 1
                first_server += group.servers * group.count
                continue
            # Geometry repeats every `cycle` groups: count each distinct start once.
            cycle = period // math.gcd(period, group.servers or 1)
            for i in range(min(group.count, cycle)):
                times = (group.count - i + cycle - 1) // cycle
                start = first_server + i * group.servers
                for within in range(group.leaves):
                    index = leaf_index + i * group.leaves + within
                    args = (group.servers, group.downlinks_per_leaf, start, index, within,
                            fabric_plane)  # fmt: skip
                    add(args, times)
            leaf_index += group.count * group.leaves
            first_server += group.servers * group.count
    return units


@dataclass(frozen=True, kw_only=True)
class FabricParts:
    leaf_up: tuple[DownPart, ...] = ()
    spine_down: tuple[DownPart, ...] = ()
    spine_up: tuple[DownPart, ...] = ()
    core_down: tuple[DownPart, ...] = ()


def fabric_parts(shape: PlaneShape, models: PlaneModels) -> FabricParts:
    """The port groups each switch-to-switch end uses (`wiring.port_parts`)."""
    if shape.tiers < 2:
        return FabricParts()
    nic, up, core = shape.nic_speed_gbps, shape.uplink_speed_gbps, shape.core_speed_gbps
    leaf_up = port_parts(models.leaf, nic, shape.leaf_downlinks, up, shape.leaf_uplinks)[1]
    spine_down, spine_up = port_parts(
        models.spine, up, shape.spine_downlinks, core, shape.spine_uplinks
    )
    core_down: tuple[DownPart, ...] = ()
    if shape.tiers == 3:
        core_down = port_parts(models.core, core, shape.pods * shape.spine_core_links, 0, 0)[0]
    return FabricParts(
        leaf_up=leaf_up, spine_down=spine_down, spine_up=spine_up, core_down=core_down
    )


def _part_label(part: DownPart, speed: int) -> str:
    form = part.form_factor.value if part.form_factor else "?"
    return f"{form} {part.ways}x{speed}G" if part.ways > 1 else f"{form} {speed}G"


def _end(part: DownPart) -> PortEnd:
    return PortEnd(form_factor=part.form_factor, native_gbps=0, ways=part.ways)


@functools.lru_cache(maxsize=512)
def _tally_fabric(
    spans: tuple[tuple[tuple[float, ...], int], ...],
    links: int,
    switches: int,
    copies: int,
    upper: tuple[DownPart, ...],
    lower: tuple[DownPart, ...],
) -> (
    tuple[dict[tuple[int, int], Counter[tuple[float, int]]], dict[tuple[int, int], Counter[float]]]
    | None
):
    """Upper cages by (run, lanes) and lower cages by run, per (upper part, lower part), over
    every span; None when a cage would join ports of different kinds. Pure geometry, so it is
    computed once per layout of spans (the caller must not change the counters)."""
    units: dict[tuple[int, int], Counter[tuple[float, int]]] = {}
    lowers: dict[tuple[int, int], Counter[float]] = {}
    for runs, times in spans:  # pods alike in their rows count once
        cages = fabric_cages(runs, links, switches, upper, lower)
        if cages.mixed:
            return None
        # When a lower cage's lanes were cut to different lengths, its module serves links of
        # several runs: all of them take the longest run, so one group holds the whole cage.
        longest = max((run for (_, _, run, _), _ in cages.upper), default=0.0)
        for (ui, li, run, lanes), count in cages.upper:
            if (ui, li) not in units:
                units[(ui, li)] = Counter()
            units[(ui, li)][(longest if cages.split else run, lanes)] += count * copies * times
        for (ui, li, run), count in cages.lower:
            if (ui, li) not in lowers:
                lowers[(ui, li)] = Counter()
            lowers[(ui, li)][longest if cages.split else run] += count * copies * times
    return units, lowers


@functools.lru_cache(maxsize=256)
def pod_spans(shape: PlaneShape, layout: Layout) -> tuple[tuple[tuple[float, ...], int], ...]:
    """Each pod's leaf runs and how many pods share them: pure geometry of shape and layout."""
    return pods_by_runs(shape, layout)


def fabric_groups(
    plane: str,
    a: str,
    b: str,
    spans: tuple[tuple[tuple[float, ...], int], ...],
    links: int,
    switches: int,
    copies: int,
    speed: int,
    upper: tuple[DownPart, ...],
    lower: tuple[DownPart, ...],
    selector: MediaSelector,
) -> list[tuple[LinkGroup, tuple[float, ...]]]:
    """Link groups between the lower devices of each span (their runs, in order) and the
    `switches` upper switches serving it, `copies` times over (fabric planes, core groups)."""
    tallied = _tally_fabric(spans, links, switches, copies, upper, lower)
    if tallied is None:
        raise SwitchMismatch(
            text(
                gettext_noop(
                    "%(plane)s %(a)s-%(b)s: one cage's links would land in ports of "
                    "different kinds at the other end (%(upper)s and %(lower)s), which no "
                    "cable or module joins; choose a %(b)s switch with one kind of port at "
                    "%(speed)sG."
                ),
                plane=plane,
                a=a,
                b=b,
                upper=" + ".join(_part_label(p, speed) for p in upper),
                lower=" + ".join(_part_label(p, speed) for p in lower),
                speed=speed,
            )
        )
    units, lowers = tallied
    out: list[tuple[LinkGroup, tuple[float, ...]]] = []
    for (ui, li), counted in sorted(units.items()):
        top, bottom = upper[ui], lower[li]
        # Lanes of one cage may share a straight cable only if they all join the same two cages.
        shared = links % top.ways == 0 and links % bottom.ways == 0
        out += link_groups(
            plane, a, b, counted, speed, _end(top), _end(bottom), selector, shared,
            lower_by_run=lowers.get((ui, li), Counter()),
        )  # fmt: skip
    return out
