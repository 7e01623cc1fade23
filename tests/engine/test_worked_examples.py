"""Worked examples from published reference designs and first principles (issue 3)."""

from __future__ import annotations

import pytest

from engine.errors import FabricTooLarge, MediaUnavailable
from engine.request import parse_request
from engine.sizing import size
from tests.engine.catalogs import CATALOG, NO_SWITCHES


def _size(**fields: object):
    return size(parse_request(fields, CATALOG), CATALOG)


def _counts(design) -> dict[str, int]:
    return {tier.role: tier.count for tier in design.compute.tiers}


def _links(design, a: str, b: str) -> int:
    return sum(g.links for g in design.compute.links if (g.a, g.b) == (a, b))


def test_dgx_superpod_one_su() -> None:
    design = _size(gpus=256, nic_speed=400, leaf="64x400", fabric="rail", oversubscription=1)
    # NVIDIA RA-11333, 1 SU: 32 servers x 8 x 400G on 64-port switches at 1:1.
    assert design.servers == 32  # 256 GPUs / 8 per server
    assert design.scalable_units == 1  # SU = k/2 = 32 servers
    assert _counts(design) == {"leaf": 8, "spine": 4}  # one leaf per rail; 8 x 32 up / 64 ports
    assert _links(design, "server", "leaf") == 256  # 32 servers x 8 rails
    assert _links(design, "leaf", "spine") == 256  # 8 leaves x 32 uplinks
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    assert (leaf.downlinks, leaf.uplinks) == (32, 32)  # k/2 down, k/2 up at 1:1
    assert leaf.oversubscription == 1.0
    # Each leaf spreads 32 uplinks over 4 spines: 8 links per spine, and 4 divides 32.
    assert design.compute.shape.leaf_spine_links == 8
    # Non-blocking: half of 256 x 400G crosses the bisection.
    assert design.compute.bisection_gbps == 256 * 400 // 2


def test_dgx_superpod_two_su() -> None:
    design = _size(gpus=512, nic_speed=400, leaf="64x400", fabric="rail", oversubscription=1)
    # NVIDIA RA-11333, 2 SU: 16 leaves + 8 spines.
    assert _counts(design) == {"leaf": 16, "spine": 8}
    assert _links(design, "server", "leaf") == 512
    assert _links(design, "leaf", "spine") == 512  # 16 leaves x 32 uplinks


def test_two_tier_limit_is_k_squared_over_two() -> None:
    design = _size(gpus=2048, nic_speed=400, leaf="64x400", fabric="rail")
    # k^2/2 = 64^2/2 = 2,048 endpoints: 64 leaves (each spine port meets one leaf), 32 spines.
    assert design.compute.shape.tiers == 2
    assert _counts(design) == {"leaf": 64, "spine": 32}
    assert design.compute.shape.leaf_spine_links == 1  # every spine port is used once
    assert design.compute.growth.max_gpus_same_tiers == 2048


def test_4096_gpus_need_a_third_tier() -> None:
    design = _size(gpus=4096, nic_speed=400, leaf="64x400", fabric="rail")
    shape = design.compute.shape
    # 128 leaves exceed a 64-port spine: pods of k/2 = 32 leaves (4 SUs), 32 spines per pod,
    # spines split 32 down / 32 up; 4 pods x 32 spines x 32 uplinks / 64 core ports = 64 cores.
    assert shape.tiers == 3
    assert shape.pods == 4
    assert _counts(design) == {"leaf": 128, "spine": 128, "core": 64}
    assert _links(design, "spine", "core") == 128 * 32
    # Three tiers of 64-port switches reach k^3/4 = 65,536 endpoints (Al-Fares et al. 2008).
    assert design.compute.growth.max_gpus_same_tiers == 64**3 // 4


