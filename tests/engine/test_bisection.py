"""Bisection checked independently (issue 13 item 9): max-flow over the plane's real switch graph,
servers and their NVLink included, over several balanced cuts, against the sizing formula.

Every figure is one-way Gbps. A server of 8 GPUs has 8 x 3,600 = 28,800 Gb/s of NVLink between
its GPUs (graph.NVLINK_GBPS_PER_GPU, 450 GB/s per H100 GPU each way)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import graph as engine_graph
from engine.design import Design
from engine.errors import DesignError
from engine.graph import PlaneGraphReport, bisection_cuts, validate
from engine.request import parse_request
from engine.sizing import size
from tests.engine.catalogs import CATALOG

# 8 GPUs, 8 rails of 400G, 64-port 400G switches, non-blocking: a DGX H100 SuperPOD-like unit.
SUPERPOD = {"gpus_per_server": 8, "rails": 8, "nic_speed": 400, "leaf": "64x400",
            "oversubscription": 1}  # fmt: skip
NVLINK_8_GPUS = 8 * 3_600  # 28,800 Gb/s per server
NVLINK_PER_RAIL = NVLINK_8_GPUS // 8  # 3,600 Gb/s behind each of 8 NICs


def _design(**fields: object) -> Design:
    return size(parse_request(fields, CATALOG), CATALOG)


def _compute(design: Design, nvlink_gbps_per_gpu: int = 3_600) -> PlaneGraphReport:
    return validate(design, nvlink_gbps_per_gpu).planes[0]


def _cuts(report: PlaneGraphReport) -> dict[str, int]:
    return {cut.cut: cut.gbps for cut in report.cuts}


def test_one_superpod_unit_graph_and_formula_agree() -> None:
    design = _design(gpus=256, fabric="rail", **SUPERPOD)
    shape = design.compute.shape
    # 32 servers on 8 rail leaves of 32 down + 32 up; 8 x 32 uplinks / 64 ports = 4 spines.
    assert (shape.servers, shape.leaves, shape.spines, shape.leaf_uplinks) == (32, 8, 4, 32)
    report = _compute(design)
    assert report.nvlink_gbps_per_server == NVLINK_8_GPUS
    assert _cuts(report) == {
        # 16 servers x 8 NICs x 400G = 51,200 leave one half, every leaf non-blocking.
        "halves": 16 * 8 * 400,
        # Rails 1-4 against 5-8 of all 32 servers: the four rail leaves' uplinks,
        # 4 x 32 x 400 = 51,200, plus NVLink 32 servers x 4 rails x 3,600 = 460,800.
        "rails": 4 * 32 * 400 + 32 * 4 * NVLINK_PER_RAIL,
    }
    assert report.bisection_gbps == 51_200
    assert report.bisection_cut == "halves"
    assert report.analytic_bisection_gbps == design.compute.bisection_gbps == 51_200
    assert report.bisection_matches


def test_rail_only_fabric_crosses_rails_inside_the_servers() -> None:
    # Rail-only: each pair of rails is its own 64-port switch (32 servers x 2 rails = 64 ports),
    # four switches with no spine and nothing between them but the servers.
    design = _design(gpus=256, fabric="rail-plane", rails_per_plane=2, **SUPERPOD)
    shape = design.compute.shape
    assert (shape.fabric_planes, shape.tiers, shape.leaves) == (4, 1, 1)
    report = _compute(design)
    assert _cuts(report) == {
        # Whole servers: 16 x 8 x 400 = 51,200, through all four switches.
        "halves": 16 * 8 * 400,
        # Rails 1-4 against 5-8: no switch joins them, only NVLink, 32 x 4 x 3,600 = 460,800.
        "rails": 32 * 4 * NVLINK_PER_RAIL,
    }
    assert report.bisection_gbps == 51_200
    # Without NVLink (PCIe servers) no byte changes rail: the rail cut carries nothing.
    bare = _compute(design, nvlink_gbps_per_gpu=0)
    assert _cuts(bare)["rails"] == 0
    assert bare.bisection_gbps == 0
    assert bare.bisection_cut == "rails"
    # Both figures are kept; they match only if the formula says 51,200.
    assert report.analytic_bisection_gbps == design.compute.bisection_gbps
    assert report.bisection_matches is (design.compute.bisection_gbps == 51_200)


def test_formula_understating_rail_only_is_detected() -> None:
    """A formula that counts one rail plane's switch (32 servers x 2 rails x 400 / 2 = 12,800,
    a quarter of 51,200) is flagged, both figures kept, the design not ok."""
    design = _design(gpus=256, fabric="rail-plane", rails_per_plane=2, **SUPERPOD)
    understated = replace(design.compute, bisection_gbps=32 * 2 * 400 // 2)
    report = validate(replace(design, planes=(understated, *design.planes[1:])))
    plane = report.planes[0]
    assert (plane.analytic_bisection_gbps, plane.bisection_gbps) == (12_800, 51_200)
    assert not plane.bisection_matches
    assert plane.bisection_gap_gbps == 12_800 - 51_200
    assert not report.ok
    assert report.bisection_disagreements == (plane,)


def test_oversubscribed_two_to_one_halves_at_the_spines() -> None:
    full = _design(gpus=512, fabric="rail", **SUPERPOD)
    half = _design(gpus=512, fabric="rail", **{**SUPERPOD, "oversubscription": 2})
    # 64 servers = 2 units of 32 on 16 rail leaves; at 2:1 each leaf has 32 down and 16 up.
    assert (half.compute.shape.leaves, half.compute.shape.leaf_uplinks) == (16, 16)
    assert full.compute.shape.leaf_uplinks == 32
    report, blocking = _compute(full), _compute(half)
    # 1:1: half the servers, 32 x 8 x 400 = 102,400.
    assert report.bisection_gbps == 32 * 8 * 400
    # 2:1: one unit against the other (alternating the two units is the same cut), and all of
    # it climbs to the spines: 8 leaves x 16 uplinks x 400 = 51,200, half of 1:1.
    assert _cuts(blocking) == {
        "halves = alternate units": 8 * 16 * 400,
        # Rails 1-4 against 5-8: 8 leaves x 16 x 400 = 51,200 over the spines, plus NVLink
        # 64 servers x 4 x 3,600 = 921,600.
        "rails": 8 * 16 * 400 + 64 * 4 * NVLINK_PER_RAIL,
    }
    assert blocking.bisection_gbps == report.bisection_gbps // 2 == 51_200
    assert blocking.analytic_bisection_gbps == 51_200
    assert blocking.bisection_matches
    # With no NVLink the rail cut falls to the spines' 51,200 too: the same figure.
    assert _compute(half, nvlink_gbps_per_gpu=0).bisection_gbps == 51_200


def test_dual_homed_pair_counts_both_switches() -> None:
    # 8 servers, each with 4 ports on switch a and 4 on switch b: one redundant pair.
    design = _design(gpus=64, fabric="tor", dual_homing=True, **SUPERPOD)
    shape = design.compute.shape
    assert (shape.tiers, shape.leaves, shape.links_per_server_per_leaf) == (1, 2, 4)
    report = _compute(design)
    assert _cuts(report) == {
        # 4 servers x (4 + 4) x 400 = 12,800, half on each switch of the pair.
        "halves": 4 * 8 * 400,
        # Ports on switch a against ports on switch b: no link between the pair, so only
        # NVLink, 8 servers x 4 ports x 3,600 = 115,200.
        "rails": 8 * 4 * NVLINK_PER_RAIL,
    }
    assert report.bisection_gbps == 12_800
    assert report.analytic_bisection_gbps == design.compute.bisection_gbps
    assert report.bisection_matches is (design.compute.bisection_gbps == 12_800)


def test_dual_homed_two_tier_agrees() -> None:
    # 64 servers, 4 a rack: 16 racks, each a pair of leaves with 16 down (4 servers x 4) and
    # 16 up; 32 leaves x 16 / 64 ports = 8 spines.
    design = _design(gpus=512, fabric="tor", dual_homing=True, servers_per_rack=4, **SUPERPOD)
    shape = design.compute.shape
    assert (shape.leaves, shape.spines, shape.leaf_uplinks) == (32, 8, 16)
    report = _compute(design)
    # 32 servers x 8 x 400 = 102,400: every leaf has as much up as down.
    assert report.bisection_gbps == 32 * 8 * 400
    assert _cuts(report)["alternate units"] == 102_400
    assert report.analytic_bisection_gbps == 102_400
    assert report.bisection_matches


def test_partial_unit_is_cut_through_its_servers_not_its_leaves() -> None:
    # 48 servers: a full unit of 32 and a partial one of 16, each on its 8 rail leaves.
    design = _design(gpus=384, fabric="rail", **SUPERPOD)
    groups = [(g.count, g.servers) for g in design.compute.shape.leaf_groups]
    assert groups == [(1, 32), (1, 16)]
    report = _compute(design)
    # Balanced: 24 servers a side (24 of the full unit against its other 8 and the 16), all
    # non-blocking: 24 x 8 x 400 = 76,800. Halving the leaves instead sets the 32-server unit
    # against the 16-server one: 16 x 8 x 400 = 51,200, a cut of 32 against 16 servers.
    assert report.bisection_gbps == 24 * 8 * 400
    assert report.analytic_bisection_gbps == design.compute.bisection_gbps
    assert report.bisection_matches is (design.compute.bisection_gbps == 76_800)


def test_one_server_past_a_unit() -> None:
    # 33 servers of 4 GPUs and 2 x 100G rails on 16x400 switches (32 x 100G down, 32 up):
    # a unit of 32 and a unit of 1.
    design = _design(gpus=132, gpus_per_server=4, rails=2, nic_speed=100, fabric="rail",
                     leaf="16x400", oversubscription=1)  # fmt: skip
    groups = [(g.count, g.servers) for g in design.compute.shape.leaf_groups]
    assert groups == [(1, 32), (1, 1)]
    report = _compute(design)
    # 16.5 servers a side (the middle one counts half on each side) x 2 x 100 = 3,300. The
    # leaf-halving cut puts the lone server alone on one side: 1 x 2 x 100 = 200.
    assert report.bisection_gbps == 3_300
    assert report.nvlink_gbps_per_server == 4 * 3_600
    assert report.analytic_bisection_gbps == design.compute.bisection_gbps
    assert report.bisection_matches is (design.compute.bisection_gbps == 3_300)


def test_three_tiers_by_pod() -> None:
    # 512 servers, 16 units of 32 on 64x400: 4 pods of 4 units, 32 spines a pod, 64 cores.
    design = _design(gpus=4096, fabric="rail", **SUPERPOD)
    shape = design.compute.shape
    assert (shape.tiers, shape.pods, shape.groups_per_pod, shape.cores) == (3, 4, 4, 64)
    report = _compute(design)
    cuts = _cuts(report)
    # Pods 1-2 against 3-4: 256 servers x 8 x 400 = 819,200 through the cores, at 1:1; the
    # same when units or pods alternate.
    assert cuts["halves"] == cuts["alternate units"] == cuts["alternate pods"] == 819_200
    assert report.bisection_gbps == report.analytic_bisection_gbps == 819_200


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"gpus": 256, "fabric": "rail", **SUPERPOD}, id="superpod-unit"),
        pytest.param(
            {"gpus": 512, "fabric": "rail", **{**SUPERPOD, "oversubscription": 2}}, id="two-to-one"
        ),
        pytest.param(
            {"gpus": 512, "fabric": "tor", "dual_homing": True, "servers_per_rack": 4, **SUPERPOD},
            id="dual-homed-two-tier",
        ),
        pytest.param({"gpus": 4096, "fabric": "rail", **SUPERPOD}, id="three-tier"),
        pytest.param(
            {"gpus": 256, "fabric": "rail-plane", "rails_per_plane": 2, **SUPERPOD},
            id="rail-only",
        ),
        pytest.param(
            {"gpus": 64, "fabric": "tor", "dual_homing": True, **SUPERPOD},
            id="dual-homed-pair",
        ),
        pytest.param(
            {"gpus": 384, "fabric": "rail", **SUPERPOD},
            id="partial-unit",
        ),
    ],
)
def test_formula_agrees_with_graph(fields: dict[str, object]) -> None:
    """Where the formula and the graph disagree this fails. Rail-only (each rail plane's switch
    counted), the dual-homed pair (both switches) and the partial unit (servers halved, not
    leaves) disagreed until the formula balanced servers instead of leaves."""
    report = _compute(_design(**fields))
    assert report.analytic_bisection_gbps == report.bisection_gbps


def test_quotient_of_131072_gpus_is_small_and_exact_where_checkable() -> None:
    design = _design(gpus=131072, fabric="rail", **{**SUPERPOD, "leaf": "64x800"})
    shape = design.compute.shape
    for cut in engine_graph._cuts(shape):
        graph = engine_graph._quotient_graph(shape, cut, 2 * NVLINK_PER_RAIL)
        assert graph.number_of_nodes() < 200  # against 16,384 servers and 4,000+ switches
    report = _compute(design)
    # 8,192 servers a side x 8 x 400 = 26,214,400 at 1:1.
    assert report.bisection_gbps == 8_192 * 8 * 400


SWITCHES = ("16x400", "32x400", "64x400", "SW-64x400")


@st.composite
def small_requests(draw: st.DrawFn) -> dict[str, object]:
    per_server = draw(st.sampled_from([4, 8]))
    rails = draw(st.sampled_from([r for r in (1, 2, 4, 8) if r <= per_server]))
    fabric = draw(st.sampled_from(["rail", "rail-plane", "tor"]))
    data: dict[str, object] = {
        "gpus": draw(st.integers(1, 48)) * per_server,
        "gpus_per_server": per_server,
        "rails": rails,
        "nic_speed": draw(st.sampled_from([100, 200, 400])),
        "fabric": fabric,
        "leaf": draw(st.sampled_from(SWITCHES)),
        "oversubscription": draw(st.sampled_from([1, 1.5, 2, 3, 7])),
        "servers_per_rack": draw(st.integers(1, 16)),
    }
    if draw(st.booleans()):
        data["spine"] = draw(st.sampled_from(SWITCHES))
    if fabric == "tor" and rails % 2 == 0:
        data["dual_homing"] = draw(st.booleans())
    if fabric == "rail-plane":
        data["rails_per_plane"] = draw(st.sampled_from([r for r in (1, 2) if rails % r == 0]))
    if draw(st.booleans()):
        data["storage"] = {"nic_speed": 100, "storage_nodes": draw(st.integers(0, 6))}
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_requests(), st.sampled_from([0, 3_600]))
def test_quotient_graph_equals_full_graph(data: dict[str, object], nvlink: int) -> None:
    """The symmetry argument of `_quotient_graph`, checked: device by device and merged give
    the same flow for every cut, and no cut exceeds what half the servers can send."""
    try:
        design = size(parse_request(data, CATALOG), CATALOG)
    except DesignError:
        assume(False)
        raise
    for plane in design.planes:
        shape = plane.shape
        full = bisection_cuts(shape, design.gpus_per_server, nvlink, aggregate=False)
        merged = bisection_cuts(shape, design.gpus_per_server, nvlink, aggregate=True)
        assert full == merged
        links = shape.servers * shape.fabric_planes * shape.leaves_per_group
        nic_gbps = links * shape.links_per_server_per_leaf * shape.nic_speed_gbps
        assert min(cut.gbps for cut in full) <= nic_gbps // 2
