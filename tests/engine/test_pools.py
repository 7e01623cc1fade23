"""Heterogeneous pools (issue 28): one compute fabric serving several kinds of servers, each
pool's links sized and priced at its own NICs, every leaf of every pool on the same spines.
Counts from first principles beside each assertion; invariants over random requests. Pure
engine on the seed catalog with its CNY prices, no database."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cabling import iter_cabling
from engine.errors import DesignError, FabricTooLarge, SwitchMismatch
from engine.graph import validate
from engine.request import MAX_POOLS, RequestError, parse_request, to_dict
from engine.result import design_result, result_from_json, result_to_json
from engine.sizing import size
from tests.engine.seed import seed_catalog_and_prices

CATALOG, PRICES = seed_catalog_and_prices()
NIC_400G = "MCX75310AAS-NEAT"  # seed: ConnectX-7, 1 x 400G OSFP
NIC_200G = "MCX653105A-ECAT"  # seed: ConnectX-6 VPI, 1 x 200G QSFP56


def _size(data: dict[str, Any]) -> Any:
    return size(parse_request(data, CATALOG), CATALOG, PRICES)


def _tier(design: Any, plane: str, role: str) -> Any:
    found = design.plane(plane).tier(role)
    assert found is not None, (plane, role)
    return found


def _links(design: Any, plane: str, a: str, b: str) -> int:
    return sum(g.links for g in design.plane(plane).links if (g.a, g.b) == (a, b))


# --- a worked example -------------------------------------------------------------------------


def test_a_200g_pool_beside_400g_servers_shares_the_spines():
    """32 servers of 8 x 400G and 16 servers of 8 x 200G, rail-optimized at 1:1 on 64 x 400G
    leaves and spines (the inline spec: no port mode is tried behind the user's back).

    First pool: a 64-port leaf at 1:1 takes 32 servers on 32 downlinks and 32 uplinks, so one
    unit of 32 servers on 8 rail leaves. Second pool: with the same 32 x 400G uplinks, its
    leaf carries 32 x 400 / 200 = 64 servers' ports within 1:1, on the 32 cages left, each
    split 2 x 200G (64 links); 16 servers fill one partial unit on its 8 rail leaves. Every leaf
    reaches every spine: 16 leaves x 32 uplinks = 512 spine ports, over 64-port spines; the
    fewest spines that divide 32 uplinks and hold 16 x 32 / 64 = 8 each is 8, four links to
    each from every leaf. A full unit of the second pool (64 servers) needs 64 x 200 / 400 = 32
    uplinks too, so it keeps all four links per spine: 64 x 200 : 32 x 400 = 1:1 as designed,
    its 16 servers today leaving room for 48 more on the same cables up."""
    design = _size(
        {"gpus": 256, "nic_speed": 400, "fabric": "rail", "leaf": "64x400", "spine": "64x400",
         "pools": [{"gpus": 128, "nic_speed": 200}]}
    )  # fmt: skip
    assert _tier(design, "compute", "leaf").count == 8
    assert _tier(design, "pool2", "leaf").count == 8
    spine = _tier(design, "compute", "spine")
    assert spine.count == 8
    assert spine.downlinks == 16 * 4  # every leaf of both pools, 4 links each
    assert spine.ports_free == 0
    assert design.plane("pool2").tier("spine") is None  # the spines are the compute plane's
    assert _links(design, "compute", "server", "leaf") == 32 * 8
    assert _links(design, "pool2", "server", "leaf") == 16 * 8
    assert {g.speed_gbps for g in design.plane("pool2").links if g.a == "server"} == {200}
    assert _links(design, "compute", "leaf", "spine") == 8 * 32
    assert _links(design, "pool2", "leaf", "spine") == 8 * 32
    pool_leaf = _tier(design, "pool2", "leaf")
    assert (pool_leaf.downlinks, pool_leaf.uplinks) == (64, 32)
    assert pool_leaf.oversubscription == pytest.approx(1.0)
    switches = design_result(design).switches
    assert (switches["leaf"], switches["spine"], switches["pool2_leaf"]) == (8, 8, 8)


def test_every_leaf_gets_the_uplinks_the_most_demanding_pool_needs():
    """8 servers of 8 x 100G beside 32 servers of 8 x 400G, on 64 x 400G leaves and spines.

    Alone, the 100G servers' rail leaves would need 8 x 100 / 400 = 2 uplinks; the 400G pool's
    full leaf takes 32 servers on 32 ports with 32 x 400G up at 1:1. Every leaf reaching every
    spine with the same links, every leaf gets the 32 (the 100G leaves could then take 128
    servers each: 32 cages split 4 x 100G). 16 leaves x 32 uplinks = 512 spine ports: 8 spines
    of 64, four links from each leaf, every spine port used. Given the 100G pool's 2 uplinks
    instead, the 400G pool would have had 2 servers a leaf and 128 leaves."""
    design = _size(
        {"gpus": 64, "nic_speed": 100, "fabric": "rail", "leaf": "64x400", "spine": "64x400",
         "pools": [{"gpus": 256, "nic_speed": 400}]}
    )  # fmt: skip
    leaf, pool_leaf = _tier(design, "compute", "leaf"), _tier(design, "pool2", "leaf")
    assert (leaf.count, leaf.downlinks, leaf.uplinks) == (8, 128, 32)
    assert (pool_leaf.count, pool_leaf.downlinks, pool_leaf.uplinks) == (8, 32, 32)
    spine = _tier(design, "compute", "spine")
    assert (spine.count, spine.downlinks, spine.ports_free) == (8, 16 * 4, 0)


def test_rack_scale_trays_beside_8_gpu_servers():
    """Two GB200 NVL72 racks (36 trays of 4 GPUs, 4 x 400G NICs each) and 16 HGX servers of 8
    GPUs with ConnectX-7s, on SN5600 leaves (64 x 800G, each cage 2 x 400G). The trays' NICs
    are on the trays (no NIC line); the servers' 16 x 8 = 128 ConnectX-7s are on the bill, in
    the pool's plane, and each of the 128 ports has a server-to-leaf link at 400G."""
    design = _size(
        {"gpus": 144, "system": "gb200-nvl72", "leaf": "MSN5600-VS2FC",
         "pools": [{"gpus": 128, "gpus_per_server": 8, "rails": 8, "nic": NIC_400G}]}
    )  # fmt: skip
    nics = [line for line in design.bom if line.category == "nic"]
    assert [(line.sku, line.quantity, line.plane) for line in nics] == [(NIC_400G, 128, "pool2")]
    assert _links(design, "compute", "server", "leaf") == 36 * 4
    assert _links(design, "pool2", "server", "leaf") == 16 * 8
    assert design.scale_up is not None
    assert design.unpriced_lines == 4  # the rack-scale parts only (test_scale_up: to be priced)
    result = design_result(design)
    assert result.pools is not None
    assert (result.pools[0].servers, result.pools[0].racks) == (16, 4)  # 4 servers a rack


def test_a_pool_of_slower_nics_runs_its_cages_one_link_each_when_that_is_what_is_sold():
    """200G NICs on 400G QSFP-DD leaves: 2 x 200G from one cage needs a 2 x 200G-SR4 QSFP-DD
    optic no vendor in the catalog lists; one 200G QSFP56 module in each cage is sold. The pool
    runs its cages one link each and every part is priced."""
    design = _size(
        {"gpus": 256, "leaf": "DCS-7060DX5-64S",
         "pools": [{"gpus": 256, "nic": NIC_200G}]}
    )  # fmt: skip
    pool_leaf = _tier(design, "pool2", "leaf")
    assert pool_leaf.downlink_breakout == "400G port at 200G"
    assert not any(g.catalog_gap for g in design.plane("pool2").links)
    assert design.unpriced_lines == 0


# --- what is refused, by name ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("pools", "key"),
    [
        ({"gpus": 64}, "pools"),  # a mapping, not a list
        ([{"gpus": 60}], "pools.0.gpus"),  # not a whole number of 8-GPU servers
        ([{"gpus": 64, "nic_speed": 300}], "pools.0.nic_speed"),
        ([{"gpus": 64, "nic": "NO-SUCH-NIC"}], "pools.0.nic"),
        ([{"gpus": 64, "gpux": 1}], "pools.0.gpux"),
        ([{"gpus": 64}, {"gpus_per_server": 4}], "pools.1.gpus"),  # required
        ([{"gpus": 8}] * (MAX_POOLS + 1), "pools"),
    ],
)
def test_a_bad_pool_is_named(pools, key):
    with pytest.raises(RequestError) as raised:
        parse_request({"gpus": 64, "pools": pools}, CATALOG)
    assert key in raised.value.errors, raised.value.errors


