"""Which cage of which port group every switch-to-switch link lands in, at both ends.

A switch fills its ports the way `ports.leaf_capacity` counts them: downlinks on the slowest
groups first, uplinks on the fastest free cages. Either side may span port groups (48 x SFP28
and 8 x QSFP28 broken out 4x25G), so each end is a sequence of parts, and sizing and the
cabling plan both read cages from the same enumeration here: the bill of materials and the
cabling schedule cannot disagree."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import NamedTuple

from engine.design import DownPart
from engine.ports import SwitchModel, per_model, ways


@per_model
def port_parts(
    model: SwitchModel, down_gbps: int, downlinks: int, up_gbps: int, uplinks: int
) -> tuple[tuple[DownPart, ...], tuple[DownPart, ...]]:
    """(downlink parts, uplink parts) of one switch, each part consecutive links on one port
    group, numbered from its first free physical port (0-based)."""
    first, firsts = 0, {}
    for group in model.port_groups:
        firsts[id(group)] = first
        first += group.count
    free: dict[int, int] = {}
    down: list[DownPart] = []
    remaining = downlinks
    for group in sorted(model.port_groups, key=lambda g: (g.speed_gbps, -g.count)):
        per_port = ways(group, down_gbps)
        used = 0
        if per_port and remaining > 0:
            carried = min(remaining, group.count * per_port)
            used = -(-carried // per_port)
            remaining -= carried
            down.append(DownPart(group.form_factor, per_port, carried, firsts[id(group)]))
        free[id(group)] = group.count - used
    up: list[DownPart] = []
    remaining = uplinks
    for group in sorted(model.port_groups, key=lambda g: g.speed_gbps, reverse=True):
        per_port = ways(group, up_gbps) if up_gbps else 0
        cages = free[id(group)]
        if per_port and remaining > 0 and cages > 0:
            carried = min(remaining, cages * per_port)
            remaining -= carried
            start = firsts[id(group)] + group.count - cages
            up.append(DownPart(group.form_factor, per_port, carried, start))
    return tuple(down), tuple(up)


def slice_parts(parts: tuple[DownPart, ...], start: int, count: int) -> tuple[DownPart, ...]:
    """Links [start, start + count) of a switch's parts, as parts of their own: the spine ports
    a pool's leaves take after the ports before them (`start` falls on a cage's first lane)."""
    out: list[DownPart] = []
    for part in parts:
        if count <= 0:
            break
        if start >= part.links:
            start -= part.links
            continue
        assert start % part.ways == 0, "a pool's links start on a cage's first lane"
        taken = min(part.links - start, count)
        out.append(part._replace(links=taken, first_port=part.first_port + start // part.ways))
        count -= taken
        start = 0
    return tuple(out)


def locate(parts: tuple[DownPart, ...], index: int) -> tuple[int, int, int]:
    """(part, cage within the part, lane within the cage) of link `index` (0-based)."""
    for number, part in enumerate(parts):
        if index < part.links:
            cage, lane = divmod(index, part.ways)
            return number, cage, lane
        index -= part.links
    raise IndexError(index)


def port_name(parts: tuple[DownPart, ...], index: int) -> tuple[str, int]:
    """The port name of link `index` ("swp3", or "swp49s2" for a lane of a broken-out cage) and
    its physical cage (0-based)."""
    number, cage, lane = locate(parts, index)
    part = parts[number]
    physical = part.first_port + cage
    name = f"swp{physical + 1}s{lane + 1}" if part.ways > 1 else f"swp{physical + 1}"
    return name, physical


class FabricCages(NamedTuple):
    """Counts for the links between one set of upper switches and the lower devices they
    serve, by (upper part, lower part, run of the upper cage): the upper cages by lanes used,
    the lower cages, and the links."""

    upper: tuple[tuple[tuple[int, int, float, int], int], ...]
    lower: tuple[tuple[tuple[int, int, float], int], ...]
    links: tuple[tuple[tuple[int, int, float], int], ...]
    # A cage whose lanes would land in cages of different port groups at the far end: no
    # breakout assembly or module can be built for it.
    mixed: bool = False
    # A lower cage whose lanes reach upper cages cut to different lengths: its module serves
    # links of more than one run, so the runs cannot be split into separate groups.
    split: bool = False


def upper_cage_runs(
    lower_runs: tuple[float, ...], links: int, upper: tuple[DownPart, ...]
) -> tuple[tuple[float, ...], ...]:
    """The run of every upper cage, per upper part: lower device `i` takes `links` consecutive
    upper ports, and a cage is cut for the farthest device its lanes reach."""
    return _upper_cage_runs(lower_runs, links, upper)


@lru_cache(maxsize=1024)
def _upper_cage_runs(
    lower_runs: tuple[float, ...], links: int, upper: tuple[DownPart, ...]
) -> tuple[tuple[float, ...], ...]:
    out = []
    start = 0
    total = len(lower_runs) * links
    for part in upper:
        runs = []
        stop = min(start + part.links, total)
        for low in range(start, stop, part.ways):
            high = min(low + part.ways, stop)
            runs.append(max(lower_runs[index // links] for index in range(low, high)))
        out.append(tuple(runs))
        start += part.links
    return tuple(out)


def lower_part_of_cage(
    upper: tuple[DownPart, ...], lower: tuple[DownPart, ...], links: int, switch: int,
    part: int, cage: int,
) -> int:  # fmt: skip
    """The lower part the first lane of an upper cage lands in, on upper switch `switch`: a
    cage's lanes all join the group of its first lane."""
    first_lane = sum(p.links for p in upper[:part]) + cage * upper[part].ways
    k = switch * links + first_lane % links  # that lane's index among the device's uplinks
    return locate(lower, k)[0]


