"""Figures derived from a plane's shape once it is sized: the links on each leaf, the
bisection bandwidth and the room to grow. Kept apart from `fabric`, which sizes the shape, to
hold both modules under 700 lines; nothing here sizes anything, it only reads a shape."""

from __future__ import annotations

import functools

from engine.design import Growth, PlaneShape
from engine.ports import SwitchModel


def leaf_downlinks_at(shape: PlaneShape, index: int) -> int:
    """Server-facing links in use on leaf `index` (within one fabric plane)."""
    for group in shape.leaf_groups:
        span = group.count * group.leaves
        if index < span:
            return group.downlinks_per_leaf
        index -= span
    raise IndexError(index)


def _two_tier_bisection(shape: PlaneShape) -> int:
    """One fabric plane of two tiers, cut between the first half of its servers and the second
    (cabling order; the middle server of an odd count half on each side). A leaf holding
    servers of both halves switches min(a, b) between them itself; the rest of each side
    leaves through its uplinks, and the spines, which every leaf reaches evenly, carry the
    smaller total across. Counted in half-gigabits so the halved server stays whole."""
    total = sum(g.count * g.servers for g in shape.leaf_groups)
    nic2 = 2 * shape.nic_speed_gbps * shape.links_per_server_per_leaf
    up2 = 2 * shape.leaf_uplinks * shape.uplink_speed_gbps
    internal = out_a = out_b = 0
    start2 = 0  # doubled index of the group's first server
    for group in shape.leaf_groups:
        for _ in range(group.count):
            size2 = 2 * group.servers
            on_a2 = min(size2, max(0, total - start2))  # side A: the first total/2 servers
            a, b = on_a2 * nic2 // 2, (size2 - on_a2) * nic2 // 2
            both = min(a, b)
            internal += group.leaves * both
            out_a += group.leaves * min(a - both, up2)
            out_b += group.leaves * min(b - both, up2)
            start2 += size2
    return (internal + min(out_a, out_b)) // 2


@functools.lru_cache(maxsize=1024)
def bisection_gbps(shape: PlaneShape) -> int:
    """Max flow from the first half of each fabric plane's leaves to the second half, with each
    leaf's servers as the source or sink. `graph.validate` computes the same cut by max-flow.

    Two tiers: every leaf reaches every spine evenly, so only the leaves limit the flow. Three
    tiers: a pod exports at most its spines' core uplinks; a pod split by the halving line
    exchanges traffic internally first, which needs no core capacity."""
    if shape.tiers == 1:
        # One switch (or a dual-homed pair) per fabric plane: every server's links meet inside
        # it, so half the servers' bandwidth crosses any balanced cut, in every fabric plane.
        links = shape.leaves_per_group * shape.links_per_server_per_leaf
        return shape.servers * links * shape.nic_speed_gbps * shape.fabric_planes // 2
    if shape.tiers == 2:
        return _two_tier_bisection(shape) * shape.fabric_planes
    return _three_tier_bisection(shape) * shape.fabric_planes


def _group_flows(shape: PlaneShape, servers: int, on_a2: int, leaves: int) -> tuple[int, int, int]:
    """(switched inside the leaves, sent up by side A, sent up by side B) for one leaf group of
    `servers` servers, `on_a2` half-servers of them on side A; in half-gigabits."""
    nic2 = 2 * shape.nic_speed_gbps * shape.links_per_server_per_leaf
    up2 = 2 * shape.leaf_uplinks * shape.uplink_speed_gbps
    a, b = on_a2 * nic2 // 2, (2 * servers - on_a2) * nic2 // 2
    both = min(a, b)
    return leaves * both, leaves * min(a - both, up2), leaves * min(b - both, up2)


