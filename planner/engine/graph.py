"""Independent checks of a design on its switch-level graph (networkx).

Parallel links between two switches are merged into one edge with their total capacity, so the
graph has one node per switch and stays small at 100,000 GPUs. Servers appear as one node per
leaf group (a scalable unit or a rack), only for the connectivity check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx

from planner.engine import names
from planner.engine.design import Design, PlaneDesign, PlaneShape
from planner.engine.fabric import leaf_downlinks_at


@dataclass(frozen=True, kw_only=True)
class FailureImpact:
    device: str  # switch name, or "a-b" for a link
    role: str
    capacity_lost_gbps: int
    servers_isolated: int  # servers left with no path on this plane


@dataclass(frozen=True, kw_only=True)
class PlaneGraphReport:
    plane: str
    nodes: int
    edges: int
    servers_connected: bool
    max_leaf_hops: int  # switch-to-switch links on the longest leaf-to-leaf shortest path
    max_server_hops: int  # links between two servers, NIC to NIC
    ecmp_paths: int  # equal-cost paths between the two most distant leaves
    bisection_gbps: int  # by minimum cut
    analytic_bisection_gbps: int
    worst_switch_failure: FailureImpact | None
    worst_link_failure: FailureImpact | None

    @property
    def bisection_matches(self) -> bool:
        return self.bisection_gbps == self.analytic_bisection_gbps


@dataclass(frozen=True, kw_only=True)
class GraphReport:
    planes: tuple[PlaneGraphReport, ...]

    @property
    def ok(self) -> bool:
        return all(p.servers_connected and p.bisection_matches for p in self.planes)


def _leaf_names(shape: PlaneShape, fabric_plane: int) -> list[str]:
    return [names.leaf(shape, fabric_plane, i) for i in range(shape.leaves)]


def _add_fabric(graph: Any, shape: PlaneShape, fabric_plane: int, directed: bool) -> list[str]:
    """Add one fabric plane's switches and merged links; returns its leaves in order."""
    leaves = _leaf_names(shape, fabric_plane)
    graph.add_nodes_from(
        (
            leaf,
            {"role": "leaf", "downlink_gbps": leaf_downlinks_at(shape, i) * shape.nic_speed_gbps},
        )
        for i, leaf in enumerate(leaves)
    )
    if shape.tiers < 2:
        return leaves
    edges: list[tuple[str, str, dict[str, int]]] = []
    pod_leaves = shape.groups_per_pod * shape.leaves_per_group
    leaf_cap = {"capacity": shape.leaf_spine_links * shape.uplink_speed_gbps}
    core_cap = {"capacity": shape.spine_core_links * shape.core_speed_gbps}
    for pod in range(shape.pods):
        spines = [names.spine(shape, fabric_plane, pod, j) for j in range(shape.spines_per_pod)]
        graph.add_nodes_from(spines, role="spine")
        members = leaves[pod * pod_leaves : (pod + 1) * pod_leaves] if shape.tiers == 3 else leaves
        edges.extend((leaf, spine, leaf_cap) for leaf in members for spine in spines)
        if shape.tiers == 3:
            for j, spine in enumerate(spines):
                for member in range(shape.cores_per_group):
                    core = names.core(shape, fabric_plane, j * shape.cores_per_group + member)
                    edges.append((spine, core, core_cap))
    if shape.tiers == 3:
        graph.add_nodes_from((names.core(shape, fabric_plane, c) for c in range(shape.cores)),
                             role="core")  # fmt: skip
    graph.add_edges_from(edges)
    if directed:
        graph.add_edges_from((b, a, cap) for a, b, cap in edges)
    return leaves