def test_pools_need_one_fabric_plane():
    for extra in ({"fabric": "rail-plane", "rails_per_plane": 2}, {"planes": 2}):
        with pytest.raises(RequestError) as raised:
            parse_request({"gpus": 64, "pools": [{"gpus": 64}], **extra}, CATALOG)
        assert "pools" in raised.value.errors


def test_a_room_past_two_tiers_gives_each_pool_pods_of_its_own_under_the_same_cores():
    """32 servers and 64 servers of 8 x 400G on 32-port MSN4700s (32 x 400G) at 1:1.

    A leaf takes 16 servers (16 down, 16 up): the first pool's 2 units are 16 leaves, the
    pool's 4 units 32, and 48 leaves need more than a 32-port spine's ports: three tiers. A
    spine splits 16 down, 16 up, so a pod holds 16 / 8 = 2 units under 16 spines: the first
    pool one pod, the pool two of their own, each of their spines reaching core group j as the
    first pool's spine j does. 3 pods x 16 uplinks a spine over 32-port cores: 2 cores a group
    (the fewest dividing 16 with 3 x 16 / 2 = 24 ports each), 16 groups, 32 cores, 8 links
    from each spine to each core of its group."""
    design = _size(
        {"gpus": 256, "nic_speed": 400, "fabric": "rail", "leaf": "MSN4700-WS2FC",
         "pools": [{"gpus": 512}]}
    )  # fmt: skip
    assert design.compute.shape.tiers == 3
    counts = {(p.name, t.role): t.count for p in design.planes for t in p.tiers}
    assert counts == {
        ("compute", "leaf"): 16, ("compute", "spine"): 16, ("compute", "core"): 32,
        ("pool2", "leaf"): 32, ("pool2", "spine"): 32,
    }  # fmt: skip
    core = _tier(design, "compute", "core")
    assert core.downlinks == 3 * 8
    assert _links(design, "pool2", "spine", "core") == 2 * 16 * 16  # 2 pods x 16 spines x 16
    used, _reach = _ends(design)
    assert [key for key, count in used.items() if count > 1] == []
    assert validate(design).ok


