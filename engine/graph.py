"""Independent checks of a design on its switch-level graph (networkx).

Connectivity, hops and ECMP paths use the switch graph with parallel links between two switches
merged into one edge of their total capacity (one node per switch, servers as one node per leaf
group), so it stays small at 100,000 GPUs.

The bisection is computed apart from the sizing formula (`shape_figures.bisection_gbps`): a max-flow
over the plane's real switch graph with the servers in it, for each of several balanced cuts of
the servers, the worst cut giving the figure. See `bisection_cuts`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from engine import names
from engine.design import Design, PlaneDesign, PlaneShape
from engine.shape_figures import leaf_downlinks_at

# A server's cross-rail path: its GPUs reach each other over NVLink through NVSwitch, not over
# the network. NVIDIA's H100 SXM (fourth-generation NVLink) gives each GPU 900 GB/s counting both
# directions ("900 gigabytes per second (GB/s) bidirectional per GPU", NVIDIA Hopper
# architecture page and H100 datasheet), so 450 GB/s = 3,600 Gb/s each way; a DGX/HGX H100-class
# server of 8 GPUs moves 8 x 450 GB/s = 3.6 TB/s = 28,800 Gb/s between its GPUs each way.
# Bisection figures are one-way, like the network's. Pass 0 for servers without NVLink.
NVLINK_GBPS_PER_GPU = 3_600


@dataclass(frozen=True, kw_only=True)
class FailureImpact:
    device: str  # switch name, or "a-b" for a link
    role: str
    capacity_lost_gbps: int
    servers_isolated: int  # servers left with no path on this plane


@dataclass(frozen=True, kw_only=True)
class CutFlow:
    """One balanced cut of a plane's servers and the max-flow across it, one way, in Gbps."""

    cut: str  # the cut's name; cuts that put the same servers on each side are joined by " = "
    gbps: int


@dataclass(frozen=True, kw_only=True)
class PlaneGraphReport:
    plane: str
    nodes: int
    edges: int
    servers_connected: bool
    max_leaf_hops: int  # switch-to-switch links on the longest leaf-to-leaf shortest path
    max_server_hops: int  # links between two servers, NIC to NIC
    ecmp_paths: int  # equal-cost paths between the two most distant leaves
    bisection_gbps: int  # by max-flow over the graph: the worst of `cuts`
    analytic_bisection_gbps: int  # the sizing formula's figure, kept beside it
    worst_switch_failure: FailureImpact | None
    worst_link_failure: FailureImpact | None
    bisection_cut: str = ""  # the cut that gave `bisection_gbps`
    cuts: tuple[CutFlow, ...] = ()
    nvlink_gbps_per_server: int = 0  # the server-internal cross-rail capacity assumed

    @property
    def bisection_matches(self) -> bool:
        return self.bisection_gbps == self.analytic_bisection_gbps

    @property
    def bisection_gap_gbps(self) -> int:
        """Formula minus graph: negative when the formula understates the fabric."""
        return self.analytic_bisection_gbps - self.bisection_gbps


@dataclass(frozen=True, kw_only=True)
class GraphReport:
    planes: tuple[PlaneGraphReport, ...]

    @property
    def ok(self) -> bool:
        return all(p.servers_connected and p.bisection_matches for p in self.planes)

    @property
    def bisection_disagreements(self) -> tuple[PlaneGraphReport, ...]:
        """Planes whose formula and graph bisections differ (both figures are in each)."""
        return tuple(p for p in self.planes if not p.bisection_matches)


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


# ---------------------------------------------------------------------------------------------
# Bisection: max-flow over balanced cuts of the servers
#
# The graph holds every switch of the plane (every fabric plane of a rail-plane fabric) with its
# switch-to-switch links merged per pair, every server with one node per bundle of NIC links to
# one leaf, and, for servers with several ports, a hub (its NVSwitch) joined to each of its port
# nodes by that port's share of the server's NVLink capacity: the path by which traffic changes
# rail inside a server. A cut puts each server on one side, or splits it (the rail cut); a
# super-source feeds every port node on side A and a super-sink drains every port node on side
# B, both without limit, so the max flow is what the NICs' links, the switches' links and the
# servers' NVLink can carry between the halves. (The hub of a server wholly on one side carries
# nothing the source or sink would not supply directly; it matters when a server is split.)
#
# Capacities are counted in half-gigabits (every figure doubled), so that the middle server of
# an odd count can count half on each side; flows are halved back (rounded down) at the end.