def build_graph(design: Design, plane: str = "compute") -> Any:
    """Undirected switch-level graph of one plane, every fabric plane included; edge attribute
    `capacity` is the merged bandwidth in Gbps. Server groups are nodes with role "servers"."""
    found = design.plane(plane)
    if found is None:
        raise KeyError(plane)
    shape = found.shape
    graph = nx.Graph()
    leaves_per_plane = [_add_fabric(graph, shape, p, False) for p in range(shape.fabric_planes)]
    index = 0
    edges = []
    for group_no in range(shape.groups):
        node = f"servers-{group_no + 1:05d}"
        graph.add_node(node, role="servers")
        for leaves in leaves_per_plane:
            for within in range(shape.leaves_per_group):
                leaf = leaves[index + within]
                edges.append((node, leaf, {"capacity": graph.nodes[leaf]["downlink_gbps"]}))
        index += shape.leaves_per_group
    graph.add_edges_from(edges)
    return graph


FULL_FLOW_MAX_EDGES = 20_000


def _min_cut(shape: PlaneShape) -> int:
    """Max flow from the first half of one fabric plane's leaves (their servers as the source)
    to the second half. Fabric planes are identical and disjoint, so one is cut and scaled."""
    if shape.tiers == 1:
        # One switch (or a pair each carrying every server) is non-blocking inside: half the
        # server bandwidth crosses any balanced split.
        return shape.servers * shape.links_per_server_per_leaf * shape.nic_speed_gbps // 2
    if shape.leaves * shape.spines_per_pod > FULL_FLOW_MAX_EDGES:
        return _min_cut_by_symmetry(shape) * shape.fabric_planes
    graph = nx.DiGraph()
    leaves = _add_fabric(graph, shape, 0, True)
    half = len(leaves) // 2
    for index, leaf in enumerate(leaves):
        supply = graph.nodes[leaf]["downlink_gbps"]
        if index < half:
            graph.add_edge("source", leaf, capacity=supply)
        else:
            graph.add_edge(leaf, "sink", capacity=supply)
    return _flow(graph) * shape.fabric_planes


def _flow(graph: Any) -> int:
    value = nx.maximum_flow_value(
        graph, "source", "sink", flow_func=nx.algorithms.flow.preflow_push
    )
    return int(value)


def _min_cut_by_symmetry(shape: PlaneShape) -> int:
    """The same cut on a quotient graph, exact by symmetry: leaves of one pod on the same side
    with the same servers are interchangeable, as are a pod's spines (spine j of every pod meets
    core group j; the groups are alike) and the cores. An even split of any flow on the quotient
    over the merged switches is a feasible flow on the full graph, and summing goes back, so both
    have the same max flow. This keeps 131,072 GPUs to a few dozen nodes."""
    graph = nx.DiGraph()
    pod_leaves = shape.groups_per_pod * shape.leaves_per_group
    half = shape.leaves // 2
    leaf_cap = shape.spines_per_pod * shape.leaf_spine_links * shape.uplink_speed_gbps
    pod_up = shape.spines_per_pod * shape.spine_uplinks * shape.core_speed_gbps
    for pod in range(shape.pods):
        spine = f"pod{pod}-spines"
        classes: dict[tuple[str, int], int] = {}
        for index in range(pod * pod_leaves, min(shape.leaves, (pod + 1) * pod_leaves)):
            side = "a" if index < half else "b"
            supply = leaf_downlinks_at(shape, index) * shape.nic_speed_gbps
            classes[(side, supply)] = classes.get((side, supply), 0) + 1
        for (side, supply), count in sorted(classes.items()):
            node = f"pod{pod}-{side}-{supply}"
            graph.add_edge(node, spine, capacity=count * leaf_cap)
            graph.add_edge(spine, node, capacity=count * leaf_cap)
            if side == "a":
                graph.add_edge("source", node, capacity=count * supply)
            else:
                graph.add_edge(node, "sink", capacity=count * supply)
        if shape.tiers == 3:
            graph.add_edge(spine, "cores", capacity=pod_up)
            graph.add_edge("cores", spine, capacity=pod_up)
    return _flow(graph)