def test_a_room_past_its_cores_is_refused_by_name():
    # 32-port cores reach 32 pods of 2 units of 16 servers: 1,024 servers in all (the message
    # of an oversized fabric); 512 + 1,024 servers need 48.
    with pytest.raises(FabricTooLarge, match="spines or cores"):
        _size({"gpus": 4096, "leaf": "MSN4700-WS2FC", "pools": [{"gpus": 8192}]})


def test_a_leaf_that_cannot_run_the_pools_speed_is_named():
    # An 800G OSFP cage has no 25G mode in the catalog.
    with pytest.raises(SwitchMismatch, match="pool2 leaf MSN5600-VS2FC cannot run 25G"):
        _size({"gpus": 64, "leaf": "MSN5600-VS2FC", "pools": [{"gpus": 64, "nic_speed": 25}]})


def test_the_request_keeps_its_pools_and_a_request_without_keeps_its_json():
    request = parse_request(
        {"gpus": 64, "pools": [{"gpus": 32, "gpus_per_server": 4, "rails": 2, "nic_speed": 100,
                                "servers_per_rack": 8}]},
        CATALOG,
    )  # fmt: skip
    again = parse_request(to_dict(request), CATALOG)
    assert again == request
    assert "pools" not in to_dict(parse_request({"gpus": 64}, CATALOG))
    plain = design_result(_size({"gpus": 64}))
    assert "pools" not in result_to_json(plain)


# --- invariants over random requests ----------------------------------------------------------

