"""Serializer, text table, cabling plan, graph checks, media errors, alternatives, topology."""

from __future__ import annotations

import itertools
import json
from decimal import Decimal

import pytest

from engine.cabling import iter_cabling
from engine.errors import MediaUnavailable
from engine.graph import build_graph, validate
from engine.request import parse_request
from engine.search import alternatives
from engine.serialize import design_to_dict, format_text
from engine.sizing import size
from engine.topology import topology
from tests.engine.catalogs import CATALOG, NO_SWITCHES


def _size(**fields: object):
    return size(parse_request(fields, CATALOG), CATALOG)


def test_json_has_the_promised_keys() -> None:
    design = _size(gpus=1024, leaf="64x400", storage={"nic_speed": 100, "storage_nodes": 8}, oob={})
    data = design_to_dict(design)
    json.dumps(data)  # JSON-ready
    for key in (
        "servers", "switches", "links", "cables_total", "transceivers_total",
        "oversubscription", "bisection_gbps", "bom", "warnings", "planes", "growth", "power_w",
    ):  # fmt: skip
        assert key in data
    # 128 servers = 4 SUs of 32: 32 leaves, 32 x 32 uplinks / 64 = 16 spines.
    assert data["switches"]["leaf"] == 32
    assert data["switches"]["spine"] == 16
    assert data["oversubscription"] == {"leaf": 1.0}
    assert {"a", "b", "count", "speed_gbps", "media"} <= set(data["links"][0])
    assert {"sku", "description", "quantity"} <= set(data["bom"][0])
    assert "storage_leaf" in data["switches"]
    assert "oob_leaf" in data["switches"]


def test_text_summary_names_tiers() -> None:
    text = format_text(_size(gpus=256, leaf="64x400"))
    assert "leaf" in text
    assert "spine" in text
    assert "Totals: 512 links" in text


def test_deterministic() -> None:
    first = design_to_dict(_size(gpus=2048, leaf="64x800", oob={}))
    second = design_to_dict(_size(gpus=2048, leaf="64x800", oob={}))
    assert first == second


def test_cabling_is_lazy_and_named() -> None:
    design = _size(gpus=131072, leaf="64x800")
    rows = iter_cabling(design)
    first = list(itertools.islice(rows, 3))
    assert first[0].a_device == "su01-r1-leaf"
    assert first[0].b_device.startswith("srv00001")
    # The design itself holds counts only: 1M+ cables are never materialised. Link groups grow
    # with the pods (each pod's spine-core run has its own length), never with the servers.
    assert design.cables_total > 100_000
    assert len(design.compute.links) < 20 + design.compute.shape.pods


def test_cabling_names_three_tiers() -> None:
    design = _size(gpus=4096, leaf="64x400")
    devices = {row.a_device for row in iter_cabling(design)}
    assert "pod1-spine01" in devices
    assert "core01" in devices


def test_graph_is_small_and_checks_pass() -> None:
    design = _size(gpus=8192, leaf="64x800")
    graph = build_graph(design)
    # 128 leaves + 64 spines + 16 server groups; leaf-spine bundles merged: 128 x 64 edges.
    assert graph.number_of_nodes() == 128 + 64 + 16
    report = validate(design).planes[0]
    assert report.servers_connected
    assert report.bisection_matches
    assert report.max_leaf_hops == 2  # leaf - spine - leaf
    assert report.ecmp_paths == 64  # one path through each spine
    assert report.worst_switch_failure is not None


def test_three_tier_hops_and_paths() -> None:
    report = validate(_size(gpus=4096, leaf="64x400")).planes[0]
    assert report.max_leaf_hops == 4  # leaf - spine - core - spine - leaf
    # Across pods: 32 spines x 2 cores per spine's core group.
    assert report.ecmp_paths == 64
    assert report.bisection_matches


def test_forced_copper_over_long_runs_names_the_link() -> None:
    with pytest.raises(
        MediaUnavailable, match=r"server-leaf links of [0-9.]+ m at 400G: DAC reaches 3 m"
    ):
        _size(gpus=256, leaf="64x400", media="copper")


