"""The cabling plan: one row per physical cable, generated lazily from the design's shape.

The design holds only counts; a million cables at 131,072 GPUs are produced here one at a time,
in a fixed order (plane, tier pair, fabric plane, switch, port), so two runs give the same file."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

from engine import names
from engine.catalog import FormFactor, MediaKind
from engine.design import Design, DownPart, LinkGroup, PlaneDesign, PlaneShape
from engine.geometry import (
    leaf_link_runs,
    pod_leaf_runs,
    rail_style,
    spine_core_runs_m,
)
from engine.pools import pool_layout, pool_of
from engine.request import Layout
from engine.wiring import locate, lower_part_of_cage, port_name, upper_cage_runs

LABEL_PREFIX = {"compute": "CMP", "storage": "STO", "frontend": "FE", "oob": "OOB"}


@dataclass(frozen=True, kw_only=True)
class CablingRow:
    """A is the upper tier's end (the leaf for a server link); a breakout cable lists its legs'
    devices and ports joined by '+'."""

    plane: str
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    media: MediaKind
    length_m: float
    cable_sku: str  # empty for a generic part (a catalog gap): see `cable`
    links: int
    label: str
    speed_gbps: int = 0  # per link
    a_form_factor: str = ""  # the cage at each end
    b_form_factor: str = ""
    a_plug: str = ""  # what goes into the cage: a module, or the cable's own end
    b_plug: str = ""
    cable: str = ""  # SKU, or the generic part's name


@dataclass(frozen=True, kw_only=True)
class _Link:
    a_device: str
    a_port: str
    a_physical: str  # the physical cage, so breakout lanes of one cage share one cable
    b_device: str
    b_port: str
    group: LinkGroup
    b_physical: str = ""  # the lower tier's cage, for breakouts whose bundled end sits there

    @property
    def cage(self) -> str:
        """The cage whose lanes one cable gathers: the bundled end's."""
        end = self.group.end_b
        if end is not None and self.group.links_per_cable > end.links_per_cage:
            return self.b_physical
        return self.a_physical


def _nic_port(plane: str, index: int) -> str:
    return {"compute": "c", "storage": "s", "frontend": "f", "oob": "bmc"}.get(plane, "p") + str(
        index + 1
    )


def _devices(names: Iterable[str]) -> str:
    """A cable's devices at one end: the one device, or one per lane in lane order, so that
    lane k of "spine01+spine02" is unambiguous beside its ports (issue 26: a breakout row to
    two spines listed each once, and a reader had to guess which lanes went where)."""
    lanes = list(names)
    return lanes[0] if len(set(lanes)) == 1 else "+".join(lanes)


def _server_links(
    plane: PlaneDesign, layout: Layout, server_name: Callable[[int], str]
) -> Iterator[_Link]:
    """Server-facing links leaf by leaf, in port order: each link on the port group and cage
    the leaf gives it (`PlaneDesign.down_parts`), each cage cabled for its longest lane."""
    shape = plane.shape
    tier = "endpoint" if shape.style == "packed" else "server"
    # A plane has a few distinct runs and parts and up to millions of links: look each up once.
    media: dict[tuple[float, DownPart], LinkGroup] = {}
    for fabric_plane in range(shape.fabric_planes):
        leaf_index = 0
        first_server = 0
        for group in shape.leaf_groups:
            parts = plane.leaf_parts(group.downlinks_per_leaf)
            for _ in range(group.count):
                for within in range(group.leaves):
                    leaf_name = names.leaf(shape, fabric_plane, leaf_index)
                    runs = leaf_link_runs(
                        shape, layout, group.servers, group.downlinks_per_leaf, first_server,
                        leaf_index, within, fabric_plane,
                    )  # fmt: skip
                    logical = 0
                    for part in parts:
                        for offset in range(part.links):
                            cage, lane = divmod(offset, part.ways)
                            first = logical - lane
                            lanes = min(part.ways, part.links - cage * part.ways)
                            run = max(runs[first : first + lanes])
                            link_group = media.get((run, part))
                            if link_group is None:
                                link_group = plane.run_media(tier, "leaf", run, part)
                                media[run, part] = link_group
                            device, port = _endpoint(
                                plane, shape, leaf_index, logical, first_server, within,
                                fabric_plane, server_name,
                            )  # fmt: skip
                            physical = part.first_port + cage
                            yield _Link(
                                a_device=leaf_name,
                                a_port=names.port(lane, part.ways, physical),
                                a_physical=f"{leaf_name}:{physical}",
                                b_device=device,
                                b_port=port,
                                group=link_group,
                            )
                            logical += 1
                    leaf_index += 1
                first_server += group.servers