def _hops(graph: Any, shape: PlaneShape) -> tuple[int, int]:
    """(longest leaf-to-leaf shortest path in links, equal-cost paths along it), by a BFS from
    the first leaf over switches only (every leaf sees the same fabric)."""
    if shape.tiers == 1 or shape.leaves < 2:
        return 0, 1
    leaves = _leaf_names(shape, 0)
    source = leaves[0]
    distance = {source: 0}
    paths = {source: 1}
    frontier = [source]
    while frontier:  # BFS that counts shortest paths as it goes
        nxt: list[str] = []
        for node in frontier:
            for neighbour in sorted(graph.adj[node]):
                if graph.nodes[neighbour]["role"] == "servers":
                    continue
                if neighbour not in distance:
                    distance[neighbour] = distance[node] + 1
                    paths[neighbour] = 0
                    nxt.append(neighbour)
                if distance[neighbour] == distance[node] + 1:
                    paths[neighbour] += paths[node]
        frontier = nxt
    far = max(leaves[1:], key=lambda leaf: (distance.get(leaf, -1), leaf))
    return distance.get(far, 0), paths.get(far, 0)


def _failures(shape: PlaneShape) -> tuple[FailureImpact | None, FailureImpact | None]:
    """Worst single switch and single link. Symmetry means one switch per tier is representative;
    the busiest leaf is the first (full groups come before a partial one)."""
    leaf_name = names.leaf(shape, 0, 0)
    leaf_down = leaf_downlinks_at(shape, 0) * shape.nic_speed_gbps
    leaf_up = shape.leaf_uplinks * shape.uplink_speed_gbps
    candidates = [
        FailureImpact(
            device=leaf_name,
            role="leaf",
            capacity_lost_gbps=leaf_down + leaf_up,
            # Rail leaves carry one port of each server: servers keep their other rails. A leaf
            # alone in its group (a single switch, a ToR without a pair) takes its servers down.
            servers_isolated=(
                shape.leaf_groups[0].servers
                if shape.style == "packed" or shape.leaves_per_group == 1
                else 0
            ),
        )
    ]
    if shape.tiers >= 2:
        spine_cap = shape.spine_downlinks * shape.uplink_speed_gbps
        spine_cap += shape.spine_uplinks * shape.core_speed_gbps
        # A pod's only spine: its servers reach no server beyond their own leaf.
        cut_off = shape.groups_per_pod * shape.group_servers if shape.spines_per_pod == 1 else 0
        candidates.append(
            FailureImpact(device=names.spine(shape, 0, 0, 0), role="spine",
                          capacity_lost_gbps=spine_cap,
                          servers_isolated=min(cut_off, shape.servers))
        )  # fmt: skip
    if shape.tiers == 3:
        core_cap = shape.pods * shape.spine_core_links * shape.core_speed_gbps
        candidates.append(
            FailureImpact(device=names.core(shape, 0, 0), role="core",
                          capacity_lost_gbps=core_cap, servers_isolated=0)
        )  # fmt: skip
    worst = max(candidates, key=lambda f: (f.servers_isolated, f.capacity_lost_gbps, f.role))
    speeds = [shape.nic_speed_gbps, shape.uplink_speed_gbps, shape.core_speed_gbps]
    link = FailureImpact(
        device="largest single link", role="link", capacity_lost_gbps=max(speeds),
        servers_isolated=0,
    )  # fmt: skip
    return worst, link


def _validate_plane(design: Design, plane: PlaneDesign) -> PlaneGraphReport:
    shape = plane.shape
    graph = build_graph(design, plane.name)
    if shape.tiers == 1 and shape.leaves_per_group == 2:
        connected = all(graph.degree(node) == 2 for node, d in graph.nodes(data=True)
                        if d["role"] == "servers")  # fmt: skip
    else:
        connected = nx.is_connected(graph)
    hops, ecmp = _hops(graph, shape)
    switch_failure, link_failure = _failures(shape)
    return PlaneGraphReport(
        plane=plane.name,
        nodes=graph.number_of_nodes(),
        edges=graph.number_of_edges(),
        servers_connected=connected,
        max_leaf_hops=hops,
        max_server_hops=hops + 2,
        ecmp_paths=ecmp,
        bisection_gbps=_min_cut(shape),
        analytic_bisection_gbps=plane.bisection_gbps,
        worst_switch_failure=switch_failure,
        worst_link_failure=link_failure,
    )


def validate(design: Design) -> GraphReport:
    return GraphReport(planes=tuple(_validate_plane(design, plane) for plane in design.planes))