def test_forced_optical_uses_transceivers() -> None:
    design = _size(gpus=256, leaf="64x400", media="optical", leaf_placement="network-rack")
    assert all(g.media.value in ("aoc", "mmf", "smf") for g in design.compute.links)


def test_long_spine_row_uses_single_mode_optics() -> None:
    design = _size(gpus=256, leaf="64x400", spine_row_distance_m=120)
    uplinks = [g for g in design.compute.links if g.a == "leaf"]
    assert {g.media.value for g in uplinks} == {"smf"}
    # DR4 optics at both ends: two transceivers per link.
    assert sum(g.transceivers for g in uplinks) == 2 * 256


def test_planned_product_warns() -> None:
    design = _size(gpus=256, leaf="SW-64x800")
    assert "lifecycle_planned" in {w.code for w in design.warnings}


def assert_labels_true(options) -> None:
    """Each label sits on the option that is best by its own measure among those offered."""
    from engine.failures import failure_effects

    def worst(option):
        return max((e.servers_cut_off, e.servers_degraded) for e in failure_effects(option))

    for option in options:
        others = [o for o in options if o is not option]
        if "most_growth" in option.labels:
            reach = option.compute.growth.max_gpus_current_spines
            assert all(reach >= o.compute.growth.max_gpus_current_spines for o in others)
        if "most_resilient" in option.labels:
            assert all(worst(option) <= worst(o) for o in others)
        if "lowest_cost" in option.labels and option.cost is not None:
            # Never on an option with lines still to price or a switch priced by estimate.
            assert not option.unpriced_lines
            assert not option.cost_estimated
            per_gpu = Decimal(option.cost) / option.gpus
            assert all(
                per_gpu <= Decimal(o.cost) / o.gpus
                for o in others
                if o.cost is not None and not o.unpriced_lines and not o.cost_estimated
            )


def test_alternatives_rank_and_explain() -> None:
    request = parse_request({"gpus": 2048, "nic_speed": 400}, CATALOG)
    options = alternatives(request, CATALOG)
    assert 1 <= len(options) <= 3
    assert all(option.notes for option in options)
    # Labelled by what each is best at, each a different design (one may win several labels);
    # without prices the lowest "cost" is the fewest switches.
    assert options[0].labels[0] == options[0].label == "lowest_cost"
    assert sorted(code for o in options for code in o.labels) == sorted(
        {"lowest_cost", "most_resilient", "most_growth"}
    )
    switches = [sum(t.count for t in o.compute.tiers) for o in options]
    assert switches[0] == min(switches)
    assert_labels_true(options)
    prices = {"SW-64x400": Decimal("20000"), "SW-64x800": Decimal("45000")}
    priced = alternatives(request, CATALOG, prices)
    # Fully priced designs first; among them the lowest cost per GPU leads. Only the switches
    # are priced here, so every design has lines to price: the first is the cheapest "so far",
    # never called the lowest cost.
    first = priced[0]
    fully = [o for o in priced if not o.unpriced_lines]
    assert first.label == ("lowest_cost" if fully else "lowest_cost_so_far")
    assert_labels_true(priced)
    if fully:
        assert not first.unpriced_lines
        assert Decimal(first.cost or 0) == min(Decimal(o.cost or 0) for o in fully)


def test_alternatives_keep_the_oversubscription_ceiling() -> None:
    # A 1:1 request is never offered 2:1; a 2:1 request may be offered 1:1 (better), never 3:1.
    one = alternatives(parse_request({"gpus": 2048, "nic_speed": 400, "oversubscription": 1},
                                     CATALOG), CATALOG)  # fmt: skip
    assert all((o.compute.tiers[0].oversubscription or 1) <= 1 for o in one)
    two = alternatives(parse_request({"gpus": 2048, "nic_speed": 400, "oversubscription": 2},
                                     CATALOG), CATALOG)  # fmt: skip
    assert all((o.compute.tiers[0].oversubscription or 1) <= 2 for o in two)