def _endpoint(
    plane: PlaneDesign,
    shape: PlaneShape,
    leaf_index: int,
    logical: int,
    first_server: int,
    within: int,
    fabric_plane: int,
    server_name: Callable[[int], str],
) -> tuple[str, str]:
    """The device and port at the far end of a leaf's downlink `logical`."""
    if shape.style == "packed":
        endpoint = leaf_index * shape.leaf_downlinks + logical
        server_ports = shape.servers - shape.extra_endpoints
        if endpoint < server_ports:
            server, nic = divmod(endpoint, shape.ports_per_server)
            return server_name(server), _nic_port(shape.plane, nic)
        return f"{shape.plane}-dev{endpoint - server_ports + 1:05d}", "p1"
    if rail_style(shape):
        nic = fabric_plane * shape.ports_per_server + within
        return server_name(first_server + logical), _nic_port(plane.name, nic)
    per = shape.links_per_server_per_leaf
    server_in_group, port_k = divmod(logical, per)
    nic = fabric_plane * shape.ports_per_server + within * per + port_k
    return server_name(first_server + server_in_group), _nic_port(plane.name, nic)


def leaf_uplink_end(shape: PlaneShape, fabric_plane: int, leaf: int, k: int) -> tuple[str, int]:
    """(spine, its port index) of uplink `k` of leaf `leaf`: uplink k goes to spine k // m of
    the leaf's pod, on port (the leaf's place in its pod) x m + k % m."""
    m = shape.leaf_spine_links
    pod_leaves = shape.groups_per_pod * shape.leaves_per_group
    pod, in_pod = divmod(leaf, pod_leaves) if shape.tiers == 3 else (0, leaf)
    spine, lane = divmod(k, m)
    return names.spine(shape, fabric_plane, pod, spine), in_pod * m + lane


def spine_uplink_end(
    shape: PlaneShape, fabric_plane: int, pod: int, spine: int, k: int
) -> tuple[str, int]:
    """(core, its port index) of core link `k` of spine `spine` of pod `pod`: core
    spine x group + k // m, on port pod x m + k % m."""
    m = shape.spine_core_links
    member, lane = divmod(k, m)
    return names.core(shape, fabric_plane, spine * shape.cores_per_group + member), pod * m + lane


def _fabric_links(plane: PlaneDesign, layout: Layout) -> Iterator[_Link]:
    """Leaf-spine and spine-core links, device by device, each on the cage `wiring` gives it
    at both ends (the same enumeration sizing counted)."""
    shape = plane.shape
    if shape.tiers < 2:
        return
    m = shape.leaf_spine_links
    pod_leaves = shape.groups_per_pod * shape.leaves_per_group
    upper, lower = plane.spine_down_parts, plane.leaf_up_parts
    cage_runs: dict[int, tuple[tuple[float, ...], ...]] = {}
    for fabric_plane in range(shape.fabric_planes):
        for leaf_index in range(shape.leaves):
            leaf_name = names.leaf(shape, fabric_plane, leaf_index)
            pod = leaf_index // pod_leaves if shape.tiers == 3 else 0
            if pod not in cage_runs:
                cage_runs[pod] = upper_cage_runs(pod_leaf_runs(shape, layout, pod), m, upper)
            for k in range(shape.leaf_uplinks):
                spine, port = leaf_uplink_end(shape, fabric_plane, leaf_index, k)
                yield _switch_link(
                    plane, "leaf", "spine", upper, lower, m, cage_runs[pod], spine, port,
                    k // m, leaf_name, k,
                )  # fmt: skip
    if shape.tiers < 3:
        return
    mc = shape.spine_core_links
    upper, lower = plane.core_down_parts, plane.spine_up_parts
    runs = upper_cage_runs(spine_core_runs_m(shape, layout), mc, upper)
    for fabric_plane in range(shape.fabric_planes):
        for pod in range(shape.pods):
            for spine_index in range(shape.spines_per_pod):
                spine_name = names.spine(shape, fabric_plane, pod, spine_index)
                for k in range(shape.spine_uplinks):
                    core, port = spine_uplink_end(shape, fabric_plane, pod, spine_index, k)
                    yield _switch_link(
                        plane, "spine", "core", upper, lower, mc, runs, core, port, k // mc,
                        spine_name, k,
                    )  # fmt: skip


def _switch_link(
    plane: PlaneDesign,
    a: str,
    b: str,
    upper: tuple[DownPart, ...],
    lower: tuple[DownPart, ...],
    links: int,
    cage_runs: tuple[tuple[float, ...], ...],
    upper_name: str,
    upper_index: int,
    switch: int,
    lower_name: str,
    lower_index: int,
) -> _Link:
    """One link: port `upper_index` of switch `upper_name` (the `switch`-th upper switch of the
    lower device) to uplink `lower_index` of `lower_name`."""
    part, cage, _ = locate(upper, upper_index)
    upper_port, upper_cage = port_name(upper, upper_index)
    lower_port, lower_cage = port_name(lower, lower_index)
    li = lower_part_of_cage(upper, lower, links, switch, part, cage)
    return _Link(
        a_device=upper_name,
        a_port=upper_port,
        a_physical=f"{upper_name}:{upper_cage}",
        b_device=lower_name,
        b_port=lower_port,
        b_physical=f"{lower_name}:{lower_cage}",
        group=plane.run_media(a, b, cage_runs[part][cage], upper[part], lower[li]),
    )


