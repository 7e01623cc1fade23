"""Spine counts chosen with the uplinks: no explosion when an uplink count is prime, more
oversubscription never costs more switches, and no tier far above what its ports require."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.errors import DesignError
from engine.fabric import uplinks_and_spines
from engine.request import RequestError, parse_request, resolve_switch
from engine.sizing import size
from engine.text import Text
from tests.engine.catalogs import CATALOG


def _switches(design: object) -> int:
    return sum(t.count for p in design.planes for t in p.tiers)  # type: ignore[attr-defined]


def test_a_prime_uplink_count_does_not_explode_the_spines() -> None:
    # 13 leaves needing 11 uplinks each on 64-port spines: 13 x 11 / 64 -> at least 3 spines,
    # and 11 is prime, so 11 spines. With a 12th uplink (the leaf has a free port), 12 spreads
    # over 3 spines (13 x 12 = 156 <= 3 x 64 = 192): 12 uplinks, 3 spines.
    assert uplinks_and_spines(11, 12, 13, 64) == (12, 3)
    # No free port to add: 11 stays on 11 spines.
    assert uplinks_and_spines(11, 11, 13, 64) == (11, 11)
    # At least two spines when asked for: 4 leaves x 32 uplinks fit one 128-port spine.
    assert uplinks_and_spines(32, 32, 4, 128) == (32, 1)
    assert uplinks_and_spines(32, 32, 4, 128, least=2) == (32, 2)


def test_two_to_one_is_not_dearer_than_one_to_one() -> None:
    # 256 GPUs, 4 a server (64 servers x 4 rails), 128-port 400G leaves. At 1:1 a unit of 64
    # servers: 4 leaves of 64 down + 64 up, 4 x 64 / 128 = 2 spines: 6 switches. At 2:1 the
    # largest unit (85 servers, 43 uplinks: 43 is prime) would need 43 spines; a unit of 64
    # with 32 uplinks needs 4 x 32 / 128 = 1, two for resilience: 6 switches, not 47.
    fields = {"gpus": 256, "gpus_per_server": 4, "rails": 4, "nic_speed": 400,
              "leaf": "128x400", "fabric": "rail"}  # fmt: skip
    one = size(parse_request({**fields, "oversubscription": 1}, CATALOG), CATALOG)
    two = size(parse_request({**fields, "oversubscription": 2}, CATALOG), CATALOG)
    assert _switches(one) == 6
    assert _switches(two) <= _switches(one)
    assert two.compute.tier("spine").count == 2  # type: ignore[union-attr]


def test_64_gpus_at_100g() -> None:
    # 8 servers x 8 rails of 100G on 32-port leaves. 1:1: units of 16 servers -> 1 unit of 8,
    # 8 rail leaves of 8 down; 16 down + 16 up per full unit, 8 x 16 / 32 = 4 spines: 12.
    # 2:1 must not need more (it was 8 + 11).
    fields = {"gpus": 64, "nic_speed": 100, "leaf": "32x100", "fabric": "rail"}
    one = size(parse_request({**fields, "oversubscription": 1}, CATALOG), CATALOG)
    two = size(parse_request({**fields, "oversubscription": 2}, CATALOG), CATALOG)
    assert _switches(one) == 8 + 4
    assert _switches(two) <= _switches(one)


@settings(max_examples=60, deadline=None)
@given(
    servers=st.integers(min_value=2, max_value=600),
    rails=st.sampled_from([1, 2, 4, 8]),
    leaf=st.sampled_from(["64x400", "32x400", "128x400", "48x100", "64x100"]),
    fabric=st.sampled_from(["rail", "tor"]),
)
def test_more_oversubscription_never_needs_more_switches(
    servers: int, rails: int, leaf: str, fabric: str
) -> None:
    speed = int(leaf.split("x")[1])
    counts = []
    for ratio in (1, 2, 3):
        fields = {"gpus": servers * 8, "rails": rails, "nic_speed": speed, "leaf": leaf,
                  "fabric": fabric, "oversubscription": ratio}  # fmt: skip
        try:
            design = size(parse_request(fields, CATALOG), CATALOG)
        except (RequestError, DesignError):
            assume(False)
            return
        counts.append(_switches(design))
        spine = design.compute.tier("spine")
        if spine is not None and design.compute.shape.tiers == 2:
            shape = design.compute.shape
            model = resolve_switch(leaf, CATALOG)  # the spine is the leaf's model here
            assert not isinstance(model, Text)
            # Spines the ports require: every leaf uplink needs a spine port.
            ports = model.logical_ports(shape.uplink_speed_gbps)
            needed = -(-shape.leaves * shape.leaf_uplinks // ports)
            assert spine.count <= 2 * max(needed, 2) + 1
    assert counts[0] >= counts[1] >= counts[2], counts


def test_single_points_of_failure_are_named() -> None:
    from engine.graph import validate

    # 4 servers x 8 x 400G = 32 ports on one 64-port switch: one tier, one switch. If it fails,
    # all 4 servers are cut off, and the design says so.
    design = size(parse_request({"gpus": 32, "nic_speed": 400, "leaf": "64x400"}, CATALOG),
                  CATALOG)  # fmt: skip
    assert design.compute.shape.tiers == 1
    assert "single_point_of_failure" in {w.code for w in design.warnings}
    report = validate(design).planes[0]
    assert report.worst_switch_failure is not None
    assert report.worst_switch_failure.servers_isolated == 4
    # Two tiers get two spines by default: no single spine to warn about.
    design = size(parse_request({"gpus": 256, "nic_speed": 400, "leaf": "64x400"}, CATALOG),
                  CATALOG)  # fmt: skip
    assert design.compute.tier("spine").count >= 2  # type: ignore[union-attr]
    assert "single_point_of_failure" not in {w.code for w in design.warnings}


def test_servers_per_su_sets_the_unit_and_bad_values_name_the_field() -> None:
    import pytest

    # 1,024 GPUs = 128 servers, rail, 64-port 400G leaves at 1:1 serve 32 servers a unit; asked
    # for 16: 128 / 16 = 8 units of 8 rail leaves = 64 leaves.
    request = parse_request(
        {"gpus": 1024, "nic_speed": 400, "leaf": "64x400", "servers_per_su": 16}, CATALOG
    )
    design = size(request, CATALOG)
    assert design.compute.shape.group_servers == 16
    assert design.compute.tier("leaf").count == 64  # type: ignore[union-attr]
    for bad in (0, 65):  # 0 is no unit; a 64-port leaf cannot take 65 servers' rail ports
        with pytest.raises(RequestError) as caught:
            parse_request(
                {"gpus": 1024, "nic_speed": 400, "leaf": "64x400", "servers_per_su": bad}, CATALOG
            )
        assert "servers_per_su" in caught.value.texts
    # 40 servers a unit fit 64 ports, but not at 1:1 (32 down, 32 up): a design error that says
    # which field asks too much.
    with pytest.raises(DesignError, match="servers_per_su"):
        size(parse_request({"gpus": 1024, "nic_speed": 400, "leaf": "64x400",
                            "servers_per_su": 40}, CATALOG), CATALOG)  # fmt: skip