def test_inline_switches_are_priced_as_estimates_not_free() -> None:
    # An inline 64x400 spec is priced from the catalog's priced switches of its class
    # (25.6T, within a factor of two: SW-64x400 at 20,000 for 25.6T), not at zero.
    prices = {"SW-64x400": Decimal("20000"), "SW-64x800": Decimal("45000")}
    request = parse_request({"gpus": 1024, "nic_speed": 400, "leaf": "64x400"}, NO_SWITCHES)
    design = size(request, NO_SWITCHES, prices)
    assert design.cost is not None
    assert not design.cost_estimated  # NO_SWITCHES has no switch to estimate from
    from tests.engine.catalogs import CATALOG as WITH_SWITCHES

    design = size(request, WITH_SWITCHES, prices)
    switches = sum(t.count for t in design.compute.tiers if t.sku is None)
    assert switches > 0
    assert design.cost_estimated
    # The class of a 25.6T switch (12.8T to 51.2T): SW-64x400 at 20,000 / 25,600 Gbps = 0.78125
    # and SW-64x800 at 45,000 / 51,200 = 0.87890625 per Gbps; the median (upper of two) times
    # 25,600 Gbps = 22,500 each. Only switches are priced here, so that is the whole cost.
    assert Decimal(design.cost or 0) == switches * Decimal(22500)


def test_topology_outline_is_small() -> None:
    outline = topology(_size(gpus=131072, leaf="64x800"))[0]
    assert [row.tier for row in outline.rows] == ["servers", "leaf", "spine", "core"]
    assert all(len(row.boxes) <= 8 for row in outline.rows)
    assert outline.bundles


def _with_utp_rated(speed_gbps: int):
    """The test catalog with its twisted-pair cords re-rated (Cat6A is sold as a 10G cord)."""
    from dataclasses import replace

    from engine.catalog import MediaKind, MediaRule

    cables = tuple(
        replace(c, speed_gbps=speed_gbps) if c.media == MediaKind.UTP else c for c in CATALOG.cables
    )
    # 10GBASE-T reaches 100 m over Cat6A (IEEE 802.3an), as 1000BASE-T does over Cat5e.
    rules = (*CATALOG.media_rules, MediaRule(speed_gbps=10, media=MediaKind.UTP, max_reach_m=100))
    return replace(CATALOG, cables=cables, media_rules=rules, version=f"utp-{speed_gbps}")


def test_a_10g_rated_twisted_pair_cord_carries_1g_management_links() -> None:
    # Cat6A is specified for 10GBASE-T and also carries 1000BASE-T (IEEE 802.3ab/an): the 1G
    # BMC links of the OOB plane must find the 10G-rated cords, as the seed catalog sells them.
    catalog = _with_utp_rated(10)
    design = size(parse_request({"gpus": 256, "leaf": "64x400", "oob": {}}, catalog), catalog)
    oob = next(plane for plane in design.planes if plane.name == "oob")
    assert oob.links
    assert {group.media.value for group in oob.links} == {"utp"}
    assert all(group.cable_sku.startswith("EZ-CAT6A-") for group in oob.links)


def test_a_1g_cord_does_not_carry_10g_links() -> None:
    from engine.catalog import FormFactor
    from engine.media import MediaSelector, PortEnd
    from engine.request import MediaPolicy

    rj45 = PortEnd(form_factor=FormFactor.RJ45, native_gbps=10, ways=1)
    # Twisted pair comes first for links of 10G and below; a 1G-rated cord is passed over. No
    # DAC fits an RJ45 jack (ports-cages-and-plugs.md), so the link gets a generic 10G cord:
    # a catalog gap with no SKU, not a cable that does not fit.
    choice = MediaSelector(_with_utp_rated(1), MediaPolicy.COPPER).choose(
        "oob endpoint-leaf", 10, 2.5, rj45, rj45
    )
    assert choice.media.value == "utp"
    assert choice.catalog_gap
    assert choice.cable.sku == ""
    assert "10G RJ45 to RJ45 UTP" in choice.cable.name
    choice = MediaSelector(_with_utp_rated(10), MediaPolicy.COPPER).choose(
        "oob endpoint-leaf", 10, 2.5, rj45, rj45
    )
    assert choice.media.value == "utp"
    assert choice.length_m == 3.0  # the shortest stock cord reaching 2.5 m (catalogs.py)


