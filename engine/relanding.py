"""Which of today's switch-to-switch cables a grown design's cabling schedule lands elsewhere.

Issue 26: a growth step said "512 cables move" (the least any re-landing needs) while the grown
design's schedule re-lands 1,023 of 1,024: ports are numbered by a formula of the spine count
(`engine.cabling`), so almost every leaf-spine cable changes its spine end. The figure a step
states, and the list an installer follows, are therefore read from the two schedules as the
engine produces them, not from the shape: after the step, the fabric matches the grown design's
documents (labels, NetBox, the as-built check) cable for cable.

Today's links are enumerated with the names, ports, media groups and breakout cables
`engine.cabling` gives them (`_fabric_links`, `_switch_link`, `_cables`), and each one's far end
in the grown design is computed from that design's port formula, never by reading its schedule:
the grown design is often eight times today's size (millions of rows at 1,000,000 GPUs).

Counting (what every page showing the plan asks) does not visit every link either: the pattern
repeats. Fabric planes are identical copies; with the same pod size, every pod's leaf-spine
links meet the same spine ports; and a spine-core link keeps its ends only if it keeps its core
(which depends on the spine's place in its pod, not on the pod) and its core port (which depends
on the pod, not on the spine). So one fabric plane is counted, one pod of each kind, one spine
place of each kind, and multiplied. The list of moves (`with_moves`) visits every link. The
tests hold both against the two schedules diffed in full, server links included.

Server links stay where they are when the grown design's units hold as many servers on leaf
ports numbered alike, which is checked unit by unit from the shapes. A unit sized for an even
spread of today's uplinks can hold fewer servers than the grown design's: then the grown
schedule moves servers to other leaves, and both schedules' server rows are compared."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from engine import names
from engine.cabling import CablingRow, iter_cabling, leaf_uplink_end, spine_uplink_end
from engine.design import Design, DownPart, LinkGroup, PlaneDesign, PlaneShape
from engine.geometry import pod_leaf_runs, spine_core_runs_m
from engine.request import Layout
from engine.wiring import locate, lower_part_of_cage, port_name, upper_cage_runs

End = tuple[str, str]  # (device, port), as the cabling schedule names them
_Runs = tuple[tuple[float, ...], ...]  # the run of every upper cage, per upper part


@dataclass(frozen=True, kw_only=True)
class Move:
    """One link of a re-landed cable: its leaf (spine) end `lower`, which stays, and its spine
    (core) end before and after; `upper_after` None when the grown design no longer uses that
    leaf port as an uplink (the cable comes out)."""

    tiers: str  # "leaf-spine" or "spine-core"
    lower: End
    upper_before: End
    upper_after: End | None  # None: the port is no uplink of the grown design (cable removed)


@dataclass(frozen=True, kw_only=True)
class Relanding:
    """Today's switch-to-switch cables, and those the grown schedule lands elsewhere."""

    cables: int
    moved: int
    moves: tuple[Move, ...]
    # Server cables today and those the grown schedule puts on other leaf ports: none unless
    # the grown design's units hold other numbers of servers (then both schedules were read).
    server_cables: int = 0
    server_moved: int = 0


class _Link(NamedTuple):
    tiers: str
    lower: End
    upper: End
    grown: End | None  # the upper end the grown schedule gives the same lower end
    cable: tuple[str, int]  # the bundled cage and its group, as `cabling._cables` keys them
    per_cable: int  # links one cable carries (1: the link is its own cable)


def _leaf_upper(shape: PlaneShape, fabric_plane: int, leaf: int, k: int) -> tuple[str, int] | None:
    """`cabling.leaf_uplink_end` where the shape has that link; None where it has not."""
    if shape.tiers < 2 or leaf >= shape.leaves or k >= shape.leaf_uplinks:
        return None
    return leaf_uplink_end(shape, fabric_plane, leaf, k)