@lru_cache(maxsize=256)
def fabric_cages(
    lower_runs: tuple[float, ...],
    links: int,
    switches: int,
    upper: tuple[DownPart, ...],
    lower: tuple[DownPart, ...],
) -> FabricCages:
    """Every cage between `switches` upper switches and the lower devices whose runs are
    `lower_runs`, each device with `links` links to each upper switch (its uplink k goes to
    upper switch k // links)."""
    cage_runs = _upper_cage_runs(lower_runs, links, upper)
    upper_count: Counter[tuple[int, int, float, int]] = Counter()
    link_count: Counter[tuple[int, int, float]] = Counter()
    keys: dict[tuple[int, int, int], int] = {}  # (switch, upper part, cage) -> lower part
    mixed = False
    split = False
    total = len(lower_runs) * links
    for switch in range(switches):
        start = 0
        for number, part in enumerate(upper):
            for cage, run in enumerate(cage_runs[number]):
                low = start + cage * part.ways
                lanes = min(part.ways, min(start + part.links, total) - low)
                li = lower_part_of_cage(upper, lower, links, switch, number, cage)
                keys[(switch, number, cage)] = li
                for index in range(low + 1, low + lanes):
                    if locate(lower, switch * links + index % links)[0] != li:
                        mixed = True
                upper_count[(number, li, run, lanes)] += 1
                link_count[(number, li, run)] += lanes
            start += part.links
    lower_count: Counter[tuple[int, int, float]] = Counter()
    for device in range(len(lower_runs)):
        start = 0
        for part in lower:
            for first in range(start, start + part.links, part.ways):
                switch, lane = divmod(first, links)
                number, cage, _ = locate(upper, device * links + lane)
                li = keys[(switch, number, cage)]
                lower_count[(number, li, cage_runs[number][cage])] += 1
                for k in range(first + 1, min(first + part.ways, start + part.links)):
                    other_switch, other_lane = divmod(k, links)
                    other = locate(upper, device * links + other_lane)
                    if other[0] != number or keys[(other_switch, other[0], other[1])] != li:
                        mixed = True
                    elif cage_runs[number][other[1]] != cage_runs[number][cage]:
                        split = True
            start += part.links
    return FabricCages(
        upper=tuple(upper_count.items()),
        lower=tuple(lower_count.items()),
        links=tuple(link_count.items()),
        mixed=mixed,
        split=split,
    )