def test_power_per_rack_counts_the_server_end_of_active_cables() -> None:
    # 1,024 GPUs, leaves in the middle of the row: the runs beyond 3 m are 400G AOCs, which the
    # test catalog rates at 16 W per cable (catalogs.py), half of it at the server end. No NIC
    # SKU is named, so NICs add nothing; the leaves sit outside the compute racks.
    design = _size(gpus=1024, leaf="64x400", max_rack_power_w=20)
    compute = design.planes[0]
    aoc_w = sum(
        group.cables * 16.0
        for group in compute.links
        if group.a == "server" and group.media.value == "aoc"
    )
    assert aoc_w > 0
    servers_per_rack = design.request.layout.servers_per_rack  # 4 by default
    expected = round(aoc_w * 0.5 / design.servers * servers_per_rack)
    assert design.power_per_rack_w == expected
    # Above the 20 W limit asked for: the engine says so.
    assert expected > 20
    assert "rack_power" in {w.code for w in design.warnings}


def test_sfp_cages_never_get_twisted_pair_cords() -> None:
    from engine.catalog import FormFactor
    from engine.media import MediaSelector, PortEnd
    from engine.request import MediaPolicy

    # A 10G SFP+ NIC on an SFP28 leaf: a Cat6A cord rated 10G fits no SFP cage, so the link
    # takes the next copper media (DAC) although the cord comes first for links of 10G and below.
    nic = PortEnd(form_factor=FormFactor.SFP_PLUS, native_gbps=10, ways=1)
    leaf = PortEnd(form_factor=FormFactor.SFP28, native_gbps=25, ways=1)
    choice = MediaSelector(_with_utp_rated(10), MediaPolicy.COPPER).choose(
        "compute server-leaf", 10, 2.5, leaf, nic
    )
    assert choice.media.value == "dac"


@pytest.mark.parametrize(("gpus", "tiers", "words"), [(64, 1, "on the switches' free ports")])
def test_the_text_names_growth_by_what_the_design_has(gpus, tiers, words):
    """Found: "with these spines" printed for one-tier designs, which have no spines."""
    from engine.serialize import format_text

    design = _size(gpus=gpus, gpus_per_server=8)
    assert design.compute.shape.tiers == tiers
    assert f"GPUs {words}," in format_text(design)


def test_a_cable_names_one_device_or_one_per_lane() -> None:
    # Issue 26: a breakout row listed each distinct device once beside a port per lane
    # ("spine01+spine02" against three ports), so which lane went where had to be guessed.
    from engine.cabling import iter_cabling

    for fields in (
        {"gpus": 512, "nic_speed": 400, "leaf": "SW-64x800", "fabric": "rail"},
        {"gpus": 256, "nic_speed": 200, "leaf": "64x400", "spine": "64x400", "fabric": "tor"},
        # 6 ports a server on 400G cages split 4 ways: a cable's lanes c5+c6 of one server and
        # c1+c2 of the next, named "srv0001+srv0002" against four ports before.
        {"gpus": 96, "gpus_per_server": 6, "nic_speed": 100, "leaf": "64x400", "fabric": "tor"},
    ):
        rows = list(iter_cabling(_size(**fields)))
        broken_out = [row for row in rows if row.links > 1]
        assert broken_out  # each request has breakout cables (2 x 400G, 2 x 200G cages)
        for row in rows:
            for devices, ports in ((row.a_device, row.a_port), (row.b_device, row.b_port)):
                named = devices.split("+")
                assert len(named) in (1, len(ports.split("+"))), (devices, ports)
                assert len(named) == 1 or len(set(named)) > 1  # one device is named once


def test_single_homed_top_of_rack_racks_get_a_single_point_of_failure_note() -> None:
    # Issue 26: a leaf failure cuts a single-homed rack off (engine.failures); the note was
    # missing. Dual-homed, each rack has a leaf pair and no such note.
    fields = {"gpus": 512, "nic_speed": 400, "leaf": "64x400", "fabric": "tor"}
    single = _size(**fields)
    notes = [w.message for w in single.warnings if w.code == "single_point_of_failure"]
    assert any("top-of-rack leaf" in note for note in notes), notes
    paired = _size(**fields, dual_homing=True)
    assert not any("top-of-rack leaf" in w.message for w in paired.warnings), (
        "a dual-homed rack has two leaves"
    )