SOURCE = "bisection-source"
SINK = "bisection-sink"
# Up to this many edges a plane's graph is built device by device; beyond it, as a quotient.
FULL_GRAPH_MAX_EDGES = 1_200


_Sides = tuple[tuple[int, int, int], ...]


@dataclass(frozen=True, kw_only=True)
class _Cut:
    """Which servers of each leaf group (in group order) are on which side: (whole servers on
    side A, servers halved, whole servers on side B). `rails`: every server split instead, the
    first half of its ports (fabric plane by fabric plane, rail by rail) on side A."""

    name: str
    sides: _Sides
    rails: bool = False


def _group_sizes(shape: PlaneShape) -> list[int]:
    return [group.servers for group in shape.leaf_groups for _ in range(group.count)]


def _ports(shape: PlaneShape) -> int:
    """Links from one server (or packed endpoint) into one fabric plane."""
    return shape.leaves_per_group * shape.links_per_server_per_leaf


def _balance(sizes: Sequence[int], on_a: Sequence[int], middle: int | None = None) -> _Sides:
    """Move servers between sides, from the last groups back, until side A holds half of them
    (rounded down); with an odd count, one server of side B (in group `middle`, or the last
    group with one) counts half on each side."""
    a = list(on_a)
    excess = sum(a) - sum(sizes) // 2
    for g in reversed(range(len(sizes))):
        step = min(excess, a[g]) if excess > 0 else -min(-excess, sizes[g] - a[g])
        a[g] -= step
        excess -= step
    halved = [0] * len(sizes)
    if sum(sizes) % 2:
        if middle is None:
            middle = max(g for g in range(len(sizes)) if sizes[g] > a[g])
        halved[middle] = 1
    return tuple((a[g], halved[g], sizes[g] - a[g] - halved[g]) for g in range(len(sizes)))