def _form(form_factor: FormFactor | None) -> str:
    return form_factor.value if form_factor else "NIC"


class _GroupParts(NamedTuple):
    """What every cable of a link group shares: its cable, plugs and cages."""

    speed_gbps: int
    a_form_factor: str
    b_form_factor: str
    a_plug: str
    b_plug: str
    cable: str


def _group_parts(group: LinkGroup) -> _GroupParts:
    choice = group.choice
    cable = group.cable_sku or (choice.cable.name if choice else "")
    a_plug = b_plug = cable
    if choice is not None and choice.transceiver_a is not None:
        a_plug = choice.transceiver_a.sku or choice.transceiver_a.name
    if choice is not None and choice.transceiver_b is not None:
        b_plug = choice.transceiver_b.sku or choice.transceiver_b.name
    upper, lower = group.end_b, group.end_a
    return _GroupParts(
        speed_gbps=group.speed_gbps,
        a_form_factor=_form(upper.form_factor if upper else None),
        b_form_factor=_form(lower.form_factor if lower else None),
        a_plug=a_plug,
        b_plug=b_plug,
        cable=cable,
    )


def _cables(plane: PlaneDesign, links: Iterator[_Link], counter: list[int]) -> Iterator[CablingRow]:
    """Gather the lanes of one cage into one cable when the cable carries several links."""
    prefix = LABEL_PREFIX.get(plane.name, plane.name.upper())
    pending: list[_Link] = []
    parts: dict[int, _GroupParts] = {}  # by link group: up to millions of cables share a few

    def flush() -> CablingRow:
        first = pending[0]
        single = len(pending) == 1
        counter[0] += 1
        group = first.group
        shared = parts.get(id(group))
        if shared is None:
            shared = parts[id(group)] = _group_parts(group)
        return CablingRow(
            speed_gbps=shared.speed_gbps,
            a_form_factor=shared.a_form_factor,
            b_form_factor=shared.b_form_factor,
            a_plug=shared.a_plug,
            b_plug=shared.b_plug,
            cable=shared.cable,
            plane=plane.name,
            # Most cables carry one link: its own names, without joining (2.8 M rows at 1M GPUs).
            a_device=first.a_device if single else _devices(link.a_device for link in pending),
            a_port=first.a_port if single else "+".join(link.a_port for link in pending),
            b_device=first.b_device if single else _devices(link.b_device for link in pending),
            b_port=first.b_port if single else "+".join(link.b_port for link in pending),
            media=first.group.media,
            length_m=group.length_m if single else max(link.group.length_m for link in pending),
            cable_sku=first.group.cable_sku,
            links=len(pending),
            label=f"{prefix}-{counter[0]:07d}",
        )

    # A cable that carries several links waits until every lane of its cage has come by: the
    # lanes of one spine cage reach it from several leaves, between other leaves' links.
    open_cages: dict[tuple[str, int], list[_Link]] = {}
    for link in links:
        if link.group.links_per_cable <= 1:
            pending = [link]
            yield flush()
            continue
        key = (link.cage, id(link.group))
        lanes = open_cages.setdefault(key, [])
        lanes.append(link)
        if len(lanes) >= link.group.links_per_cable:
            pending = open_cages.pop(key)
            yield flush()
    for lanes in open_cages.values():  # partly used cages
        pending = lanes
        yield flush()


def iter_cabling(design: Design) -> Iterator[CablingRow]:
    request = design.request
    for plane in design.planes:
        counter = [0]
        layout = request.layout
        pool = pool_of(request, plane.name)
        if pool is not None:  # its own racks and server names
            layout = pool_layout(request, pool)
        server_name = _server_names(design, plane.name)
        yield from _cables(plane, _server_links(plane, layout, server_name), counter)
        yield from _cables(plane, _fabric_links(plane, layout), counter)


def _server_names(design: Design, plane: str) -> Callable[[int], str]:
    """Server names as every plane writes them: the first pool's servers srv0001..., another
    pool's pool2-srv0001...; a plane every server joins (storage, frontend, out-of-band) counts
    the first pool's servers, then each other pool's."""
    pools = design.request.pools
    pool = pool_of(design.request, plane)
    if pool is not None:
        return partial(names.server, servers=pool.servers, pool=pool.name)
    if plane == "compute" or not pools:
        return partial(names.server, servers=design.servers)
    first = design.servers

    def name(index: int) -> str:
        if index < first:
            return names.server(index, first)
        index -= first
        for other in pools:
            if index < other.servers:
                return names.server(index, other.servers, other.name)
            index -= other.servers
        raise IndexError(index)  # a plane every server joins counts no more than them all

    return name


__all__ = ["CablingRow", "iter_cabling"]