def test_three_tier_limit_and_beyond() -> None:
    design = _size(gpus=65536, nic_speed=400, leaf="64x400", fabric="rail")
    # k^3/4 at k = 64: k pods, (k/2)^2 = 1,024 cores, k^2/2 = 2,048 leaves and spines.
    assert _counts(design) == {"leaf": 2048, "spine": 2048, "core": 1024}
    with pytest.raises(FabricTooLarge, match="pods"):
        _size(gpus=65536 + 256, nic_speed=400, leaf="64x400", fabric="rail")


def test_131072_gpus_on_64x800_broken_out_as_128x400() -> None:
    design = _size(gpus=131072, nic_speed=400, leaf="64x800", fabric="rail", uplink_speed=400)
    shape = design.compute.shape
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    # A 64 x 800G switch runs as 128 x 400G (media-and-fabric-facts, breakouts): k = 128.
    assert leaf.downlink_breakout == "2x400G"
    assert (leaf.downlinks, leaf.uplinks) == (64, 64)
    # Two tiers reach k^2/2 = 8,192; 131,072 needs three. SU = 64 servers, 256 SUs, pods of
    # k/2 = 64 leaves (8 SUs) -> 32 pods; 64 spines per pod; cores = 32 x 2,048 x 64 / 128.
    assert shape.tiers == 3
    assert design.scalable_units == 256
    assert shape.pods == 32
    assert _counts(design) == {"leaf": 2048, "spine": 2048, "core": 1024}
    assert design.compute.growth.max_gpus_same_tiers == 128**3 // 4  # 524,288
    # An 800G-to-2x400G splitter DAC carries two server links: cables < links.
    dac = [g for g in design.compute.links if g.media.value == "dac"]
    assert dac
    assert all(g.links_per_cable == 2 and g.cables * 2 == g.links for g in dac)


def test_131072_gpus_native_800g_uplinks_when_the_speed_is_open() -> None:
    radix = _size(gpus=131072, nic_speed=400, leaf="64x800", fabric="rail", uplink_speed=400)
    native = _size(gpus=131072, nic_speed=400, leaf="64x800", fabric="rail", uplink_speed=800)
    # Left open, the speed with fewer parts to price by hand wins (engine.priced): this test
    # catalog sells 400G optics and no 800G one, and the pods' long spine-core runs need a
    # stand-in trunk at either speed, so 400G (catalog modules throughout) is taken.
    open_ = _size(gpus=131072, nic_speed=400, leaf="64x800", fabric="rail")
    assert open_.compute.shape.uplink_speed_gbps == 400
    leaf = native.compute.tier("leaf")
    assert leaf is not None
    # Issue 13, item 3: at equal switch counts fewer, faster links win. Leaves keep 64 x 400G
    # down (32 cages) and send the same 25.6 Tb/s up as 32 x 800G (32 cages) instead of
    # 64 x 400G: half the leaf-spine links, the same 2,048 + 2,048 + 1,024 switches.
    assert (leaf.downlinks, leaf.uplinks, leaf.uplink_speed_gbps) == (64, 32, 800)
    assert _counts(native) == _counts(radix) == {"leaf": 2048, "spine": 2048, "core": 1024}
    assert _links(native, "leaf", "spine") == _links(radix, "leaf", "spine") // 2  # 65,536
    assert native.compute.bisection_gbps == radix.compute.bisection_gbps  # 131,072 x 400 / 2
    # What the 800G links give up is growth. A 64-port 800G spine takes 32 leaves down (4 rail
    # groups of 8) and 64-port cores reach 64 pods: 64 x 4 x 64 servers x 8 GPUs = 131,072,
    # full. As 128 x 400G: 8 groups a pod, 128 pods: 128 x 8 x 64 x 8 = 524,288.
    assert native.compute.growth.max_gpus_same_tiers == 131072
    assert radix.compute.growth.max_gpus_same_tiers == 524288


