"""Rack-scale scale-up domains (issue 28, item 1): an NVL72-class request sizes its racks, their
power, NVLink switch trays, power shelves and management switches, and the scale-out fabric
from the active trays' NICs. Counts from first principles, checked against the published
references beside each figure. Pure engine on the test catalog, no database."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.request import RequestError, parse_request, to_dict
from engine.request.systems import POWER_SHELF_W
from engine.result import design_result, result_from_json, result_to_json
from engine.scale_up import RACK_CATEGORY
from engine.serialize import design_to_dict, format_text
from engine.sizing import size
from planner.handover.elevations import design_elevations
from tests.engine.catalogs import CATALOG

# NVIDIA DGX SuperPOD with DGX GB200 systems: one scalable unit is 8 DGX GB200 racks of 72
# GPUs, 576 GPUs, with a TDP of 1.2 MW per SU
# (https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/
# latest/dgx-superpod-architecture.html).
SU_RACKS = 8
SU_GPUS = 576
SU_TDP_W = 1_200_000
# DGX GB200 user guide, "Rack Configuration" and "Compute Trays": 18 x 1RU compute trays of
# 4 GPUs, 9 x 1RU NVLink switch trays, 2 TOR switches for management, 4 x ConnectX-7 400G OSFP
# NICs per tray (https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html).
TRAYS, GPUS_PER_TRAY, NVLINK_TRAYS, MANAGEMENT, NICS_PER_TRAY = 18, 4, 9, 2, 4
# BCM power shelf integration: 8 power shelves per GB200 rack, 6 PSUs of up to 5.5 kW each
# (https://docs.nvidia.com/base-command-manager/product-manuals/nvidia-mission-control/
# powershelf.md).
POWER_SHELVES = 8
# DGX SuperPOD with DGX B300 (XDR): one SU of 576 GPUs at 800G, rail-optimized on 144-port
# 800G switches, is 8 leaves and 4 spines with 576 node-leaf and 576 leaf-spine cables
# (https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/
# latest/dgx-superpod-architecture.html, Table 3). A GB300 NVL72 SU has the same endpoints:
# 8 racks x 18 trays x 4 ConnectX-8 at 800G = 576.
XDR_SU = {"leaf": 8, "spine": 4, "node_leaf": 576, "leaf_spine": 576}


def _size(**fields: object):
    return size(parse_request(fields, CATALOG), CATALOG)


def _links(design, a: str, b: str) -> int:
    return sum(g.links for g in design.compute.links if (g.a, g.b) == (a, b))


def _cables(design, a: str, b: str) -> int:
    return sum(g.cables for g in design.compute.links if (g.a, g.b) == (a, b))


def _rack_line(design, words: str) -> int:
    return sum(
        line.quantity
        for line in design.bom
        if line.category == RACK_CATEGORY and words in line.description
    )


def test_a_system_fills_in_its_trays_and_round_trips() -> None:
    request = parse_request({"gpus": SU_GPUS, "system": "gb200-nvl72"}, CATALOG)
    assert (request.gpus_per_server, request.rails, request.nic_speed_gbps) == (
        GPUS_PER_TRAY,
        NICS_PER_TRAY,
        400,
    )
    block = request.scale_up
    assert block is not None
    assert (block.trays_per_rack, block.nvlink_switch_trays) == (TRAYS, NVLINK_TRAYS)
    assert block.active_trays_per_rack == TRAYS  # 18 x 5,400 W fit 132 kW
    assert request.layout.servers_per_rack == TRAYS
    again = parse_request(json.loads(json.dumps(to_dict(request))), CATALOG)
    assert again == request


def test_one_gb200_scalable_unit_counts_its_racks_parts_nics_and_power() -> None:
    design = _size(gpus=SU_GPUS, system="gb200-nvl72", fabric="rail", leaf="64x400")
    up = design.scale_up
    assert up is not None
    racks = math.ceil(SU_GPUS / (TRAYS * GPUS_PER_TRAY))
    assert racks == SU_RACKS == design.racks == up.racks
    assert up.compute_trays == up.active_trays == design.servers == SU_RACKS * TRAYS
    assert up.spare_trays == 0
    assert up.nvlink_switch_trays == SU_RACKS * NVLINK_TRAYS == _rack_line(design, "NVLink")
    assert up.power_shelves == SU_RACKS * POWER_SHELVES == _rack_line(design, "power shelf")
    assert up.management_switches == SU_RACKS * MANAGEMENT
    assert _rack_line(design, "compute tray") == SU_RACKS * TRAYS
    assert _rack_line(design, "manifold") == SU_RACKS  # liquid-cooled
    # 72 scale-out NICs per rack, each cabled once to a rail leaf.
    assert up.scale_out_nics == SU_RACKS * TRAYS * NICS_PER_TRAY == 576
    assert _links(design, "server", "leaf") == 576 == _cables(design, "server", "leaf")
    # 64-port 400G leaves at 1:1 serve up to 32 trays a rail; the engine takes units of 30
    # (10 spines then divide each leaf's 30 uplinks). 144 trays = 4.8 units -> 5 units of
    # 4 rails = 20 leaves, each with as many uplinks as downlinks (a partial unit keeps every
    # uplink: README), spread evenly over the spines.
    leaf, spine = design.compute.tier("leaf"), design.compute.tier("spine")
    unit = leaf.downlinks
    assert unit <= 32
    assert leaf.uplinks == unit
    assert leaf.count == math.ceil(SU_RACKS * TRAYS / unit) * NICS_PER_TRAY == 20
    assert _links(design, "leaf", "spine") == leaf.count * leaf.uplinks == 600
    assert spine.count * spine.downlinks == 600
    assert leaf.uplinks % spine.count == 0
    # The NVLink domain is the rack: 72 GPUs for tensor and expert parallelism.
    assert design.scale_up_gpus == TRAYS * GPUS_PER_TRAY == 72
    # 18 trays x 5,400 W + 2 management switches: under the rack's 132 kW (4 x 33 kW shelves,
    # N+N); the SU's eight racks stay under its 1.2 MW TDP.
    assert up.rack_power_w <= up.rack_power_limit_w == 4 * POWER_SHELF_W
    assert up.rack_power_w >= TRAYS * 5_400
    assert SU_RACKS * up.rack_power_w <= SU_TDP_W


def test_a_gb300_scalable_unit_matches_the_published_800g_unit() -> None:
    design = _size(gpus=SU_GPUS, system="gb300-nvl72", fabric="rail", leaf="144x800")
    assert design.request.nic_speed_gbps == 800
    counts = {tier.role: tier.count for tier in design.compute.tiers}
    assert (counts["leaf"], counts["spine"]) == (XDR_SU["leaf"], XDR_SU["spine"])
    assert _links(design, "server", "leaf") == XDR_SU["node_leaf"]
    assert _cables(design, "server", "leaf") == XDR_SU["node_leaf"]
    assert _links(design, "leaf", "spine") == XDR_SU["leaf_spine"]
    assert _cables(design, "leaf", "spine") == XDR_SU["leaf_spine"]


def test_fewer_active_trays_leave_spares_and_more_racks() -> None:
    # Published deployments run fewer than 72 GPUs a rack: 16 of 18 trays, 64 GPUs.
    design = _size(
        gpus=1152, system="gb200-nvl72", fabric="rail", leaf="64x400", active_trays_per_rack=16
    )
    up = design.scale_up
    assert up is not None
    assert design.racks == up.racks == math.ceil(1152 / (16 * GPUS_PER_TRAY)) == 18
    assert up.spare_trays == 18 * TRAYS - 1152 // GPUS_PER_TRAY == 36
    assert _rack_line(design, "spare") == 36
    assert design.scale_up_gpus == 64
    assert _links(design, "server", "leaf") == 1152  # the spares' NICs are not cabled


def test_active_trays_over_the_racks_power_are_refused_naming_the_field() -> None:
    with pytest.raises(RequestError) as caught:
        parse_request(
            {"gpus": 576, "system": "gb200-nvl72", "tray_power_w": 8000,
             "active_trays_per_rack": 18},
            CATALOG,
        )  # fmt: skip
    assert "active_trays_per_rack" in caught.value.errors
    # Left out, the active trays are what the rack feeds: 132 kW / 8 kW = 16 (less the
    # management switches' draw, when the catalog states it).
    request = parse_request({"gpus": 576, "system": "gb200-nvl72", "tray_power_w": 8000}, CATALOG)
    assert request.scale_up is not None
    assert request.scale_up.active_trays_per_rack == 16


def test_a_request_without_rack_scale_fields_keeps_its_json() -> None:
    design = _size(gpus=256, fabric="rail", leaf="64x400")
    assert design.scale_up is None
    assert design.scale_up_gpus == 8
    data = design_to_dict(design)
    assert "scale_up" not in data
    assert not {"system", "trays_per_rack", "cooling"} & set(data["request"])
    assert "Rack-scale" not in format_text(design)


def test_the_result_keeps_the_scale_up_block_through_its_json() -> None:
    design = _size(gpus=SU_GPUS, system="gb200-nvl72", fabric="rail", leaf="64x400")
    result = design_result(design)
    back = result_from_json(json.loads(json.dumps(result_to_json(result))))
    assert back.scale_up == design.scale_up
    assert back.scale_up_gpus == 72
    assert "Rack-scale: NVIDIA GB200 NVL72 x 8 racks" in format_text(design)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    trays=st.integers(1, 24),
    spare=st.integers(0, 4),
    per_tray=st.sampled_from([1, 2, 4, 8]),
    nics=st.integers(1, 4),
    racks=st.integers(1, 6),
    tray_w=st.integers(500, 9000),
    rack_kw=st.sampled_from([40.0, 80.0, 132.0, 200.0]),
)
def test_every_active_trays_nics_are_cabled_and_no_rack_is_over_its_power(
    trays: int, spare: int, per_tray: int, nics: int, racks: int, tray_w: int, rack_kw: float
) -> None:
    fits = int(rack_kw * 1000 // tray_w)
    active = max(1, min(trays - min(spare, trays - 1), fits))
    gpus = per_tray * (active * (racks - 1) + 1)  # the last rack holds one tray
    fields = {
        "gpus": gpus, "gpus_per_server": per_tray, "rails": nics, "nic_speed": 400,
        "trays_per_rack": trays, "active_trays_per_rack": active, "tray_power_w": tray_w,
        "rack_power_kw": rack_kw, "fabric": "rail", "leaf": "64x400",
    }  # fmt: skip
    if fits == 0:  # not even one tray fits the rack: refused, naming the power
        with pytest.raises(RequestError) as caught:
            parse_request(fields, CATALOG)
        assert set(caught.value.errors) <= {"active_trays_per_rack", "rack_power_kw"}
        return
    request = parse_request(fields, CATALOG)
    design = size(request, CATALOG)
    up = design.scale_up
    assert up is not None
    assert design.racks == up.racks == math.ceil(gpus / (active * per_tray)) == racks
    assert up.compute_trays == racks * trays
    assert up.active_trays == gpus // per_tray
    assert _links(design, "server", "leaf") == up.scale_out_nics == (gpus // per_tray) * nics
    assert up.rack_power_w <= up.rack_power_limit_w
    assert up.nvlink_switch_trays == racks * request.scale_up.nvlink_switch_trays
    for rack in design_elevations(design).racks:
        if rack.kind == "compute":
            assert rack.power_max_w <= up.rack_power_limit_w, rack.name
            roles = [item.role for item in rack.items]
            assert roles.count("server") + roles.count("spare_tray") == trays


def test_a_named_nic_gives_the_trays_cage_but_is_not_billed_twice() -> None:
    # The tray carries its ConnectX-7s (OSFP, 400G: DGX GB200 user guide, "Compute Trays"); a
    # catalog NIC named with the system sets the server end's cage for the media, and the
    # tray's line already holds the NICs.
    design = _size(gpus=SU_GPUS, system="gb200-nvl72", nic="NETI-400G-1P", leaf="64x400")
    assert not [line for line in design.bom if line.category == "nic"]
    ends = {g.end_a.form_factor for g in design.compute.links if g.a == "server" and g.end_a}
    assert {end.value for end in ends if end} == {"OSFP"}
    assert _links(design, "server", "leaf") == SU_GPUS


def test_an_unknown_system_is_one_error() -> None:
    with pytest.raises(RequestError) as caught:
        parse_request({"gpus": 576, "system": "gb400"}, CATALOG)
    assert set(caught.value.errors) == {"system"}