LEAVES = ("MSN5600-VS2FC", "DCS-7060DX5-64S", "MSN4700-WS2FC", "64x400")
pool_st = st.fixed_dictionaries(
    {
        "gpus": st.integers(1, 48).map(lambda n: 8 * n),
        "rails": st.sampled_from([1, 2, 4, 8]),
        "nic_speed": st.sampled_from([100, 200, 400]),
        "servers_per_rack": st.sampled_from([2, 4, 8]),
    }
)
request_st = st.fixed_dictionaries(
    {
        "gpus": st.integers(1, 96).map(lambda n: 8 * n),
        "nic_speed": st.sampled_from([200, 400]),
        "fabric": st.sampled_from(["rail", "tor"]),
        "leaf": st.sampled_from(LEAVES),
        "pools": st.lists(pool_st, min_size=1, max_size=2),
    },
    optional={"build": st.just("today"), "oob": st.just(True)},
)


def _ends(design: Any) -> tuple[Counter[tuple[str, str]], dict[str, set[str]]]:
    """Every (device, port) the cabling plan uses, and the devices of the tier above each
    device reaches (a leaf its spines, a spine its cores)."""
    used: Counter[tuple[str, str]] = Counter()
    reach: dict[str, set[str]] = defaultdict(set)
    for row in iter_cabling(design):
        for devices, ports in ((row.a_device, row.a_port), (row.b_device, row.b_port)):
            names, each = devices.split("+"), ports.split("+")
            for device, port in zip(names * len(each) if len(names) == 1 else names, each,
                                    strict=True):  # fmt: skip
                used[(device, port)] += 1
        upper = row.a_device.split("+")[0]
        if "spine" in upper or "core" in upper:
            for lower in row.b_device.split("+"):
                reach[lower].add(row.a_device)
    return used, reach


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request_st)
def test_every_pool_is_cabled_on_its_own_ports_to_every_spine(data):
    try:
        design = _size(data)
    except (RequestError, DesignError):
        return  # refused by name (the tests above); what sizes must hold below
    request = design.request
    used, reach = _ends(design)
    # No port of any device, a shared spine's or core's included, carries two links.
    assert [key for key, count in used.items() if count > 1] == []
    three = design.compute.shape.tiers == 3
    top = design.compute.tier("core" if three else "spine")
    assert top is not None
    tops = {d for d, _ in used if d.startswith("core" if three else "spine")}
    assert len(tops) == top.count
    for pool in request.pools:
        plane = design.plane(pool.name)
        assert plane is not None
        leaf = plane.tier("leaf")
        assert leaf is not None
        # Every port of every server of the pool has its link, at the pool's speed.
        assert _links(design, pool.name, "server", "leaf") == pool.servers * pool.rails
        assert {g.speed_gbps for g in plane.links if g.a == "server"} == {pool.nic_speed_gbps}
        # Within the asked ratio (1:1): downlink bandwidth never above the uplinks'.
        assert leaf.downlinks * pool.nic_speed_gbps <= leaf.uplinks * leaf.uplink_speed_gbps
        pool_leaves = [name for name in reach if name.startswith(f"{pool.name}-") and
                       "leaf" in name]  # fmt: skip
        assert len(pool_leaves) == leaf.count
        if not three:  # each of its leaves reaches every shared spine (a two-tier Clos)
            assert all(reach[name] == tops for name in pool_leaves)
        else:  # its pods' spines reach the shared cores, a core group each, like the first's
            spine = plane.tier("spine")
            assert spine is not None
            pool_spines = [n for n in reach if n.startswith(f"{pool.name}-") and "spine" in n]
            assert len(pool_spines) == spine.count
            groups = {frozenset(reach[name]) for name in pool_spines}
            assert all(len(group) == plane.shape.cores_per_group for group in groups)
            assert set().union(*groups) <= tops
    # The top tier's ports in use are the links up from below, all pools together, and a pool
    # starts on a fresh cage: fewer than one cage's lanes idle before each pool.
    below = "spine" if three else "leaf"
    uplinks = sum(p.tier(below).uplinks * p.tier(below).count for p in design.planes
                  if p.name == "compute" or p.name.startswith("pool"))  # fmt: skip
    breakout = top.downlink_breakout
    lanes = int(breakout.split("x")[0]) if "x" in breakout else 1
    idle = top.downlinks * top.count - uplinks
    assert 0 <= idle <= top.count * len(request.pools) * (lanes - 1)
    assert top.ports_free >= 0
    assert validate(design).ok
    result = design_result(design)
    assert result_from_json(json.loads(json.dumps(result_to_json(result)))) == result