def test_native_uplinks_instead_of_breakout_at_equal_switch_counts() -> None:
    # Issue 13, item 3: 512 x 200G GPUs on 64 x 400G leaves and 64 x 800G spines. The leaf
    # takes 64 servers at 200G (32 cages as 2 x 200G) and at 1:1 sends 64 x 200G = 12.8 Tb/s
    # up: 32 x 400G on its other 32 cages, native, rather than 64 x 200G broken out.
    design = _size(gpus=512, nic_speed=200, leaf="64x400", spine="64x800", fabric="rail")
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    assert (leaf.downlinks, leaf.uplinks, leaf.uplink_speed_gbps) == (64, 32, 400)
    assert leaf.uplink_breakout == ""
    # 64 servers = 1 unit: 8 rail leaves; 8 x 32 x 400G = 256 links on 2 spines of 128 x 400G
    # (64 x 800G broken out 2 x 400G), not 512 x 200G.
    assert _counts(design) == {"leaf": 8, "spine": 2}
    assert _links(design, "leaf", "spine") == 256
    # Forcing 200G uplinks would join a 400G QSFP-DD cage split in two (4 x 50G lanes a link)
    # to an 800G OSFP cage split in four (2 x 100G lanes a link): no cable or module changes
    # lane rate on the way (ports-cages-and-plugs.md), so it is refused in those words.
    with pytest.raises(MediaUnavailable, match="no such cable or module is made"):
        _size(gpus=512, nic_speed=200, leaf="64x400", spine="64x800", fabric="rail",
              uplink_speed=200)  # fmt: skip


def test_neti710_64_gpu_pair_single_tier() -> None:
    design = _size(
        gpus=64, gpus_per_server=8, nic="NETI710-4CP", rails=4, leaf="48x25",
        fabric="tor", dual_homing=True,
    )  # fmt: skip
    # EZMAX brochure 4.1: 8 servers, one NETI710-4CP each, a leaf pair; 32 NIC ports fit.
    assert design.compute.shape.tiers == 1
    assert _counts(design) == {"leaf": 2}
    assert _links(design, "server", "leaf") == 32  # 8 servers x 4 ports, 2 to each switch
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    assert leaf.downlinks == 16
    # 10G SFP+ NICs run below the 25G SFP28 ports: a warning, not an error.
    codes = {w.code for w in design.warnings}
    assert "speed_mismatch" in codes
    nic = next(line for line in design.bom if line.category == "nic")
    assert (nic.sku, nic.quantity) == ("NETI710-4CP", 8)
    # The pair sits in the first rack; the 4 servers of the second rack (4 servers per rack by
    # default) reach it across the row, beyond the catalog's 3 m SFP+ DAC: 4 x 4 = 16 links on
    # 10G SR optics, one module per cage at each end (16 x 2 = 32), and 16 in-rack DACs.
    media = {g.media.value: 0 for g in design.compute.links}
    for group in design.compute.links:
        media[group.media.value] += group.links
    assert media == {"dac": 16, "mmf": 16}
    assert design.transceivers_total == 32
    module = next(line for line in design.bom if line.category == "transceiver")
    assert module.sku == "EZ-SFP-10G-SR"  # an SFP+ module fits the leaf's SFP28 cage


def test_oversubscription_three_to_one_leaf_counts() -> None:
    design = _size(gpus=1536, nic_speed=400, leaf="64x400", fabric="rail", oversubscription=3)
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    # 3:1 on 64 ports: 48 down, 16 up (48/16 = 3 exactly). SU = 48 servers; 192 servers = 4 SUs.
    assert (leaf.downlinks, leaf.uplinks) == (48, 16)
    assert design.scalable_units == 4
    # 32 leaves x 16 uplinks = 512 spine ports = 8 spines; 8 divides 16.
    assert _counts(design) == {"leaf": 32, "spine": 8}
    assert leaf.oversubscription == 3.0
    # The cut is set by leaf uplinks: 16 leaves x 16 x 400G.
    assert design.compute.bisection_gbps == 16 * 16 * 400


