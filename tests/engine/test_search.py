"""The search over open choices (issue 13): uplink speeds, compute planes and an oversubscription
tolerance, with worked examples and properties over random requests."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.errors import DesignError
from engine.fabric import uplink_speeds
from engine.request import RequestError, parse_request
from engine.search import alternatives
from engine.sizing import size
from tests.engine.catalogs import CATALOG
from tests.engine.seed import seed_catalog_and_prices


def _switches(design: object) -> int:
    return sum(t.count for p in design.planes for t in p.tiers)  # type: ignore[attr-defined]


def _counts(design: object) -> dict[str, int]:
    return {t.role: t.count for t in design.compute.tiers}  # type: ignore[attr-defined]


def test_a_tolerance_keeps_2056_gpus_in_two_tiers() -> None:
    # Only 64-port switches (the spine fixed too: a bigger spine would be another way out).
    fields = {"gpus": 2056, "nic_speed": 400, "leaf": "64x400", "spine": "64x400",
              "fabric": "rail", "oversubscription": 1}  # fmt: skip
    strict = size(parse_request(fields, CATALOG), CATALOG)
    # 257 servers, one past k^2/2 = 2,048 GPUs: at 1:1 three tiers. 257 servers in units of 32
    # are 9 units (72 leaves) in 3 pods of 32 leaves (96 spines) and 64 cores: 232 switches.
    assert strict.compute.shape.tiers == 3
    assert _switches(strict) == 232
    tolerant = size(parse_request({**fields, "oversubscription_tolerance": 0.1}, CATALOG), CATALOG)
    # With 10 %: a leaf with 33 down and 31 up (33/31 = 1.0645:1 <= 1.1) takes 33 servers a
    # unit, so 257 servers fill 8 units (7 x 33 + 26) of 8 rail leaves = 64 leaves, which a
    # 64-port spine still reaches: two tiers, 64 x 31 uplinks / 64 ports = 31 spines: 95.
    assert tolerant.compute.shape.tiers == 2
    assert _counts(tolerant) == {"leaf": 64, "spine": 31}
    leaf = tolerant.compute.tier("leaf")
    assert leaf is not None
    assert (leaf.downlinks, leaf.uplinks) == (33, 31)
    assert leaf.oversubscription == pytest.approx(33 / 31, abs=1e-4)
    # The design says what it gave and what it saved: 232 - 95 = 137 switches.
    said = " ".join(str(note) for note in tolerant.notes)
    assert "within its tolerance" in said
    assert "137 fewer switches" in said


def test_no_tolerance_means_the_target_is_a_ceiling() -> None:
    request = parse_request(
        {"gpus": 2056, "nic_speed": 400, "leaf": "64x400", "oversubscription": 1}, CATALOG
    )
    assert request.oversubscription_tolerance == 0  # the default: 1:1 means 1:1
    for design in alternatives(request, CATALOG):
        assert all((t.oversubscription or 1) <= 1 for t in design.compute.tiers)


def test_sixteen_port_servers_get_two_planes_of_two_tiers() -> None:
    fields = {"gpus": 8192, "rails": 16, "nic_speed": 400, "leaf": "64x800", "fabric": "rail"}
    one = size(parse_request({**fields, "planes": 1}, CATALOG), CATALOG)
    # 1,024 servers x 16 ports = 16,384 endpoints; 64 x 800G leaves run as 128 x 400G, and two
    # tiers of them reach k^2/2 = 8,192: one fabric needs three tiers. Units of 64 servers:
    # 16 units x 16 rail leaves = 256 leaves, 256 spines, 128 cores = 640 switches.
    assert one.compute.shape.tiers == 3
    assert _switches(one) == 640
    # Two planes of 8 rails: each 8,192 endpoints, exactly k^2/2: 16 units x 8 leaves = 128
    # leaves and 128 x 64 uplinks / 128 ports = 64 spines a plane; 2 x 192 = 384 switches.
    two = size(parse_request(fields, CATALOG), CATALOG)  # planes left open: the cheaper
    assert two.request.planes == 2
    assert two.compute.shape.fabric_planes == 2
    assert two.compute.shape.tiers == 2
    assert _switches(two) == 384
    # Both carry every server port: 1,024 x 16 = 16,384 server links.
    for design in (one, two):
        links = sum(g.links for g in design.compute.links if g.a == "server")
        assert links == 16384
    said = " ".join(str(note) for note in two.notes)
    assert "2 identical planes of 8 rails" in said


def test_request_errors_name_the_field() -> None:
    base = {"gpus": 1024, "nic_speed": 400, "leaf": "64x400"}
    cases = {
        "oversubscription_tolerance": [{"oversubscription_tolerance": -0.1},
                                       {"oversubscription_tolerance": 1.5}],
        "planes": [{"planes": 3}, {"planes": 2, "fabric": "tor"}, {"planes": 0}],
        "uplink_speed": [{"uplink_speed": 300}, {"uplink_speed": 200}, {"uplink_speed": 800}],
    }  # fmt: skip
    for field, bads in cases.items():
        for bad in bads:
            with pytest.raises(RequestError) as caught:
                parse_request({**base, **bad}, CATALOG)
            assert field in caught.value.texts, (bad, caught.value.texts)


def test_a_set_uplink_speed_holds() -> None:
    # Both tiers' 400G QSFP-DD cages split in two: 200G links on 4 x 50G lanes at each end.
    fields = {"gpus": 512, "nic_speed": 200, "leaf": "64x400", "spine": "64x400"}
    design = size(parse_request({**fields, "uplink_speed": 200}, CATALOG), CATALOG)
    leaf = design.compute.tier("leaf")
    assert leaf is not None
    assert leaf.uplink_speed_gbps == 200
    assert leaf.uplink_breakout == "2x200G"  # a 400G cage split in two


_LEAVES = ["64x400", "32x400", "128x400", "64x800", "48x100", "32x100"]


@settings(max_examples=60, deadline=None)
@given(
    servers=st.integers(min_value=2, max_value=1200),
    leaf=st.sampled_from(_LEAVES),
    spine=st.sampled_from(_LEAVES),
    ratio=st.sampled_from([1, 2, 3]),
)
def test_the_uplink_speed_chosen_is_never_beaten(
    servers: int, leaf: str, spine: str, ratio: int
) -> None:
    # Issue 13, item 3: breakout only when it saves switches. Whatever speed the engine picks,
    # no other speed both tiers run gives fewer switches, or as few with fewer links.
    nic = int(leaf.split("x")[1])
    fields = {"gpus": servers * 8, "nic_speed": nic, "leaf": leaf, "spine": spine,
              "fabric": "rail", "oversubscription": ratio}  # fmt: skip
    try:
        chosen = size(parse_request(fields, CATALOG), CATALOG)
    except (RequestError, DesignError):
        assume(False)
        return
    shape = chosen.compute.shape
    assume(shape.tiers >= 2)
    request = chosen.request
    assert request.leaf is not None
    assert request.spine is not None
    key = (_switches(chosen), shape.leaves * shape.leaf_uplinks)
    for speed in uplink_speeds(request.leaf.model, request.spine.model, nic):
        try:
            other = size(parse_request({**fields, "uplink_speed": speed}, CATALOG), CATALOG)
        except (RequestError, DesignError):
            continue
        other_shape = other.compute.shape
        if other_shape.tiers != shape.tiers:
            assert _switches(other) >= key[0]
            continue
        assert (_switches(other), other_shape.leaves * other_shape.leaf_uplinks) >= key


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    servers=st.integers(min_value=2, max_value=800),
    leaf=st.sampled_from(["64x400", "128x400", "64x800", "32x100"]),
    ratio=st.sampled_from([1, 1.5, 2]),
    tolerance=st.sampled_from([0, 0.05, 0.1, 0.25]),
    rails=st.sampled_from([8, 16]),
)
def test_alternatives_keep_every_hard_constraint(
    servers: int, leaf: str, ratio: float, tolerance: float, rails: int
) -> None:
    # Issue 13, item 7: the switch and fabric the user fixed stay; no tier goes above the
    # stated ratio times (1 + tolerance); a set plane count stays.
    nic = int(leaf.split("x")[1])
    fields = {"gpus": servers * 8, "rails": rails, "nic_speed": nic, "leaf": leaf,
              "fabric": "rail", "oversubscription": ratio,
              "oversubscription_tolerance": tolerance}  # fmt: skip
    try:
        request = parse_request(fields, CATALOG)
        designs = alternatives(request, CATALOG)
    except (RequestError, DesignError):
        assume(False)
        return
    ceiling = ratio * (1 + tolerance) + 1e-6
    for design in designs:
        assert design.request.fabric == request.fabric
        assert design.request.leaf is not None
        assert request.leaf is not None
        assert design.request.leaf.model.label == request.leaf.model.label
        leaf_tier = design.compute.tiers[0]
        assert (leaf_tier.oversubscription or 1) <= ceiling
        assert design.request.planes in request.plane_choices
    assert designs[0].label == "lowest_cost"
    default = size(request, CATALOG)
    if request.open_choices:  # the default design is the lowest-cost alternative
        assert _switches(default) == _switches(designs[0])
    else:  # nothing open: the request as written, which the lowest-cost option never loses to
        assert _switches(designs[0]) <= _switches(default)


def test_partial_unit_built_for_growth_or_minimum_for_today() -> None:
    fields = {"gpus": 320, "nic_speed": 400, "leaf": "64x400", "fabric": "rail"}
    growth = size(parse_request(fields, CATALOG), CATALOG)
    today = size(parse_request({**fields, "build": "today"}, CATALOG), CATALOG)
    assert growth.request.build.value == "growth"  # the default, and it says so
    # 40 servers, units of 32 at 1:1. For growth: 32 + 8, 2 units x 8 rail leaves = 16 leaves,
    # every leaf 32 uplinks: 16 x 32 = 512 leaf-spine links on 512 / 64 = 8 spines.
    assert _counts(growth) == {"leaf": 16, "spine": 8}
    assert sum(g.links for g in growth.compute.links if g.a == "leaf") == 512
    codes = {w.code: w for w in growth.warnings}
    assert "24 more servers" in codes["partial_unit"].message  # 32 - 8
    # For today: 2 units of 20; each leaf 20 down and 20 up; 16 x 20 = 320 links; spines must
    # divide 20 and hold 320 / 64 = 5 of them: 5 spines, 21 switches, 192 fewer links.
    assert _counts(today) == {"leaf": 16, "spine": 5}
    assert sum(g.links for g in today.compute.links if g.a == "leaf") == 320
    assert "built_for_today" in {w.code for w in today.warnings}
    # The same non-blocking bisection today: 320 GPUs x 400G / 2.
    assert today.compute.bisection_gbps == growth.compute.bisection_gbps == 320 * 400 // 2
    # And no room to grow on today's spines: 5 x 64 ports all carry today's 320 uplinks.
    assert today.compute.growth.max_gpus_current_spines == 320


def test_build_today_and_a_set_unit_exclude_each_other() -> None:
    with pytest.raises(RequestError) as caught:
        parse_request(
            {"gpus": 320, "leaf": "64x400", "build": "today", "servers_per_su": 16}, CATALOG
        )
    assert "build" in caught.value.texts
    with pytest.raises(RequestError) as caught:
        parse_request({"gpus": 320, "leaf": "64x400", "build": "tomorrow"}, CATALOG)
    assert "build" in caught.value.texts


@settings(max_examples=40, deadline=None)
@given(
    servers=st.integers(min_value=2, max_value=1500),
    leaf=st.sampled_from(["64x400", "32x400", "128x400", "64x800"]),
    ratio=st.sampled_from([1, 2]),
)
def test_today_never_buys_more_than_growth(servers: int, leaf: str, ratio: int) -> None:
    # Found by this test: 85 servers in one even unit at 2:1 need 43 uplinks (a prime) and 43
    # spines; today now weighs the units built for growth too and keeps the cheaper.
    fields = {"gpus": servers * 8, "nic_speed": 400, "leaf": leaf, "fabric": "rail",
              "oversubscription": ratio}  # fmt: skip
    try:
        growth = size(parse_request(fields, CATALOG), CATALOG)
        today = size(parse_request({**fields, "build": "today"}, CATALOG), CATALOG)
    except (RequestError, DesignError):
        assume(False)
        return
    # Today is a ceiling on what to buy: never more switches, and at equal switches never more
    # links above the servers (fewer switches may take more, slower uplinks: 1,281 servers on
    # 64 x 800G leaves at 1:1 are 473 switches with 400G uplinks against 488 with 800G).
    assert _switches(today) <= _switches(growth)
    links = [sum(g.links for g in d.compute.links if g.a != "server") for d in (today, growth)]
    if _switches(today) == _switches(growth):
        assert links[0] <= links[1]
    # Every server keeps all its rails either way.
    for design in (today, growth):
        assert sum(g.links for g in design.compute.links if g.a == "server") == servers * 8


# --- Truthful labels (issue 26, item 3) over the seed catalog and its prices -----------------


SEED, SEED_PRICES = seed_catalog_and_prices()


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(
    servers=st.integers(1, 512),
    nic_speed=st.sampled_from([25, 100, 200, 400]),
    ratio=st.sampled_from([None, 1, 2, 3]),
    fabric=st.sampled_from([None, "rail", "tor"]),
)
def test_every_label_is_true_to_the_figures_shown(
    servers: int, nic_speed: int, ratio: int | None, fabric: str | None
) -> None:
    """On any request, each label sits on the option that is best by its own measure among
    the options offered; "lowest cost" never on an option with lines still to price; no
    management switch (most ports slower than the NICs) is offered as a compute leaf."""
    from tests.engine.test_outputs import assert_labels_true

    fields: dict[str, object] = {"gpus": servers * 8, "nic_speed": nic_speed}
    if ratio is not None:
        fields["oversubscription"] = ratio
    if fabric is not None:
        fields["fabric"] = fabric
    try:
        options = alternatives(parse_request(fields, SEED), SEED, SEED_PRICES)
    except (RequestError, DesignError):
        assume(False)
        return
    assert 1 <= len(options) <= 3
    assert len({id(o) for o in options}) == len(options)
    assert_labels_true(options)
    codes = [code for o in options for code in o.labels]
    assert len(codes) == len(set(codes))  # each label on one option only
    for option in options:
        leaf = option.compute.tiers[0]
        model = SEED.by_sku().get(leaf.switch)
        if model is not None:
            main = max(model.port_groups, key=lambda g: (g.count, g.speed_gbps))  # type: ignore[attr-defined]
            assert main.speed_gbps >= nic_speed, leaf.switch


def test_a_management_switch_is_never_a_25g_compute_leaf() -> None:
    # The case: MSN2201 (48 x 1G RJ45, 4 x 100G) was offered as a 25G compute leaf,
    # its four 100G ports broken out into 16 x 25G.
    options = alternatives(parse_request({"gpus": 64, "nic_speed": 25}, SEED), SEED, SEED_PRICES)
    assert all(o.compute.tiers[0].switch != "MSN2201-CB2F" for o in options)


def test_when_every_option_has_a_switch_to_find_the_cheapest_is_the_default() -> None:
    # 15,048 GPUs on dual-port 10G NICs, top of rack: no catalog switch builds it (the SN2410's
    # mixed SFP28 and QSFP28 ports cannot be a 25G core; the SN2700 runs no 10G), so every
    # option has an inline switch, estimated. One inline tier under 400G catalog spines broken
    # out to 10G needs thousands of spines; three inline tiers need a few hundred. How many
    # tiers are inline must not outrank what the option costs.
    from engine.search import _invented_switches, _sized_candidates

    request = parse_request(
        {"gpus": 15048, "gpus_per_server": 8, "nic": "NETI710-2CP", "fabric": "tor"}, SEED
    )
    options = _sized_candidates(request, SEED, SEED_PRICES)
    assert all(_invented_switches(option) for option in options)
    chosen = size(request, SEED, SEED_PRICES)
    cheapest = min(option.cost / option.gpus for option in options if option.cost is not None)
    assert chosen.cost is not None
    assert chosen.cost / chosen.gpus == cheapest
