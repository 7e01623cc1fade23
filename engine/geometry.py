"""Cable runs from rack geometry: where each server, leaf and spine stands and how far apart.

Lengths are computed per rack position and rail, never per server, so their cost does not grow
with cluster size. `engine.media` chooses what carries each run."""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

from engine.design import LeafGroup, PlaneShape
from engine.request import Layout, LeafPlacement

RACK_HEIGHT_M = 2.0  # usable cabling height of a 42U rack
RACK_EXIT_M = 1.0  # from a port up to the overhead tray (and down again at the far end)
ROW_PITCH_M = 2.4  # 1.2 m rack depth + 1.2 m aisle between rows
NETWORK_ROW_RUN_M = 5.0  # between racks of the same network row
CORE_RUN_M = 15.0  # spine to core, both in the network area
LENGTH_STEP_M = 0.1


def _round(length_m: float) -> float:
    return math.ceil(length_m / LENGTH_STEP_M - 1e-9) * LENGTH_STEP_M


def _vertical(slot: int, servers_per_rack: int) -> float:
    return (slot + 1) * RACK_HEIGHT_M / (servers_per_rack + 1)


def _leaf_row_offset(placement: LeafPlacement, layout: Layout, pos: int, row: int) -> float:
    """Horizontal run from rack (`row`, `pos`) to its leaf outside the rack."""
    width, per_row = layout.rack_width_m, layout.racks_per_row
    along_rows = row * ROW_PITCH_M
    if placement == LeafPlacement.MOR:
        return abs(pos - (per_row - 1) / 2) * width + along_rows
    if placement == LeafPlacement.EOR:
        return (per_row - pos) * width + along_rows
    # Dedicated network racks sit in the network row, beside the spines.
    return layout.spine_row_distance_m + pos * width + along_rows


def rail_run_m(layout: Layout, group_servers: int, server: int, rail: int) -> float:
    """Run from server `server` of a scalable unit to the leaf of `rail` (rail fabrics)."""
    spr, per_row = layout.servers_per_rack, layout.racks_per_row
    rack, slot = divmod(server, spr)
    row, pos = divmod(rack, per_row)
    if layout.leaf_placement == LeafPlacement.TOR:
        # Rail leaves are spread over the unit's racks, one rail per rack in turn.
        leaf_rack = rail % math.ceil(group_servers / spr)
        if leaf_rack == rack:
            return _round(_vertical(slot, spr) + layout.cable_slack_m)
        leaf_row, leaf_pos = divmod(leaf_rack, per_row)
        length = (
            abs(leaf_pos - pos) * layout.rack_width_m
            + abs(leaf_row - row) * ROW_PITCH_M
            + 2 * RACK_EXIT_M
        )
        return _round(length + layout.cable_slack_m)
    offset = _leaf_row_offset(layout.leaf_placement, layout, pos, row)
    return _round(offset + 2 * RACK_EXIT_M + layout.cable_slack_m)


def rack_run_m(layout: Layout, pos: int, slot: int, in_rack_leaf: bool) -> float:
    """Run from the server in `slot` of a rack at row position `pos` to its leaf (ToR fabrics,
    single switches and packed planes)."""
    if in_rack_leaf:
        return _round(_vertical(slot, layout.servers_per_rack) + layout.cable_slack_m)
    placement = layout.leaf_placement
    if placement == LeafPlacement.TOR:
        placement = LeafPlacement.MOR  # one switch for many racks cannot sit in all of them
    offset = _leaf_row_offset(placement, layout, pos, 0)
    return _round(offset + 2 * RACK_EXIT_M + layout.cable_slack_m)


def extra_run_m(layout: Layout) -> float:
    """Storage nodes and switch management ports: from a neighbouring network/storage rack."""
    return _round(NETWORK_ROW_RUN_M + 2 * RACK_EXIT_M + layout.cable_slack_m)


def in_rack_leaf(shape: PlaneShape, layout: Layout) -> bool:
    single_switch = shape.tiers == 1 and shape.style != "tor"
    return layout.leaf_placement == LeafPlacement.TOR and not single_switch


def rail_style(shape: PlaneShape) -> bool:
    return shape.style in ("rail", "rail-plane") and shape.tiers > 1


