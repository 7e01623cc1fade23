"""Property tests over random valid requests (hypothesis)."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import graph as engine_graph
from engine.cabling import iter_cabling
from engine.catalog import MediaKind
from engine.design import Design
from engine.errors import DesignError
from engine.ports import leaf_capacity
from engine.request import parse_request
from engine.sizing import size
from tests.engine.catalogs import CATALOG

SWITCHES = ("16x400", "32x400", "64x400", "64x800", "SW-64x400")


@st.composite
def requests(draw: st.DrawFn, max_servers: int = 300) -> dict[str, object]:
    per_server = draw(st.sampled_from([4, 8]))
    rails = draw(st.sampled_from([r for r in (2, 4, 8) if r <= per_server]))
    fabric = draw(st.sampled_from(["rail", "rail-plane", "tor"]))
    data: dict[str, object] = {
        "gpus": draw(st.integers(1, max_servers)) * per_server,
        "gpus_per_server": per_server,
        "rails": rails,
        "nic_speed": draw(st.sampled_from([100, 200, 400])),
        "fabric": fabric,
        "leaf": draw(st.sampled_from(SWITCHES)),
        "oversubscription": draw(st.sampled_from([1, 1.5, 2, 3, 7])),
        "servers_per_rack": draw(st.integers(1, 16)),
        "leaf_placement": draw(st.sampled_from(["tor", "mor", "eor", "network-rack"])),
    }
    if draw(st.booleans()):
        data["spine"] = draw(st.sampled_from(SWITCHES))
    if fabric == "tor":
        data["dual_homing"] = draw(st.booleans())
    if fabric == "rail-plane":
        data["rails_per_plane"] = draw(st.sampled_from([r for r in (1, 2) if rails % r == 0]))
    return data


def _design(data: dict[str, object]) -> Design:
    request = parse_request(data, CATALOG)
    try:
        return size(request, CATALOG)
    except DesignError:
        assume(False)
        raise


SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(requests())
def test_every_server_port_lands_on_a_leaf_port(data: dict[str, object]) -> None:
    design = _design(data)
    compute = design.compute
    shape = compute.shape
    expected = design.servers * design.request.rails
    assert sum(g.links for g in compute.links if g.a == "server") == expected
    leaf_ports = sum(g.count * g.leaves * g.downlinks_per_leaf for g in shape.leaf_groups)
    assert leaf_ports * shape.fabric_planes == expected


@SETTINGS
@given(requests())
def test_no_switch_uses_more_ports_than_it_has(data: dict[str, object]) -> None:
    design = _design(data)
    request = design.request
    assert request.leaf is not None
    leaf_model = request.leaf.model
    spine_model = request.spine.model if request.spine else leaf_model
    shape = design.compute.shape
    for tier in design.compute.tiers:
        assert 0 <= tier.ports_used <= tier.physical_ports
    up = shape.uplink_speed_gbps or None
    room = leaf_capacity(leaf_model, shape.nic_speed_gbps, up, shape.leaf_downlinks)
    assert room is not None
    assert shape.leaf_uplinks <= room[0]
    if shape.tiers >= 2:
        # Uplinks spread evenly: the spines a leaf meets divide its uplinks.
        assert shape.leaf_uplinks % shape.spines_per_pod == 0
        pod_leaves = min(shape.leaves, shape.groups_per_pod * shape.leaves_per_group)
        spine_down = pod_leaves * shape.leaf_spine_links
        core_up = shape.core_speed_gbps or None
        spine_room = leaf_capacity(spine_model, shape.uplink_speed_gbps, core_up, spine_down)
        assert spine_room is not None
        assert shape.spine_uplinks <= spine_room[0]


@SETTINGS
@given(requests())
def test_achieved_oversubscription_never_exceeds_target(data: dict[str, object]) -> None:
    design = _design(data)
    for tier in design.compute.tiers:
        if tier.oversubscription is not None and tier.oversubscription_target is not None:
            down = tier.downlinks * tier.downlink_speed_gbps
            up = tier.uplinks * tier.uplink_speed_gbps
            assert down <= tier.oversubscription_target * up + 1e-9


@pytest.mark.slow
@SETTINGS
@given(requests(max_servers=160))
def test_analytic_bisection_equals_min_cut(data: dict[str, object]) -> None:
    design = _design(data)
    report = engine_graph.validate(design)
    compute = report.planes[0]
    assert compute.servers_connected
    assert compute.bisection_gbps == compute.analytic_bisection_gbps


@pytest.mark.slow
@SETTINGS
@given(requests(max_servers=400))
def test_symmetry_cut_equals_full_cut(data: dict[str, object]) -> None:
    shape = _design(data).compute.shape
    assume(shape.tiers > 1)
    full = engine_graph._min_cut(shape)
    folded = engine_graph._min_cut_by_symmetry(shape) * shape.fabric_planes
    assert full == folded


@SETTINGS
@given(requests())
def test_links_cables_transceivers_consistent_with_media(data: dict[str, object]) -> None:
    design = _design(data)
    for plane in design.planes:
        for group in plane.links:
            # A breakout cable carries up to `links_per_cable` links; a partly used cage still
            # takes a whole cable.
            assert math.ceil(group.links / group.links_per_cable) <= group.cables <= group.links
            if group.media in (MediaKind.DAC, MediaKind.AEC, MediaKind.AOC, MediaKind.UTP):
                # Copper has no optics; an AOC has its transceivers built in.
                assert group.transceivers == 0
                assert group.transceiver_sku_a is None
            else:
                # One module per cage, always: a twin-port module fills one cage running 2x400G
                # and serves its two links (ports-cages-and-plugs.md, "One plug per cage").
                assert group.end_a is not None
                assert group.end_b is not None
                assert group.transceivers_a == group.end_a.cages
                assert group.transceivers_b == group.end_b.cages
                assert group.transceivers == group.transceivers_a + group.transceivers_b
                assert group.links_per_transceiver_b == group.end_b.links_per_cage
    assert design.cables_total <= design.links_total


@settings(max_examples=40, deadline=None)
@given(requests(max_servers=40))
def test_cabling_rows_match_counts_and_never_repeat(data: dict[str, object]) -> None:
    design = _design(data)
    rows = list(iter_cabling(design))
    assert sum(row.links for row in rows) == design.links_total
    assert len(rows) == design.cables_total
    ends: Counter[tuple[str, str]] = Counter()
    for row in rows:
        for device, port in zip(row.b_device.split("+"), row.b_port.split("+"), strict=False):
            ends[(device, port)] += 1
        for port in row.a_port.split("+"):
            ends[(row.a_device, port)] += 1
    # A port holds one cable end; a repeated A-B pair would show up here as a repeated port.
    assert max(ends.values()) == 1
    assert len({row.label for row in rows}) == len(rows)
