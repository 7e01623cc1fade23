"""Heterogeneous pools (issue 28): one compute fabric serving several kinds of servers.

AutoLink's own review lists it among what it cannot do ("our room is heterogeneous"): rack-scale
trays beside 8-GPU servers, or 200G NICs beside 400G. Each pool gets leaves of the compute
fabric's leaf model, sized for its own servers, NICs and NIC speed; every leaf of every pool has
the same uplinks to the same spines, because in a two-tier Clos each leaf reaches each spine
(the design method's leaf-spine rule). So the first pool settles the uplinks (its oversubscription
target at its NIC speed) and a pool's leaf takes as many of its own servers as those uplinks
carry within the target; the spines are sized for every pool's leaves.

A pool is a plane of the design (`pool2`, ...) holding its leaves, its server links and its
links up to the compute spines, on the spine ports after the ones before it; the spines are
the compute plane's. Pools share one two-tier fabric: a room that needs a third tier is refused
by name rather than sized wrong."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from engine.design import PlaneShape
from engine.errors import FabricTooLarge, SwitchMismatch
from engine.fabric import (
    PlaneInput,
    _groups,
    _plane_ports,
    cannot_run,
    ceil_ratio,
    plan_plane,
    pod_groups,
    split_ports,
    uplink_speeds,
)
from engine.ports import SwitchModel, leaf_capacity, ways
from engine.request import DesignRequest, Layout, PoolRequest
from engine.text import gettext_noop, text

# Sizing the first pool with room on its spines for the others may change its uplinks, and so
# the others' leaves: a handful of rounds settles it (two, in every request tried).
_ROUNDS = 8


@dataclass(frozen=True, kw_only=True)
class PoolSummary:
    """One pool of a design, as the result shows it beside its plane."""

    name: str
    gpus: int
    gpus_per_server: int
    servers: int
    rails: int
    nic_speed_gbps: int
    servers_per_rack: int
    racks: int


def pool_summaries(request: DesignRequest) -> tuple[PoolSummary, ...] | None:
    """The request's pools, or None for a fabric of one kind of server (its JSON unchanged)."""
    if not request.pools:
        return None
    return tuple(
        PoolSummary(
            name=pool.name,
            gpus=pool.gpus,
            gpus_per_server=pool.gpus_per_server,
            servers=pool.servers,
            rails=pool.rails,
            nic_speed_gbps=pool.nic_speed_gbps,
            servers_per_rack=pool.servers_per_rack,
            racks=racks,
        )
        for pool, _first, racks in pool_racks(request)
    )