def _core_upper(
    shape: PlaneShape, fabric_plane: int, pod: int, spine: int, k: int
) -> tuple[str, int] | None:
    """`cabling.spine_uplink_end` where the shape has that link; None where it has not."""
    if shape.tiers < 3 or pod >= shape.pods or spine >= shape.spines_per_pod:
        return None
    if k >= shape.spine_uplinks:
        return None
    return spine_uplink_end(shape, fabric_plane, pod, spine, k)


def _one_link_cables(plane: PlaneDesign, lower: str) -> bool:
    """Whether every cable up from tier `lower` carries one link: then which medium a run
    takes, and so the runs themselves, cannot change how links gather into cables."""
    return all(
        plane.links[run.link_index].links_per_cable <= 1 for run in plane.runs if run.a == lower
    )


def _same_names(a: PlaneShape, b: PlaneShape) -> bool:
    """Whether both shapes give a device of the same number the same name (`engine.names`
    reads these fields and no other)."""
    fields = ("plane", "style", "fabric_planes", "tiers", "ports_per_server")
    return all(getattr(a, f) == getattr(b, f) for f in fields) and (
        a.leaves_per_group == b.leaves_per_group
    )


class _Pair:
    """One plane today (`before`) and in the grown design (`after`, None when it has none)."""

    def __init__(self, before: PlaneDesign, after: PlaneDesign | None, layout: Layout) -> None:
        self.before = before
        self.after = after
        self.layout = layout
        self.same_names = after is not None and _same_names(before.shape, after.shape)
        self._media: dict[tuple[str, float, DownPart, DownPart], LinkGroup] = {}
        self._ports: dict[tuple[tuple[DownPart, ...], int], dict[str, int]] = {}
        self._leaves: dict[str, tuple[int, int]] | None = None
        self._spines: dict[str, tuple[int, int, int]] | None = None

    # The grown design's end of a link, found by the lower end's device and port names.

    def _port_index(self, parts: tuple[DownPart, ...], uplinks: int, port: str) -> int | None:
        found = self._ports.get((parts, uplinks))
        if found is None:
            found = {port_name(parts, k)[0]: k for k in range(uplinks)}
            self._ports[parts, uplinks] = found
        return found.get(port)

    def grown_leaf(self, fabric_plane: int, leaf: int, name: str) -> tuple[int, int] | None:
        """(fabric plane, leaf number) of the grown design's leaf called `name`."""
        assert self.after is not None
        shape = self.after.shape
        if self.same_names and fabric_plane < shape.fabric_planes and leaf < shape.leaves:
            return fabric_plane, leaf
        if self.same_names:  # the same name would be the same number: it has no such leaf
            return None
        if self._leaves is None:  # names differ: look them up (rare, the grown plane's leaves)
            self._leaves = {
                names.leaf(shape, f, i): (f, i)
                for f in range(shape.fabric_planes)
                for i in range(shape.leaves)
            }
        return self._leaves.get(name)

    def grown_spine(
        self, fabric_plane: int, pod: int, spine: int, name: str
    ) -> tuple[int, int, int] | None:
        assert self.after is not None
        shape = self.after.shape
        if (self.same_names and fabric_plane < shape.fabric_planes and pod < shape.pods
                and spine < shape.spines_per_pod):  # fmt: skip
            return fabric_plane, pod, spine
        if self.same_names:
            return None
        if self._spines is None:
            self._spines = {
                names.spine(shape, f, p, s): (f, p, s)
                for f in range(shape.fabric_planes) if shape.tiers == 3
                for p in range(shape.pods) for s in range(shape.spines_per_pod)
            }  # fmt: skip
        return self._spines.get(name)

    def grown_leaf_end(self, leaf: tuple[int, int] | None, port: str) -> End | None:
        after = self.after
        if after is None or leaf is None:
            return None
        k = self._port_index(after.leaf_up_parts, after.shape.leaf_uplinks, port)
        upper = None if k is None else _leaf_upper(after.shape, leaf[0], leaf[1], k)
        return None if upper is None else (upper[0], port_name(after.spine_down_parts, upper[1])[0])

    def grown_spine_end(self, spine: tuple[int, int, int] | None, port: str) -> End | None:
        after = self.after
        if after is None or spine is None:
            return None
        k = self._port_index(after.spine_up_parts, after.shape.spine_uplinks, port)
        upper = None if k is None else _core_upper(after.shape, *spine, k)
        return None if upper is None else (upper[0], port_name(after.core_down_parts, upper[1])[0])

    # Today's links, as `cabling._switch_link` builds them.

    def link(
        self,
        tiers: tuple[str, str],
        parts: tuple[tuple[DownPart, ...], tuple[DownPart, ...], int, _Runs],
        upper: tuple[str, int, int],
        lower: tuple[str, int],
        grown: Callable[[str], End | None],
    ) -> _Link:
        """Link from `lower` (device, uplink index) to `upper` (switch, port index, the lower
        device's upper switch number), over `parts` (upper, lower, links to each upper switch,
        the upper cages' runs); `grown` the grown design's upper end of a port of `lower`."""
        upper_parts, lower_parts, links, runs = parts
        part, cage, _ = locate(upper_parts, upper[1])
        upper_port, upper_cage = port_name(upper_parts, upper[1])
        lower_port, lower_cage = port_name(lower_parts, lower[1])
        li = lower_part_of_cage(upper_parts, lower_parts, links, upper[2], part, cage)
        key = (tiers[0], runs[part][cage], upper_parts[part], lower_parts[li])
        group = self._media.get(key)
        if group is None:
            group = self.before.run_media(tiers[0], tiers[1], *key[1:])
            self._media[key] = group
        end = group.end_b
        bundled_lower = end is not None and group.links_per_cable > end.links_per_cage
        cage_name = f"{lower[0]}:{lower_cage}" if bundled_lower else f"{upper[0]}:{upper_cage}"
        return _Link(
            tiers=f"{tiers[0]}-{tiers[1]}", lower=(lower[0], lower_port),
            upper=(upper[0], upper_port), grown=grown(lower_port), cable=(cage_name, id(group)),
            per_cable=group.links_per_cable,
        )  # fmt: skip