def leaf_link_runs(
    shape: PlaneShape,
    layout: Layout,
    group_servers: int,
    downlinks: int,
    first_server: int,
    leaf_index: int,
    within: int,
    fabric_plane: int,
) -> tuple[float, ...]:
    """The run of each server-facing link of one leaf, in port order, exactly as the cabling
    plan wires them (`cabling._server_links`); `leaf_index` counts leaves in the plane."""
    spr, per_row = layout.servers_per_rack, layout.racks_per_row
    if shape.style == "packed":
        server_ports = shape.servers - shape.extra_endpoints
        inside = in_rack_leaf(shape, layout)
        runs = []
        for logical in range(downlinks):
            endpoint = leaf_index * shape.leaf_downlinks + logical
            if endpoint < server_ports:
                server = endpoint // shape.ports_per_server
                rack = server // spr
                runs.append(rack_run_m(layout, rack % per_row, server % spr, inside))
            else:
                runs.append(extra_run_m(layout))
        return tuple(runs)
    if rail_style(shape):
        nic = fabric_plane * shape.ports_per_server + within
        return tuple(
            rail_run_m(layout, group_servers, logical, nic) for logical in range(downlinks)
        )
    inside = in_rack_leaf(shape, layout)
    per = shape.links_per_server_per_leaf
    # A top-of-rack leaf sits in the first rack of the servers it serves; the servers of the
    # other racks it serves (a 64-port ToR for two racks) reach it across the row.
    leaf_row, leaf_pos = divmod(first_server // spr, per_row)
    runs = []
    for logical in range(downlinks):
        server = first_server + logical // per
        row, pos = divmod(server // spr, per_row)
        if inside and (row, pos) != (leaf_row, leaf_pos):
            across = (
                abs(pos - leaf_pos) * layout.rack_width_m
                + abs(row - leaf_row) * ROW_PITCH_M
                + 2 * RACK_EXIT_M
            )
            runs.append(_round(across + layout.cable_slack_m))
        else:
            runs.append(rack_run_m(layout, pos, server % spr, inside))
    return tuple(runs)


def leaf_pattern_key(
    shape: PlaneShape,
    layout: Layout,
    group_servers: int,
    downlinks: int,
    first_server: int,
    leaf_index: int,
    within: int,
    fabric_plane: int,
) -> tuple[int, ...]:
    """Leaves with equal keys have equal `leaf_link_runs`: runs depend on a server's position in
    its row and slot in its rack only, so sizing computes each pattern once."""
    period = layout.servers_per_rack * layout.racks_per_row
    if shape.style == "packed":
        base = leaf_index * shape.leaf_downlinks
        server_ports = shape.servers - shape.extra_endpoints
        on_servers = max(0, min(downlinks, server_ports - base))
        return (base % (period * shape.ports_per_server), downlinks, on_servers)
    if rail_style(shape):
        rail = fabric_plane * shape.ports_per_server + within
        if layout.leaf_placement != LeafPlacement.TOR:
            rail = 0
        return (group_servers, downlinks, rail)
    return (first_server % period, downlinks)


def cage_run_m(layout: Layout, group_servers: int, cage: int, ways: int, rail: int) -> float:
    """The run of a cage's longest lane: a breakout cable serving `ways` neighbouring servers of
    a rail is cut for the farthest one."""
    last = min(group_servers, (cage + 1) * ways)
    return max(rail_run_m(layout, group_servers, s, rail) for s in range(cage * ways, last))


def rail_server_cages(shape: PlaneShape, layout: Layout, ways: int) -> Counter[tuple[float, int]]:
    """Leaf cages facing servers in rail fabrics, by (run, lanes used): a cage of a k-way
    breakout serves k neighbouring servers of one rail."""
    cages: Counter[tuple[float, int]] = Counter()
    rails = shape.ports_per_server * shape.fabric_planes
    for group in shape.leaf_groups:
        for unit, count in _unit_cages(layout, group.servers, ways, rails):
            cages[unit] += count * group.count
    return cages


@lru_cache(maxsize=1024)
def _unit_cages(
    layout: Layout, servers: int, ways: int, rails: int
) -> tuple[tuple[tuple[float, int], int], ...]:
    """The server-facing cages of one scalable unit of `servers`, over all its rails, by (run,
    lanes used). Pure geometry of one unit, so it is computed once per layout and unit size."""
    cages: Counter[tuple[float, int]] = Counter()
    spr = layout.servers_per_rack
    if layout.leaf_placement == LeafPlacement.TOR:
        # Rail leaves sit in the unit's racks in turn, so each rail has its own runs.
        for cage in range(math.ceil(servers / ways)):
            lanes = min(ways, servers - cage * ways)
            for rail in range(rails):
                cages[(cage_run_m(layout, servers, cage, ways, rail), lanes)] += 1
        return tuple(cages.items())
    # Off-rack leaves: the run depends on the rack only, the same for every rail.
    by_rack = [
        rail_run_m(layout, servers, rack * spr, 0) for rack in range(math.ceil(servers / spr))
    ]
    for cage in range(math.ceil(servers / ways)):
        first = cage * ways
        lanes = min(ways, servers - first)
        low, high = first // spr, (first + lanes - 1) // spr
        run = by_rack[low] if low == high else max(by_rack[low : high + 1])
        cages[(run, lanes)] += rails
    return tuple(cages.items())


def leaf_spine_run_m(
    shape: PlaneShape,
    layout: Layout,
    group_servers: int,
    leaf: int,
    first_server: int = 0,
    span: tuple[int, int] = (0, 0),
) -> float:
    """Run from leaf `leaf` of the group whose first server is `first_server` up to its spines.

    Compute racks fill rows of `racks_per_row` in server order. The spines serving a `span` of
    servers (first server, servers: the whole plane on two tiers, one pod on three) stand in a
    network row beside the middle row of that span, `spine_row_distance_m` from it; a leaf
    r rows away adds r row pitches, plus its way along its row to the cross aisle. So the far
    rows get the longest runs, and a pod keeps its runs short however large the cluster."""
    return _leaf_run(layout, shape.style, group_servers, leaf, first_server, span)


def _leaf_run(
    layout: Layout, style: str, group_servers: int, leaf: int, first_server: int,
    span: tuple[int, int],
) -> float:  # fmt: skip
    placement = layout.leaf_placement
    if placement == LeafPlacement.NETWORK_RACK:
        return _round(NETWORK_ROW_RUN_M + 2 * RACK_EXIT_M + layout.cable_slack_m)
    spr, per_row = layout.servers_per_rack, layout.racks_per_row
    first_rack = first_server // spr
    if placement == LeafPlacement.TOR:
        rack = first_rack
        if style in ("rail", "rail-plane"):
            rack += leaf % math.ceil(group_servers / spr)  # rail leaves spread over the unit
        row, pos = divmod(rack, per_row)
        along = pos * layout.rack_width_m
    elif placement == LeafPlacement.MOR:
        row = first_rack // per_row
        along = (per_row - 1) / 2 * layout.rack_width_m
    else:
        row = first_rack // per_row
        along = per_row * layout.rack_width_m
    span_first, span_servers = span
    middle_row = (span_first + span_servers // 2) // spr // per_row
    across = layout.spine_row_distance_m + abs(row - middle_row) * ROW_PITCH_M
    return _round(across + along + 2 * RACK_EXIT_M + layout.cable_slack_m)


def spine_span(shape: PlaneShape, group: int) -> tuple[int, int]:
    """(first server, servers) served by the spines of leaf group `group`: its pod on three
    tiers, the whole plane on two. Servers, not ports, for packed planes."""
    per_group = shape.group_servers
    if shape.tiers == 3:
        pod = group // shape.groups_per_pod
        first, count = pod * shape.groups_per_pod * per_group, shape.groups_per_pod * per_group
    else:
        first, count = 0, sum(g.count * g.servers for g in shape.leaf_groups)
    if shape.style == "packed":
        ports = max(shape.ports_per_server, 1)
        return first // ports, count // ports
    return first, count


@lru_cache(maxsize=256)
def spine_core_runs_m(shape: PlaneShape, layout: Layout) -> tuple[float, ...]:
    """Each pod's spine-to-core run, in pod order. The cores stand in the network area at the
    front of the hall and each pod's spines beside its own rows of racks, so a pod's run grows
    with its distance from the front: rows of ROW_PITCH_M, as many as the pod's racks fill
    (issue 26: every pod was given the same 17.5 m, 64 pods of 131,072 GPUs over ~980 m of
    rows included). At the front, not the middle, so that a pod added later changes no run."""
    pod_servers = shape.group_servers * shape.groups_per_pod
    if shape.style == "packed":
        pod_servers //= max(shape.ports_per_server, 1)
    per_row = max(layout.servers_per_rack * layout.racks_per_row, 1)
    pod_rows = max(1, math.ceil(pod_servers / per_row))
    before = shape.first_server // per_row  # a pool's rows follow the rows before it
    return tuple(
        _round(
            CORE_RUN_M
            + (before + pod * pod_rows) * ROW_PITCH_M
            + 2 * RACK_EXIT_M
            + layout.cable_slack_m
        )
        for pod in range(shape.pods)
    )


def pod_leaf_runs(shape: PlaneShape, layout: Layout, pod: int) -> tuple[float, ...]:
    """The uplink run of every leaf of pod `pod` (the whole plane on two tiers), in leaf order:
    the order in which each spine's ports meet them (`cabling._fabric_links`)."""
    if shape.shares_spines:
        return pool_leaf_runs(shape, layout)
    per_span = max(shape.groups_per_pod if shape.tiers == 3 else shape.groups, 1)
    if layout.leaf_placement == LeafPlacement.NETWORK_RACK:
        leaves = sum(g.leaves for g in _groups_between(shape, pod * per_span, (pod + 1) * per_span))
        return (leaf_spine_run_m(shape, layout, 0, 0),) * leaves
    period = layout.servers_per_rack * layout.racks_per_row
    rail_racks = layout.leaf_placement == LeafPlacement.TOR and shape.style in (
        "rail",
        "rail-plane",
    )
    ports = max(shape.ports_per_server, 1) if shape.style == "packed" else 1
    span_first, span_servers = spine_span(shape, pod * per_span)
    base = span_first % period  # runs depend on rows relative to the span: shift it to row 0
    chunks = []
    first = _first_endpoint(shape, pod * per_span)
    for group, count in _chunks_between(shape, pod * per_span, (pod + 1) * per_span):
        chunks.append((group.servers, group.leaves, count, first // ports - span_first))
        first += count * group.servers
    return _pod_runs(layout, rail_racks, ports, base, span_servers, tuple(chunks))


def pool_leaf_runs(shape: PlaneShape, layout: Layout) -> tuple[float, ...]:
    """The uplink run of every leaf of a pool (issue 28), in leaf order: its racks follow the
    racks before it (`shape.first_server`, in the pool's own servers per rack) and its spines
    stand by the middle row of the first pool's (`shape.span_servers`), so a pool further down
    the hall gets the longer runs it would be cut for."""
    if layout.leaf_placement == LeafPlacement.NETWORK_RACK:
        return (leaf_spine_run_m(shape, layout, 0, 0),) * shape.leaves
    rail_racks = layout.leaf_placement == LeafPlacement.TOR and rail_style(shape)
    chunks, first = [], shape.first_server
    for group in shape.leaf_groups:
        chunks.append((group.servers, group.leaves, group.count, first))
        first += group.count * group.servers
    return _pod_runs(layout, rail_racks, 1, 0, shape.span_servers, tuple(chunks))


@lru_cache(maxsize=1024)
def _pod_runs(
    layout: Layout,
    rail_racks: bool,
    ports: int,
    base: int,
    span_servers: int,
    chunks: tuple[tuple[int, int, int, int], ...],
) -> tuple[float, ...]:
    style = "rail" if rail_racks else "tor"
    span = (base, span_servers)
    runs: list[float] = []
    for endpoints, leaves, count, offset in chunks:
        first = (base + offset) * ports
        for _ in range(count):
            start = first // ports
            if rail_racks:
                runs.extend(
                    _leaf_run(layout, style, endpoints, leaf, start, span) for leaf in range(leaves)
                )
            else:  # the group's leaves stand together
                runs.extend((_leaf_run(layout, style, endpoints, 0, start, span),) * leaves)
            first += endpoints
    return tuple(runs)


def pods_by_runs(shape: PlaneShape, layout: Layout) -> tuple[tuple[tuple[float, ...], int], ...]:
    """How many pods (one span on two tiers) have each sequence of leaf runs."""
    return tuple(_pods_by_runs(shape, layout).items())


def _pods_by_runs(shape: PlaneShape, layout: Layout) -> Counter[tuple[float, ...]]:
    """How many pods (one span on two tiers) have each sequence of leaf runs. Whole pods of
    identical groups repeat their rows every `cycle` pods, so only that many are computed."""
    per_span = max(shape.groups_per_pod if shape.tiers == 3 else shape.groups, 1)
    pods = -(-shape.groups // per_span)
    out: Counter[tuple[float, ...]] = Counter()
    if len(shape.leaf_groups) == 1 and pods > 1:
        group = shape.leaf_groups[0]
        full = group.count // per_span
        ports = max(shape.ports_per_server, 1) if shape.style == "packed" else 1
        period = layout.servers_per_rack * layout.racks_per_row
        pod_servers = per_span * group.servers // ports
        cycle = period // math.gcd(period, pod_servers or 1)
        for pod in range(min(full, cycle)):
            out[pod_leaf_runs(shape, layout, pod)] += (full - pod + cycle - 1) // cycle
        for pod in range(full, pods):  # a partial pod at the end
            out[pod_leaf_runs(shape, layout, pod)] += 1
        return out
    for pod in range(pods):
        out[pod_leaf_runs(shape, layout, pod)] += 1
    return out


def _chunks_between(shape: PlaneShape, start: int, stop: int) -> list[tuple[LeafGroup, int]]:
    """Runs of identical leaf groups among groups [start, stop)."""
    out, index = [], 0
    for group in shape.leaf_groups:
        low, high = max(start, index), min(stop, index + group.count)
        if low < high:
            out.append((group, high - low))
        index += group.count
    return out


def _groups_between(shape: PlaneShape, start: int, stop: int) -> list[LeafGroup]:
    return [g for g, count in _chunks_between(shape, start, stop) for _ in range(count)]


def _first_endpoint(shape: PlaneShape, group_index: int) -> int:
    first, index = 0, 0
    for group in shape.leaf_groups:
        take = min(group.count, max(group_index - index, 0))
        first += take * group.servers
        index += group.count
    return first
