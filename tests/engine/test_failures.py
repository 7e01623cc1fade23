"""Failures (issue 17, item 2): rates from Llama 3, the effect of each single failure, spares."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from engine import failures
from engine.failures import SparesPolicy, failure_effects, failure_report, spares
from engine.graph import validate
from engine.request import parse_request
from engine.sizing import size
from tests.engine.catalogs import CATALOG

MONTH_DAYS = 365.25 / 12  # 30.4375


def _design(**fields: object):
    return size(parse_request(fields, CATALOG), CATALOG)


def _rail(gpus: int, **more: object):
    fields = {"gpus": gpus, "nic_speed": 400, "leaf": "SW-64x400", "fabric": "rail",
              "oversubscription": 1, **more}  # fmt: skip
    return _design(**fields)


def test_rates_derived_from_llama_3() -> None:
    # 7 NIC interruptions / (16,384 NICs x 54 days) x 30.4375 days = 2.408e-4 a NIC-month.
    assert pytest.approx(7 / (16384 * 54) * MONTH_DAYS) == failures.NIC_RATE_PER_MONTH
    assert pytest.approx(2.408e-4, rel=1e-3) == failures.NIC_RATE_PER_MONTH
    # 35 switch/cable interruptions over 1,024 ToRs + 16,384 + 16,384 + 2,341 links = 36,133
    # devices: 35 / (36,133 x 54) x 30.4375 = 5.460e-4 a device-month.
    assert pytest.approx(35 / (36133 * 54) * MONTH_DAYS) == failures.DEVICE_RATE_PER_MONTH
    assert pytest.approx(5.460e-4, rel=1e-3) == failures.DEVICE_RATE_PER_MONTH
    # All causes: 419 / (16,384 x 54) x 30.4375 = 0.014415 a GPU-month.
    assert pytest.approx(0.014415, rel=1e-3) == failures.ALL_CAUSES_PER_GPU_MONTH


def test_expected_interruptions_per_month_for_1024_gpus() -> None:
    report = failure_report(_rail(1024))
    counts = {(rate.component, rate.tier): rate.count for rate in report.rates}
    # 32 leaves, 16 spines; 128 servers x 8 rails = 1,024 NIC ports and server links; 32 leaves
    # x 32 uplinks = 1,024 leaf-spine links.
    assert counts == {
        ("nic", "server"): 1024,
        ("switch", "leaf"): 32,
        ("switch", "spine"): 16,
        ("link", "server-leaf"): 1024,
        ("link", "leaf-spine"): 1024,
    }
    # (32 + 16 + 1,024 + 1,024) x 5.460e-4 + 1,024 x 2.408e-4 = 1.1444 + 0.2466 = 1.391.
    assert report.network_per_month == pytest.approx(1.391, abs=1e-3)
    assert report.hours_between_network_failures == pytest.approx(730.5 / 1.391, rel=1e-3)
    assert report.all_causes_per_month == pytest.approx(1024 * 0.014415, rel=1e-3)  # 14.76


def test_switch_effects_match_the_graph_check() -> None:
    for design in (
        _rail(4096),  # three tiers: leaf, spine and core
        _rail(256, min_spines=1, servers_per_su=16),  # a single spine cuts servers off
        _design(gpus=64, nic_speed=400, rails=8, leaf="SW-64x400", fabric="tor"),
    ):
        worst = validate(design).planes[0].worst_switch_failure
        assert worst is not None
        mine = {effect.component: effect for effect in failure_effects(design)}[worst.role]
        assert mine.capacity_lost_gbps == worst.capacity_lost_gbps
        assert mine.servers_cut_off == worst.servers_isolated


def test_effects_on_a_three_tier_fabric() -> None:
    effects = {e.component: e for e in failure_effects(_rail(4096))}
    # 128 leaves, 4 pods of 32 spines, 64 cores; each leaf 32 down and 32 up at 400G.
    leaf = effects["leaf"]
    assert (leaf.servers_cut_off, leaf.servers_degraded) == (0, 32)  # each keeps 7 rails
    assert leaf.capacity_lost_gbps == (32 + 32) * 400
    link = effects["leaf-spine link"]
    assert link.share_lost == pytest.approx(1 / 32)
    spine = effects["spine"]
    # A spine: 32 leaves down, 32 core links up; a pod of 4 units x 32 servers loses 1/32.
    assert (spine.capacity_lost_gbps, spine.servers_degraded) == (64 * 400, 128)
    assert spine.share_lost == pytest.approx(1 / 32)
    core = effects["core"]
    # 64 cores for 32 spines a pod: groups of 2, so a spine's 32 core links are 16 to each
    # core of its group; a core meets 4 pods: 4 x 16 x 400G.
    assert core.capacity_lost_gbps == 4 * 16 * 400
    assert core.share_lost == pytest.approx(1 / 64)


def test_a_plane_failure_on_rail_planes() -> None:
    design = _design(gpus=1024, nic_speed=400, leaf="SW-64x800", fabric="rail-plane")
    plane = {e.component: e for e in failure_effects(design)}["plane"]
    # 8 rail planes of one switch each: a plane takes one of 8 ports from all 128 servers.
    assert (plane.servers_cut_off, plane.servers_degraded) == (0, 128)
    assert plane.capacity_lost_gbps == 128 * 400
    assert plane.share_lost == pytest.approx(1 / 8)


def test_a_single_tor_leaf_cuts_its_servers_off() -> None:
    design = _design(gpus=64, nic_speed=400, rails=8, leaf="SW-64x400", fabric="tor")
    leaf = {e.component: e for e in failure_effects(design)}["leaf"]
    assert leaf.servers_cut_off == leaf.servers_degraded > 0


def test_spares_by_sku_with_prices() -> None:
    design = _rail(1024)
    prices = {
        "SW-64x400": Decimal("20000"),
        "EZ-AOC-400G-30M": Decimal("500"),
        "EZ-AOC-400G-5M": Decimal("300"),
        "EZ-AOC-400G-7M": Decimal("320"),
        "EZ-DAC-400G-3M": Decimal("100"),
    }
    lines, total = spares(design, prices)
    got = {line.sku: (line.installed, line.quantity) for line in lines}
    assert got == {
        "SW-64x400": (48, 1),  # 32 leaves + 16 spines, 2 %: ceil(0.96) = 1
        "EZ-AOC-400G-30M": (1024, 21),  # leaf-spine, 2 %: ceil(20.48)
        "EZ-AOC-400G-5M": (640, 13),  # ceil(12.8)
        "EZ-AOC-400G-7M": (128, 3),  # ceil(2.56)
        "EZ-DAC-400G-3M": (256, 6),  # ceil(5.12)
    }
    # 20,000 + 21 x 500 + 13 x 300 + 3 x 320 + 6 x 100 = 35,960.
    assert total == Decimal("35960")
    assert lines[0].category == "switch"


def test_spares_for_optics_and_generic_parts() -> None:
    design = _design(gpus=1024, nic_speed=400, leaf="64x400", fabric="rail",
                     oversubscription=1, media="smf")  # fmt: skip
    lines, total = spares(design, {}, SparesPolicy(transceiver=Decimal("0.05"), minimum=2))
    modules = [line for line in lines if line.category == "transceiver"]
    assert modules
    for line in modules:
        assert line.quantity == max(2, math.ceil(line.installed * 5 / 100))
    switch = next(line for line in lines if line.category == "switch")
    # An inline 64x400 spec has no SKU: a generic line, to be priced.
    assert (switch.sku, switch.catalog_gap, switch.unit_price) == ("", True, None)
    assert total == Decimal(0)  # nothing priced
    assert spares(design)[1] is None  # no price list at all


def test_report_to_json() -> None:
    data = failure_report(_rail(1024)).to_json()
    assert data["network_per_month"] == pytest.approx(1.391, abs=1e-3)
    assert data["policy"] == {"switch": "0.02", "transceiver": "0.03", "cable": "0.02",
                              "minimum": 1}  # fmt: skip


def _effects(**fields: object) -> dict[str, str]:
    design = size(parse_request(fields, CATALOG), CATALOG)
    return {e.component: str(e.effect) for e in failure_effects(design)}


def test_a_gpu_with_a_second_path_continues_at_less_bandwidth() -> None:
    # B300-class servers: 8 GPUs, 16 ports (two per GPU, twin planes). NVIDIA's reference: a
    # link or leaf failure leaves each GPU its other port, jobs continue at half bandwidth.
    twin = _effects(gpus=512, nic_speed=400, rails=16, fabric="rail")
    assert "continue with 50 % less bandwidth" in twin["server-leaf link"]
    assert "continue on the others" in twin["leaf"]
    # Dual-homed top of rack: two ports per server to a leaf pair, shared by its 8 GPUs.
    paired = _effects(gpus=256, nic_speed=100, rails=2, fabric="tor", dual_homing=True)
    assert "continue with 50 % less bandwidth" in paired["server-leaf link"]
    assert "continue on the others" in paired["leaf"]
    # One port per GPU on one rail leaf each: the rank behind a lost port stops its job.
    single = _effects(gpus=512, nic_speed=400, fabric="rail")
    assert "stops its job" in single["server-leaf link"]
    assert "jobs stop" in single["leaf"]