def _leaf_spine(pair: _Pair, fabric_plane: int, leaves: Iterable[int]) -> Iterator[_Link]:
    """The uplinks of `leaves`, in the order `cabling._fabric_links` gives them."""
    plane = pair.before
    shape = plane.shape
    m = shape.leaf_spine_links
    pod_leaves = shape.groups_per_pod * shape.leaves_per_group
    cage_runs: dict[int, _Runs] = {}
    for leaf in leaves:
        name = names.leaf(shape, fabric_plane, leaf)
        pod = leaf // pod_leaves if shape.tiers == 3 else 0
        runs = cage_runs.get(pod)
        if runs is None:
            lower_runs = pod_leaf_runs(shape, pair.layout, pod)
            runs = cage_runs[pod] = upper_cage_runs(lower_runs, m, plane.spine_down_parts)
        parts = (plane.spine_down_parts, plane.leaf_up_parts, m, runs)
        device = None if pair.after is None else pair.grown_leaf(fabric_plane, leaf, name)

        def grown(port: str, device: tuple[int, int] | None = device) -> End | None:
            return pair.grown_leaf_end(device, port)

        for k in range(shape.leaf_uplinks):
            upper = _leaf_upper(shape, fabric_plane, leaf, k)
            assert upper is not None
            yield pair.link(("leaf", "spine"), parts, (*upper, k // m), (name, k), grown)


def _spine_core(
    pair: _Pair, fabric_plane: int, pods: Iterable[int], spines: Iterable[int]
) -> Iterator[_Link]:
    """The core links of `spines` of each of `pods`, in `cabling._fabric_links` order."""
    plane = pair.before
    shape = plane.shape
    m = shape.spine_core_links
    runs = upper_cage_runs(spine_core_runs_m(shape, pair.layout), m, plane.core_down_parts)
    parts = (plane.core_down_parts, plane.spine_up_parts, m, runs)
    spines = tuple(spines)
    for pod in pods:
        for spine in spines:
            name = names.spine(shape, fabric_plane, pod, spine)
            device = None
            if pair.after is not None:
                device = pair.grown_spine(fabric_plane, pod, spine, name)

            def grown(port: str, device: tuple[int, int, int] | None = device) -> End | None:
                return pair.grown_spine_end(device, port)

            for k in range(shape.spine_uplinks):
                upper = _core_upper(shape, fabric_plane, pod, spine, k)
                assert upper is not None
                yield pair.link(("spine", "core"), parts, (*upper, k // m), (name, k), grown)


def _tally(links: Iterable[_Link], moves: list[Move] | None) -> tuple[int, int]:
    """(cables, re-landed cables) of `links`, gathered into cables as `cabling._cables` does:
    a cable carrying several links fills with the lanes of one cage in the order they come, and
    is re-landed when any of its links is."""
    cables = moved = 0
    open_cages: dict[tuple[str, int], list[bool]] = {}
    for link in links:
        relanded = link.grown != link.upper
        if relanded and moves is not None:
            moves.append(Move(tiers=link.tiers, lower=link.lower, upper_before=link.upper,
                              upper_after=link.grown))  # fmt: skip
        if link.per_cable <= 1:
            cables += 1
            moved += relanded
            continue
        lanes = open_cages.setdefault(link.cable, [])
        lanes.append(relanded)
        if len(lanes) >= link.per_cable:
            del open_cages[link.cable]
            cables += 1
            moved += any(lanes)
    for lanes in open_cages.values():  # partly used cages
        cables += 1
        moved += any(lanes)
    return cables, moved


def _add(total: tuple[int, int], part: tuple[int, int], times: int = 1) -> tuple[int, int]:
    return total[0] + part[0] * times, total[1] + part[1] * times


def _leaf_spine_count(pair: _Pair, fabric_plane: int) -> tuple[int, int]:
    """One fabric plane's leaf-spine (cables, re-landed): on three tiers whose pods keep their
    size, a pod's links differ from another's only in the pod's number, which both designs
    give the same spines: pods alike in leaves (today and grown) and runs are counted once."""
    shape, after = pair.before.shape, pair.after
    leaves = shape.leaves
    pod_leaves = shape.groups_per_pod * shape.leaves_per_group
    if shape.tiers != 3 or after is None or not pair.same_names or after.shape.tiers != 3 or (
        after.shape.groups_per_pod * after.shape.leaves_per_group != pod_leaves
    ):  # fmt: skip
        return _tally(_leaf_spine(pair, fabric_plane, range(leaves)), None)
    seen: dict[tuple[int, int, tuple[float, ...]], tuple[int, int]] = {}
    single = _one_link_cables(pair.before, "leaf")
    total = (0, 0)
    for pod in range(-(-leaves // pod_leaves)):
        first = pod * pod_leaves
        today = min(leaves, first + pod_leaves) - first
        grown = max(0, min(after.shape.leaves, first + pod_leaves) - first)
        # Runs decide the media, and media how links gather into cables: pods whose leaves
        # stand elsewhere in their rows are alike only when every cable carries one link.
        runs = () if single else pod_leaf_runs(shape, pair.layout, pod)
        key = (today, grown, runs)
        count = seen.get(key)
        if count is None:
            count = seen[key] = _tally(_leaf_spine(pair, fabric_plane, range(first, first + today)),
                                       None)  # fmt: skip
        total = _add(total, count)
    return total


def _spine_core_count(pair: _Pair, fabric_plane: int) -> tuple[int, int]:
    """One fabric plane's spine-core (cables, re-landed). A link keeps both ends when it keeps
    its core, which depends on the spine's place in its pod and not on the pod, and its core
    port, which depends on the pod and not on the spine; a cable gathers links of one spine
    place (a core's cage, a spine's cage). So spine places that keep the same links' cores are
    counted once, over every pod."""
    shape, after = pair.before.shape, pair.after
    pods = range(shape.pods)
    if after is None or not pair.same_names or after.shape.tiers != 3:
        return _tally(_spine_core(pair, fabric_plane, pods, range(shape.spines_per_pod)), None)
    kinds: dict[tuple[bool, ...], list[int]] = {}
    for spine in range(shape.spines_per_pod):
        grown = pair.grown_spine(fabric_plane, 0, spine, names.spine(shape, fabric_plane, 0, spine))
        kept = []
        for k in range(shape.spine_uplinks):
            upper = _core_upper(shape, fabric_plane, 0, spine, k)
            assert upper is not None
            port = port_name(pair.before.spine_up_parts, k)[0]
            end = pair.grown_spine_end(grown, port)
            kept.append(end is not None and end[0] == upper[0])
        kinds.setdefault(tuple(kept), []).append(spine)
    total = (0, 0)
    for spines in kinds.values():
        count = _tally(_spine_core(pair, fabric_plane, pods, spines[:1]), None)
        total = _add(total, count, len(spines))
    return total


def _units(shape: PlaneShape) -> Iterator[tuple[int, int, int, int]]:
    """(first server, servers, leaves, downlinks a leaf) of each leaf group, in leaf order."""
    first = 0
    for group in shape.leaf_groups:
        for _ in range(group.count):
            yield first, group.servers, group.leaves, group.downlinks_per_leaf
            first += group.servers


def _leaf_ports(plane: PlaneDesign, downlinks: int) -> tuple[str, ...]:
    """A leaf's server-facing ports in link order, as `cabling._server_links` names them."""
    return tuple(
        names.port(offset % part.ways, part.ways, part.first_port + offset // part.ways)
        for part in plane.leaf_parts(downlinks)
        for offset in range(part.links)
    )


def _servers_stay(before: PlaneDesign, after: PlaneDesign | None) -> bool:
    """Whether every server link of `before` is a link of `after` (`cabling._server_links`:
    a unit's servers on its leaves in order, each leaf's links on its ports in order): the
    same names and units of the same size, each of today's units within the grown one of the
    same number, on leaf ports numbered alike. Packed planes number endpoints across leaves:
    not taken as staying."""
    b = before.shape
    if b.servers == 0:
        return True
    if after is None or b.style == "packed" or not _same_names(b, after.shape):
        return False
    a = after.shape
    if (b.group_servers, b.links_per_server_per_leaf) != (a.group_servers,
                                                          a.links_per_server_per_leaf):  # fmt: skip
        return False
    grown = _units(a)
    checked: set[tuple[int, int]] = set()
    for first, servers, leaves, downlinks in _units(b):
        other = next(grown, None)
        if other is None or (first, leaves) != (other[0], other[2]) or servers > other[1]:
            return False
        if (downlinks, other[3]) not in checked:
            ports = _leaf_ports(before, downlinks)
            if _leaf_ports(after, other[3])[: len(ports)] != ports:
                return False
            checked.add((downlinks, other[3]))
    return True


_SERVER = re.compile(r"srv0*(\d+)")


def _server_ends(row: CablingRow) -> Iterator[tuple[End, End]]:
    """A server row's links, servers known by number: a grown design of 10,000 servers or
    more pads srv0042 to srv00042, a new label on the same server."""
    for leaf, server in _row_links(row):
        yield leaf, (_SERVER.sub(r"srv\1", server[0]), server[1])


def _server_rows(design: Design) -> Iterator[CablingRow]:
    """The schedule's server rows: those whose upper end is a leaf."""
    leaves = {
        names.leaf(plane.shape, fabric_plane, leaf)
        for plane in design.planes
        for fabric_plane in range(plane.shape.fabric_planes)
        for leaf in range(plane.shape.leaves)
    }
    return (row for row in iter_cabling(design) if row.a_device in leaves)


def _server_relanding(before: Design, after: Design) -> tuple[int, int]:
    """(today's server cables, those on other leaf ports in `after`), (0, 0) when every plane's
    servers stay; else read from both schedules (units that change size are rare, and a
    step's new leaves would otherwise have to be derived from the unit arithmetic here too)."""
    grown = {plane.name: plane for plane in after.planes}
    if all(_servers_stay(plane, grown.get(plane.name)) for plane in before.planes):
        return 0, 0
    landed = {link for row in _server_rows(after) for link in _server_ends(row)}
    cables = moved = 0
    for row in _server_rows(before):
        cables += 1
        moved += any(link not in landed for link in _server_ends(row))
    return cables, moved


def _pairs(before: Design, after: Design) -> Iterator[_Pair]:
    grown = {plane.name: plane for plane in after.planes}
    for plane in before.planes:
        if plane.shape.tiers >= 2:
            yield _Pair(plane, grown.get(plane.name), before.request.layout)


def relanding(before: Design, after: Design, *, with_moves: bool = False) -> Relanding:
    """Today's (`before`) switch-to-switch cables whose ends differ in `after`'s schedule: a
    cable is re-landed when any link it carries is. `with_moves` lists them, link by link,
    visiting every link; without it one of each repeating kind is counted."""
    if with_moves:
        return _listed(before, after)
    total = (0, 0)
    for pair in _pairs(before, after):
        shape = pair.before.shape
        alike = pair.same_names and pair.after is not None
        # Fabric planes are copies: alike in both designs, one stands for all.
        planes = [0] if alike else list(range(shape.fabric_planes))
        times = shape.fabric_planes if alike else 1
        for fabric_plane in planes:
            total = _add(total, _leaf_spine_count(pair, fabric_plane), times)
            if shape.tiers >= 3:
                total = _add(total, _spine_core_count(pair, fabric_plane), times)
    servers = _server_relanding(before, after)
    return Relanding(cables=total[0], moved=total[1], moves=(), server_cables=servers[0],
                     server_moved=servers[1])  # fmt: skip


def _listed(before: Design, after: Design) -> Relanding:
    moves: list[Move] = []
    total = (0, 0)
    for pair in _pairs(before, after):
        shape = pair.before.shape
        for fabric_plane in range(shape.fabric_planes):
            links = _leaf_spine(pair, fabric_plane, range(shape.leaves))
            total = _add(total, _tally(links, moves))
            if shape.tiers >= 3:
                links = _spine_core(pair, fabric_plane, range(shape.pods),
                                    range(shape.spines_per_pod))  # fmt: skip
                total = _add(total, _tally(links, moves))
    servers = _server_relanding(before, after)
    return Relanding(cables=total[0], moved=total[1], moves=tuple(moves),
                     server_cables=servers[0], server_moved=servers[1])  # fmt: skip


def _row_links(row: CablingRow) -> Iterator[tuple[End, End]]:
    """The links one schedule row carries: a breakout row joins its lanes' ports with "+",
    and its devices too when the lanes reach several."""
    a_ports, b_ports = row.a_port.split("+"), row.b_port.split("+")
    a_devices = row.a_device.split("+") if "+" in row.a_device else [row.a_device] * len(a_ports)
    b_devices = row.b_device.split("+") if "+" in row.b_device else [row.b_device] * len(b_ports)
    yield from zip(zip(a_devices, a_ports, strict=True), zip(b_devices, b_ports, strict=True),
                   strict=True)  # fmt: skip


def schedule_relanding(before: Design, after: Design) -> Relanding:
    """Every cable of `before`'s schedule, server links included, whose ends differ in
    `after`'s: for designs of one size (a rebuild for growth), where reading both schedules
    costs no more than printing them, and units that change move servers to other leaves."""
    grown = {link for row in iter_cabling(after) for link in _row_links(row)}
    cables = moved = 0
    for row in iter_cabling(before):
        cables += 1
        if any(link not in grown for link in _row_links(row)):
            moved += 1
    return Relanding(cables=cables, moved=moved, moves=())


__all__ = ["End", "Move", "Relanding", "relanding", "schedule_relanding"]