def test_oversubscription_not_exact_is_reported() -> None:
    design = _size(gpus=512, nic_speed=400, leaf="64x400", fabric="rail", oversubscription=2)
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    # 64 servers. The largest unit at 2:1 is d = 42 (u = 21): 2 units, 16 leaves, and 16 x 21 =
    # 336 uplinks need 336 / 64 -> 6 spines, which must divide 21: 7, so 23 switches. Units of
    # 32 (u = 16): 16 leaves, 16 x 16 / 64 = 4 spines dividing 16: 20 switches, the fewer.
    assert (leaf.downlinks, leaf.uplinks) == (32, 16)
    assert design.compute.tier("spine").count == 4  # type: ignore[union-attr]
    design = _size(gpus=512, nic_speed=400, leaf="64x400", fabric="rail", oversubscription=1.5)
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    # d = 38 with u = ceil(38 / 1.5) = 26 would need 16 x 26 / 64 -> 7 spines dividing 26: 13.
    # Units of 36 (u = 24, exactly 1.5:1): 16 x 24 / 64 = 6 spines, dividing 24.
    assert (leaf.downlinks, leaf.uplinks) == (36, 24)
    assert leaf.oversubscription == 1.5
    design = _size(gpus=512, nic_speed=400, leaf="64x400", fabric="rail", oversubscription=1.6)
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    assert leaf.oversubscription is not None
    assert leaf.oversubscription <= 1.6  # whole ports stay below the target, and say so
    if leaf.oversubscription != 1.6:
        assert "oversubscription_inexact" in {w.code for w in design.warnings}


def test_partial_su_is_built_whole() -> None:
    design = _size(gpus=320, nic_speed=400, leaf="64x400", fabric="rail")
    # 40 servers = 1 full SU (32) + 8: the second SU still gets its 8 leaves and all uplinks.
    assert design.scalable_units == 2
    assert _counts(design)["leaf"] == 16
    assert _links(design, "leaf", "spine") == 16 * 32
    assert design.compute.growth.free_server_slots == 24  # 32 - 8 servers of the partial SU


def test_tor_dual_homing_two_tier() -> None:
    design = _size(
        gpus=1024, gpus_per_server=8, rails=2, nic_speed=25, leaf="SW-48Y8C", fabric="tor",
        dual_homing=True, servers_per_rack=16, spine="32x100",
    )  # fmt: skip
    shape = design.compute.shape
    # 128 servers, 16 per rack -> 8 racks, each with a leaf pair (16 leaves). Each server sends
    # one 25G port to each leaf: 16 down per leaf; 16 x 25G / 100G = 4 uplinks at 1:1.
    assert shape.tiers == 2
    assert _counts(design)["leaf"] == 16
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    assert (leaf.downlinks, leaf.uplinks, leaf.uplink_speed_gbps) == (16, 4, 100)
    assert _links(design, "server", "leaf") == 256
    # 16 leaves x 4 uplinks = 64 ports on 32 x 100G spines: 2 spines, 2 links each; 2 divides 4.
    assert _counts(design)["spine"] == 2


def test_rail_plane_reaches_further_in_two_tiers() -> None:
    design = _size(gpus=16384, nic_speed=400, leaf="64x400", fabric="rail-plane")
    shape = design.compute.shape
    # Eight rail planes, each a two-tier k^2/2 = 2,048-endpoint fabric: 8 x 2,048 GPUs.
    assert shape.tiers == 2
    assert shape.fabric_planes == 8
    assert _counts(design) == {"leaf": 512, "spine": 256}


def test_inline_specs_work_without_switch_skus() -> None:
    request = parse_request({"gpus": 256, "leaf": "64x400"}, NO_SWITCHES)
    design = size(request, NO_SWITCHES)
    assert _counts(design) == {"leaf": 8, "spine": 4}
    switch = next(line for line in design.bom if line.category == "switch")
    # Not a catalog product: a generic line with no SKU, to be priced before the quote is sent.
    assert switch.sku == ""
    assert switch.catalog_gap
    assert switch.description_text is not None
    assert str(switch.description_text).startswith("Switch, 64 x 400G")


def test_single_server_single_switch() -> None:
    design = _size(gpus=8, nic_speed=400, leaf="64x400")
    # 8 ports fit one switch: no spine.
    assert _counts(design) == {"leaf": 1}
    assert design.compute.shape.tiers == 1