def pool_racks(request: DesignRequest) -> tuple[tuple[PoolRequest, int, int], ...]:
    """(pool, its first compute rack, its racks): each pool's racks start a row of their own
    after the rows before it, the first pool's first: racks of one kind stand together (a
    row of liquid-cooled rack-scale systems, a row of air-cooled servers), and a pool's pods
    measure their runs from the start of a row as the first pool's do."""
    per_row = request.layout.racks_per_row
    first = -(-request.servers // request.layout.servers_per_rack)
    out = []
    for pool in request.pools:
        first = -(-first // per_row) * per_row
        racks = -(-pool.servers // pool.servers_per_rack)
        out.append((pool, first, racks))
        first += racks
    return tuple(out)


def pool_of(request: DesignRequest, name: str) -> PoolRequest | None:
    return next((pool for pool in request.pools if pool.name == name), None)


def pool_layout(request: DesignRequest, pool: PoolRequest) -> Layout:
    """Where a pool's racks stand: the request's rows, with the pool's own rack density."""
    return replace(request.layout, servers_per_rack=pool.servers_per_rack)


def pool_input(spec: PlaneInput, pool: PoolRequest, leaf: SwitchModel | None = None) -> PlaneInput:
    return replace(
        spec,
        leaf=leaf or spec.leaf,
        plane=pool.name,
        servers=pool.servers,
        ports_per_server=pool.rails,
        nic_speed_gbps=pool.nic_speed_gbps,
        servers_per_rack=pool.servers_per_rack,
        servers_per_su=None,
        extra_leaves=0,
    )


def plan_pools(
    spec: PlaneInput, request: DesignRequest, leaves: Mapping[str, SwitchModel]
) -> tuple[PlaneShape, tuple[PlaneShape, ...]]:
    """(the compute plane's shape, each pool's) for a request with pools; `leaves` gives a
    pool's leaf model where it is not the first pool's (its cages run one link each)."""
    extra, pods = 1, 0  # a pool has a leaf at least: never one switch for the first pool alone
    spec = replace(spec, min_uplink_gbps=_uplinks_needed(spec, request, leaves))
    for _ in range(_ROUNDS):
        try:
            first = plan_plane(replace(spec, extra_leaves=extra, extra_pods=pods))
        except FabricTooLarge:
            if extra > 1 or pods:  # too large with the pools, not alone: say so
                raise _too_large(request) from None
            raise
        pools, end = _pool_shapes(spec, request, first, leaves)
        if first.tiers == 2:
            own, ports = first.spine_downlinks, spec.spine.logical_ports(first.uplink_speed_gbps)
            taken, reserved = sum(shape.leaves for shape in pools), extra
        else:
            own, ports = (
                first.pods * first.spine_core_links,
                spec.core.logical_ports(first.core_speed_gbps),
            )
            taken, reserved = sum(shape.pods for shape in pools), pods
        if end <= ports and taken <= reserved:
            return replace(first, pool_top_downlinks=end - own), pools
        if first.tiers == 2:
            extra = max(taken, extra + 1)
        else:
            pods = max(taken, pods + 1)
    raise _too_large(request)


def _uplinks_needed(
    spec: PlaneInput, request: DesignRequest, leaves: Mapping[str, SwitchModel]
) -> int:
    """The uplink bandwidth a full leaf of the most demanding other pool needs at the target
    (a 64 x 400G leaf of 400G servers: 32 down, 32 x 400G up). Every leaf gets at least that,
    the first pool's too: left to the first pool, a pool of fewer NICs per leaf would give
    every other pool's leaves its few uplinks, and them fewer servers each (more leaves)."""
    speeds = uplink_speeds(spec.leaf, spec.spine, spec.nic_speed_gbps)
    if spec.uplink_gbps in speeds:
        speeds = (spec.uplink_gbps,)
    if not speeds:
        return 0
    up = speeds[0]
    need = 0
    for pool in request.pools:
        leaf = leaves.get(pool.name, spec.leaf)
        if leaf.logical_ports(pool.nic_speed_gbps) == 0 or leaf.logical_ports(up) == 0:
            continue  # refused by name when the pool is sized
        _down, uplinks = split_ports(leaf, pool.nic_speed_gbps, up, spec.leaf_oversubscription)
        need = max(need, uplinks * up)
    return need


def _too_large(request: DesignRequest) -> FabricTooLarge:
    return FabricTooLarge(
        text(
            gettext_noop(
                "Pools share one compute fabric's spines or cores, and %(gpus)s GPUs in "
                "%(pools)s pools need more ports there than they have; choose switches with "
                "more ports, a higher oversubscription, or size the pools as separate designs."
            ),
            gpus=request.gpus_total,
            pools=len(request.pools) + 1,
        )
    )


def _pool_shapes(
    spec: PlaneInput,
    request: DesignRequest,
    first: PlaneShape,
    leaves: Mapping[str, SwitchModel],
) -> tuple[tuple[PlaneShape, ...], int]:
    """Each pool's shape under `first`'s spines (two tiers) or cores (three), and the ports
    of that tier all of them take, the first pool's included."""
    three = first.tiers == 3
    top = spec.core if three else spec.spine
    speed = first.core_speed_gbps if three else first.uplink_speed_gbps
    # A pool's links start on a whole cage up there, so no cage's lanes join two pools.
    align = math.lcm(*(ways(group, speed) or 1 for group in top.port_groups))
    end = first.pods * first.spine_core_links if three else first.spine_downlinks
    span_racks = -(-request.servers // request.layout.servers_per_rack)
    shapes = []
    for pool, first_rack, _racks in pool_racks(request):
        end = -(-end // align) * align
        pool_spec = pool_input(spec, pool, leaves.get(pool.name))
        shape = _pool_shape(pool_spec, first, offset=end, first_rack=first_rack)
        if three:
            shape = _in_pods(pool_spec, first, shape)
            end += shape.pods * shape.spine_core_links
        else:
            shape = replace(shape, span_servers=span_racks * pool.servers_per_rack)
            end += shape.spine_downlinks
        shapes.append(shape)
    return tuple(shapes), end


def _pool_shape(spec: PlaneInput, first: PlaneShape, *, offset: int, first_rack: int) -> PlaneShape:
    """A pool's leaves with `first`'s uplinks: as many of its servers a leaf as those uplinks
    carry within the oversubscription target and the leaf's ports allow; on two tiers."""
    _, ports, leaves_per_group, per_leaf, servers = _plane_ports(spec)
    nic, up, u = spec.nic_speed_gbps, first.uplink_speed_gbps, first.leaf_uplinks
    target = spec.leaf_oversubscription
    if spec.leaf.logical_ports(nic) == 0:
        raise cannot_run(spec)
    # d x nic <= target x u x up, in integers (target = num/den).
    most = min(
        target.numerator * u * up // (nic * target.denominator), spec.leaf.logical_ports(nic)
    )
    while most > 0:
        cap = leaf_capacity(spec.leaf, nic, up, most)
        if cap is not None and cap[0] >= u:
            break
        most -= 1
    unit = most // per_leaf
    if spec.style == "tor":
        unit = min(unit, spec.servers_per_rack)
    if unit == 0:
        raise SwitchMismatch(
            text(
                gettext_noop(
                    "%(plane)s: leaf %(leaf)s keeps %(uplinks)s x %(up)sG uplinks to the shared "
                    "spines and has no room left for a server's %(ports)s x %(nic)sG ports."
                ),
                plane=spec.plane,
                leaf=spec.leaf.label,
                uplinks=u,
                up=up,
                ports=per_leaf,
                nic=nic,
            )
        )
    if spec.minimum_for_today:
        unit = -(-servers // -(-servers // unit))
    groups = _groups(servers, unit, leaves_per_group, per_leaf)
    leaves = sum(group.count * group.leaves for group in groups)
    # Every leaf reaches every spine; a full unit of this pool may need fewer parallel links to
    # each than the first pool's leaves (slower NICs, fewer servers a leaf).
    spines = first.spines_per_pod
    needed = ceil_ratio(unit * per_leaf * nic, target, up)
    m = min(first.leaf_spine_links, max(1, -(-needed // spines)))
    return PlaneShape(
        plane=spec.plane,
        style=spec.style,
        fabric_planes=1,
        tiers=2,
        nic_speed_gbps=nic,
        ports_per_server=ports,
        links_per_server_per_leaf=per_leaf,
        servers=servers,
        group_servers=unit,
        leaf_groups=groups,
        leaf_downlinks=unit * per_leaf,
        leaf_uplinks=spines * m,
        uplink_speed_gbps=up,
        groups_per_pod=sum(group.count for group in groups),
        pods=1,
        spines_per_pod=spines,
        leaf_spine_links=m,
        spine_downlinks=leaves * m,
        spine_uplinks=0,
        core_speed_gbps=0,
        cores_per_group=0,
        spine_core_links=0,
        spine_plane="compute",
        spine_port_offset=offset,
        first_server=first_rack * spec.servers_per_rack,
    )


def _in_pods(spec: PlaneInput, first: PlaneShape, shape: PlaneShape) -> PlaneShape:
    """A pool's leaves gathered into pods of its own under `first`'s cores (three tiers): each
    leaf reaches each of its pod's spines once, as many spines as the first pool's pods have
    (spine j of every pod meets core group j); a pod holds as many of the pool's leaf groups
    as a spine has downlinks for at the target, and its spines go up like the first pool's."""
    lower = shape.leaf_groups[0].leaves
    groups_per_pod = pod_groups(spec, first.uplink_speed_gbps, first.core_speed_gbps, lower)
    return replace(
        shape,
        tiers=3,
        leaf_uplinks=first.spines_per_pod,
        groups_per_pod=groups_per_pod,
        pods=-(-shape.groups // groups_per_pod),
        spines_per_pod=first.spines_per_pod,
        leaf_spine_links=1,
        spine_downlinks=groups_per_pod * lower,
        spine_uplinks=first.spine_uplinks,
        core_speed_gbps=first.core_speed_gbps,
        cores_per_group=first.cores_per_group,
        spine_core_links=first.spine_core_links,
    )