def _cuts(shape: PlaneShape) -> list[_Cut]:
    """The balanced cuts tried, identical ones merged:

    - "halves": the first half of the servers in cabling order against the second. Scalable
      units (racks in ToR fabrics, leaves in packed planes), pods and rows of racks are all runs
      of consecutive servers (`geometry.rail_run_m`, `geometry.leaf_link_runs`), so this is the
      cut by unit, by pod and by row at once: whole ones on each side but the one the midpoint
      splits;
    - "alternate units": units alternate between the sides, so every pod holds both halves and
      their traffic crosses at the spines rather than the cores;
    - "alternate pods" (three tiers): pods alternate between the sides;
    - "rails": every server split, the first half of its ports on one side (rails 1-4 of 8
      against 5-8): traffic between the halves must change rail, through the spines of a
      rail-optimised fabric or, in a rail-only one, inside the servers over NVLink. Tried when
      servers have an even number of ports, two or more, outside packed planes."""
    sizes = _group_sizes(shape)
    half = sum(sizes) // 2
    prefix, start, middle = [], 0, 0
    for g, size in enumerate(sizes):
        prefix.append(min(size, max(0, half - start)))
        if start <= half < start + size:
            middle = g
        start += size
    found: dict[_Sides, list[str]] = {_balance(sizes, prefix, middle): ["halves"]}
    candidates: list[tuple[str, list[int]]] = []
    if len(sizes) > 1:
        candidates.append(
            ("alternate units", [s if g % 2 == 0 else 0 for g, s in enumerate(sizes)])
        )
    if shape.tiers == 3 and shape.pods > 1:
        per_pod = shape.groups_per_pod
        candidates.append(
            ("alternate pods", [s if (g // per_pod) % 2 == 0 else 0 for g, s in enumerate(sizes)])
        )
    for name, on_a in candidates:
        found.setdefault(_balance(sizes, on_a), []).append(name)
    cuts = [_Cut(name=" = ".join(cut_names), sides=sides) for sides, cut_names in found.items()]
    total_ports = shape.fabric_planes * _ports(shape)
    if shape.style != "packed" and total_ports >= 2 and total_ports % 2 == 0:
        cuts.append(_Cut(name="rails", sides=tuple((0, 0, 0) for _ in sizes), rails=True))
    return cuts


def _kinds(cut: _Cut, size: int, sides: tuple[int, int, int]) -> list[tuple[str, int]]:
    if cut.rails:
        return [("rail", size)]
    on_a, halved, on_b = sides
    return [(kind, count) for kind, count in (("A", on_a), ("half", halved), ("B", on_b)) if count]


def _terminal(graph: Any, node: Hashable, side: str) -> None:
    """Tie a port node to the super-source (side A) or super-sink (side B), without limit."""
    if side == "A":
        graph.add_edge(SOURCE, node)
    else:
        graph.add_edge(node, SINK)


def _attach(
    graph: Any,
    server: Hashable,
    kind: str,
    weight: int,
    leaves: list[list[Hashable]],
    shape: PlaneShape,
    spoke: int,
) -> None:
    """`weight` identical servers of `kind` ("A", "B", "half" or "rail") on leaves[f][w], the
    w-th leaf of their group in fabric plane f, with `spoke` half-gigabits of NVLink per port."""
    nic = 2 * shape.nic_speed_gbps
    per_leaf = shape.links_per_server_per_leaf
    ports = _ports(shape)
    half_ports = shape.fabric_planes * ports // 2
    for f, plane_leaves in enumerate(leaves):
        for w, leaf in enumerate(plane_leaves):
            if kind in ("A", "B"):
                graph.add_edge((server, f, w), leaf, capacity=weight * per_leaf * nic)
                if spoke:
                    hub = (server, "nvlink")
                    graph.add_edge((server, f, w), hub, capacity=weight * per_leaf * spoke)
                _terminal(graph, (server, f, w), kind)
            elif kind == "half":
                # The middle server of an odd count: each link carries half its speed for
                # either side, with no path inside the server between them.
                for side in "AB":
                    graph.add_edge(
                        (server, f, w, side), leaf, capacity=weight * per_leaf * nic // 2
                    )
                    _terminal(graph, (server, f, w, side), side)
            else:
                first = f * ports + w * per_leaf
                on_a = max(0, min(per_leaf, half_ports - first))
                for side, count in (("A", on_a), ("B", per_leaf - on_a)):
                    if count:
                        node = (server, f, w, side)
                        graph.add_edge(node, leaf, capacity=weight * count * nic)
                        if spoke:
                            graph.add_edge(
                                node, (server, "nvlink"), capacity=weight * count * spoke
                            )
                        _terminal(graph, node, side)


def _full_graph(shape: PlaneShape, cut: _Cut, spoke: int) -> Any:
    """Every switch, every switch-to-switch bundle and every server of the plane, by name."""
    graph = nx.Graph()
    sizes = _group_sizes(shape)
    lpg = shape.leaves_per_group
    up = 2 * shape.leaf_spine_links * shape.uplink_speed_gbps
    total, first = sum(sizes), 0
    for g, (size, sides) in enumerate(zip(sizes, cut.sides, strict=True)):
        pod = g // shape.groups_per_pod if shape.tiers == 3 else 0
        leaves: list[list[Hashable]] = [
            [names.leaf(shape, f, g * lpg + w) for w in range(lpg)]
            for f in range(shape.fabric_planes)
        ]
        if shape.tiers >= 2:
            for f, plane_leaves in enumerate(leaves):
                for leaf in plane_leaves:
                    for j in range(shape.spines_per_pod):
                        graph.add_edge(leaf, names.spine(shape, f, pod, j), capacity=up)
        index = first
        for kind, count in _kinds(cut, size, sides):
            for _ in range(count):
                _attach(graph, names.server(index, total), kind, 1, leaves, shape, spoke)
                index += 1
        first += size
    if shape.tiers == 3:
        core = 2 * shape.spine_core_links * shape.core_speed_gbps
        for f in range(shape.fabric_planes):
            for pod in range(shape.pods):
                for j in range(shape.spines_per_pod):
                    for member in range(shape.cores_per_group):
                        graph.add_edge(
                            names.spine(shape, f, pod, j),
                            names.core(shape, f, j * shape.cores_per_group + member),
                            capacity=core,
                        )
    return graph


def _quotient_graph(shape: PlaneShape, cut: _Cut, spoke: int) -> Any:
    """The same flow problem on a graph whose size does not grow with the plane.

    Exact by symmetry. Nodes are merged in classes whose members all have the same capacity
    towards each other class and the same role (side A, side B, neither): the servers of one
    kind in leaf groups alike (same size, same split) of one pod, the leaves of such groups by
    rail, a pod's spines (each meets every leaf of its pod with the same links, and spine j
    meets core group j, the groups alike), all cores, and pods alike in their groups. Summing a
    flow of the full graph over each class gives a flow of the quotient; spreading a quotient
    flow evenly over each class's members gives a flow of the full graph, since every member
    sees the same share of every merged edge. So both have the same max flow, which keeps
    131,072 GPUs to a few dozen nodes."""
    graph = nx.Graph()
    sizes = _group_sizes(shape)
    per_pod = shape.groups_per_pod if shape.tiers == 3 else len(sizes)
    pods: list[Counter[tuple[int, int, int, int]]] = []
    for g, (size, sides) in enumerate(zip(sizes, cut.sides, strict=True)):
        if g % per_pod == 0:
            pods.append(Counter())
        pods[-1][(size, *sides)] += 1
    classes = Counter(tuple(sorted(pod.items())) for pod in pods)
    up = 2 * shape.leaf_uplinks * shape.uplink_speed_gbps  # one leaf to its pod's spines
    pod_up = 2 * shape.spines_per_pod * shape.spine_uplinks * shape.core_speed_gbps
    for pc, (signature, same_pods) in enumerate(sorted(classes.items())):
        for f in range(shape.fabric_planes):
            if shape.tiers == 3:
                graph.add_edge(("spines", pc, f), ("cores", f), capacity=same_pods * pod_up)
        for gc, (key, same_groups) in enumerate(signature):
            size, on_a, halved, on_b = key
            weight = same_pods * same_groups
            leaves: list[list[Hashable]] = [
                [("leaves", pc, gc, f, w) for w in range(shape.leaves_per_group)]
                for f in range(shape.fabric_planes)
            ]
            if shape.tiers >= 2:
                for f, plane_leaves in enumerate(leaves):
                    for leaf in plane_leaves:
                        graph.add_edge(leaf, ("spines", pc, f), capacity=weight * up)
            for kind, count in _kinds(cut, size, (on_a, halved, on_b)):
                server = ("servers", pc, gc, kind)
                _attach(graph, server, kind, weight * count, leaves, shape, spoke)
    return graph


def _full_graph_edges(shape: PlaneShape) -> int:
    """Edges of `_full_graph`, near enough: three per bundle of a server's links to a leaf (the
    links, the NVLink spoke, the source or sink) and one per switch-to-switch bundle."""
    servers = shape.servers * shape.fabric_planes * shape.leaves_per_group * 3
    fabric = shape.fabric_planes * shape.leaves * shape.spines_per_pod if shape.tiers >= 2 else 0
    cores = shape.fabric_planes * shape.spines * shape.cores_per_group
    return servers + fabric + cores


def _max_flow(graph: Any) -> int:
    if SOURCE not in graph or SINK not in graph:
        return 0
    value = nx.maximum_flow_value(graph, SOURCE, SINK, flow_func=nx.algorithms.flow.preflow_push)
    return int(value) // 2  # half-gigabits back to Gbps


def nvlink_gbps_per_server(
    shape: PlaneShape, gpus_per_server: int, nvlink_gbps_per_gpu: int = NVLINK_GBPS_PER_GPU
) -> int:
    """The server-internal path between rails on this plane: none for packed planes (storage,
    frontend, out-of-band ports are endpoints of their own) or single-port servers."""
    if shape.style == "packed" or shape.fabric_planes * _ports(shape) < 2:
        return 0
    return gpus_per_server * nvlink_gbps_per_gpu


def bisection_cuts(
    shape: PlaneShape,
    gpus_per_server: int,
    nvlink_gbps_per_gpu: int = NVLINK_GBPS_PER_GPU,
    aggregate: bool | None = None,
) -> tuple[CutFlow, ...]:
    """Max flow between the halves of each balanced cut (`_cuts`) of one plane, in Gbps one
    way; the bisection is the least of them. `aggregate`: None builds the full graph when it
    has at most FULL_GRAPH_MAX_EDGES edges and the quotient (`_quotient_graph`) beyond; True or
    False forces one (tests compare the two)."""
    nvlink = nvlink_gbps_per_server(shape, gpus_per_server, nvlink_gbps_per_gpu)
    spoke = 2 * nvlink // (shape.fabric_planes * _ports(shape)) if nvlink else 0
    if aggregate is None:
        aggregate = _full_graph_edges(shape) > FULL_GRAPH_MAX_EDGES
    build = _quotient_graph if aggregate else _full_graph
    return tuple(
        CutFlow(cut=cut.name, gbps=_max_flow(build(shape, cut, spoke))) for cut in _cuts(shape)
    )


# ---------------------------------------------------------------------------------------------
# The formula's own cut (kept only for tests/engine/test_properties.py's symmetry test; not used
# by `validate`): the first half of one fabric plane's leaves against the second, fabric planes
# taken as disjoint. It is the cut `shape_figures.bisection_gbps` computes, not a bisection check.

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


def _validate_plane(
    design: Design, plane: PlaneDesign, nvlink_gbps_per_gpu: int
) -> PlaneGraphReport:
    shape = plane.shape
    graph = build_graph(design, plane.name)
    if shape.tiers == 1 and shape.leaves_per_group == 2:
        connected = all(graph.degree(node) == 2 for node, d in graph.nodes(data=True)
                        if d["role"] == "servers")  # fmt: skip
    else:
        connected = nx.is_connected(graph)
    hops, ecmp = _hops(graph, shape)
    switch_failure, link_failure = _failures(shape)
    cuts = bisection_cuts(shape, design.gpus_per_server, nvlink_gbps_per_gpu)
    worst = min(cuts, key=lambda cut: cut.gbps)
    return PlaneGraphReport(
        plane=plane.name,
        nodes=graph.number_of_nodes(),
        edges=graph.number_of_edges(),
        servers_connected=connected,
        max_leaf_hops=hops,
        max_server_hops=hops + 2,
        ecmp_paths=ecmp,
        bisection_gbps=worst.gbps,
        analytic_bisection_gbps=plane.bisection_gbps,
        worst_switch_failure=switch_failure,
        worst_link_failure=link_failure,
        bisection_cut=worst.cut,
        cuts=cuts,
        nvlink_gbps_per_server=nvlink_gbps_per_server(
            shape, design.gpus_per_server, nvlink_gbps_per_gpu
        ),
    )


def validate(design: Design, nvlink_gbps_per_gpu: int = NVLINK_GBPS_PER_GPU) -> GraphReport:
    """Graph checks of every plane. `nvlink_gbps_per_gpu`: each GPU's NVLink bandwidth one way,
    the servers' cross-rail path (default: H100 SXM, see NVLINK_GBPS_PER_GPU)."""
    return GraphReport(
        planes=tuple(_validate_plane(design, plane, nvlink_gbps_per_gpu) for plane in design.planes)
    )