def _three_tier_bisection(shape: PlaneShape) -> int:
    """One fabric plane of three tiers, cut between the first half of its servers and the
    second: leaves switch what they can between the halves, a pod's spines what its leaves send
    up from both sides, and the cores the rest, at most what a pod's spines can send to them.
    Pods of the same groups wholly on one side are alike, so each is computed once."""
    total = sum(g.count * g.servers for g in shape.leaf_groups)
    pod_up2 = 2 * shape.spines_per_pod * shape.spine_uplinks * shape.core_speed_gbps
    memo: dict[tuple[object, ...], tuple[int, int, int]] = {}

    def pod_flows(members: tuple[tuple[int, int, int], ...]) -> tuple[int, int, int]:
        flows = memo.get(members)
        if flows is None:
            leaf_internal = up_a = up_b = 0
            for servers, on_a2, leaves in members:
                i, x, y = _group_flows(shape, servers, on_a2, leaves)
                leaf_internal, up_a, up_b = leaf_internal + i, up_a + x, up_b + y
            spine_internal = min(up_a, up_b)
            flows = memo[members] = (
                leaf_internal + spine_internal,
                min(up_a - spine_internal, pod_up2),
                min(up_b - spine_internal, pod_up2),
            )
        return flows

    internal = cross_a = cross_b = 0
    pod: list[tuple[int, int, int]] = []
    start2 = 0
    for group in shape.leaf_groups:
        remaining = group.count
        while remaining:
            room = shape.groups_per_pod - len(pod)
            take = min(remaining, room)
            whole = 2 * group.servers
            first_a2 = total - start2  # half-servers of side A still to place
            if (
                not pod
                and take == shape.groups_per_pod
                and (first_a2 >= take * whole or first_a2 <= 0)
            ):
                # A whole pod of identical groups on one side: as many such pods as fit.
                pods = remaining // shape.groups_per_pod
                if first_a2 > 0:
                    pods = min(pods, first_a2 // (take * whole))
                side = whole if first_a2 > 0 else 0
                flows = pod_flows(((group.servers, side, group.leaves),) * take)
                internal += pods * flows[0]
                cross_a += pods * flows[1]
                cross_b += pods * flows[2]
                remaining -= pods * take
                start2 += pods * take * whole
                continue
            for _ in range(take):
                on_a2 = min(whole, max(0, total - start2))
                pod.append((group.servers, on_a2, group.leaves))
                start2 += whole
            remaining -= take
            if len(pod) == shape.groups_per_pod:
                flows = pod_flows(tuple(pod))
                internal, cross_a, cross_b = (
                    internal + flows[0],
                    cross_a + flows[1],
                    cross_b + flows[2],
                )
                pod = []
    if pod:
        flows = pod_flows(tuple(pod))
        internal, cross_a, cross_b = internal + flows[0], cross_a + flows[1], cross_b + flows[2]
    return (internal + min(cross_a, cross_b)) // 2


def growth(
    shape: PlaneShape,
    gpus_per_server: int,
    leaf: SwitchModel,
    spine: SwitchModel,
    core: SwitchModel,
) -> Growth:
    """Servers are counted per fabric plane; every plane grows together."""
    to_gpus = gpus_per_server if shape.style != "packed" else 1
    free_slots = 0
    if shape.tiers > 1 and shape.leaf_groups[-1].servers < shape.group_servers:
        free_slots = shape.group_servers - shape.leaf_groups[-1].servers
    if shape.tiers == 1:
        most = leaf.logical_ports(shape.nic_speed_gbps) // shape.links_per_server_per_leaf
        free_slots = most - shape.servers
        return Growth(
            max_gpus_current_spines=most * to_gpus,
            max_gpus_same_tiers=most * to_gpus,
            free_server_slots=free_slots,
        )
    per_group = shape.group_servers
    if shape.tiers == 2:
        k_spine = spine.logical_ports(shape.uplink_speed_gbps)
        current = (k_spine // shape.leaf_spine_links) // shape.leaves_per_group
        same = k_spine // shape.leaves_per_group
    else:
        k_core = core.logical_ports(shape.core_speed_gbps)
        current = (k_core // shape.spine_core_links) * shape.groups_per_pod
        same = k_core * shape.groups_per_pod
    return Growth(
        max_gpus_current_spines=current * per_group * to_gpus,
        max_gpus_same_tiers=same * per_group * to_gpus,
        free_server_slots=free_slots,
    )
