"""Growth without recabling (issue 17, item 3): the steps to the design's limit, what each buys,
which cables move, and the cost per added GPU."""

from __future__ import annotations

from decimal import Decimal

from engine.growth_steps import growth_steps
from engine.request import parse_request
from engine.sizing import size
from tests.engine.catalogs import CATALOG

PRICES = {
    "SW-64x400": Decimal("20000"),
    "EZ-AOC-400G-5M": Decimal("300"),
    "EZ-AOC-400G-7M": Decimal("320"),
    "EZ-AOC-400G-20M": Decimal("450"),
    "EZ-AOC-400G-30M": Decimal("500"),
    "EZ-DAC-400G-3M": Decimal("100"),
}


def _rail(gpus: int, **more: object):
    fields = {"gpus": gpus, "nic_speed": 400, "leaf": "SW-64x400", "fabric": "rail",
              "oversubscription": 1, **more}  # fmt: skip
    return size(parse_request(fields, CATALOG), CATALOG, PRICES)


def _parts(step) -> dict[str, int]:
    return {part.sku: part.quantity for part in step.parts}


def test_fill_the_unit_then_add_spines() -> None:
    plan = growth_steps(_rail(1000), CATALOG, PRICES)
    # 125 servers in units of 32: 3 full units and one of 29. 32 leaves x 32 uplinks over 16
    # spines (2 links to each): the spines' 64 ports reach 32 leaves = 4 units = 1,024 GPUs;
    # with one link to each of 32 spines, 64 leaves = 2,048 GPUs.
    assert (plan.gpus_today, plan.gpus_current_top_tier, plan.gpus_same_tiers) == (1000, 1024, 2048)
    fill, spines = plan.steps
    assert (fill.kind, fill.gpus_before, fill.gpus_after, fill.cables_moved) == (
        "fill_unit", 1000, 1024, 0,
    )  # fmt: skip
    # 3 servers x 8 rails = 24 server links, 5 m AOCs at 300: 7,200, 300 per added GPU.
    assert _parts(fill) == {"EZ-AOC-400G-5M": 24}
    assert (fill.cost, fill.cost_per_added_gpu) == (Decimal("7200"), Decimal("300.00"))
    # 16 more spines at 20,000 = 320,000 for 1,024 more GPUs: 312.50 each. Each of the 32
    # leaves keeps one link on each old spine and moves 32 - 16 = 16: 512 cables move.
    assert spines.kind == "add_spines"
    assert _parts(spines) == {"SW-64x400": 16}
    assert (spines.cables_moved, spines.cost_per_added_gpu) == (512, Decimal("312.50"))
    assert plan.recabling


def test_add_a_unit_buys_its_leaves_and_links_and_moves_nothing() -> None:
    plan = growth_steps(_rail(768), CATALOG, PRICES)
    unit = plan.steps[0]
    # 3 units, 24 leaves x 32 uplinks = 768 spine ports: 16 spines (12 would not divide 32),
    # room for a 4th unit.
    assert (unit.kind, unit.gpus_before, unit.gpus_after, unit.repeat) == ("add_unit", 768, 1024, 1)
    parts = _parts(unit)
    assert parts["SW-64x400"] == 8  # one leaf per rail
    fabric = ("SW-64x400", "EZ-AOC-400G-30M")
    server_links = sum(q for sku, q in parts.items() if sku not in fabric)
    assert server_links == 32 * 8  # 32 servers x 8 rails
    assert parts["EZ-AOC-400G-30M"] == 8 * 32  # 8 leaves x 32 uplinks
    assert unit.cables_moved == 0
    # 8 x 20,000 + 256 x 500 + the server links as priced; per GPU over 256 GPUs.
    server_cost = sum(PRICES[sku] * q for sku, q in parts.items()
                      if sku not in ("SW-64x400", "EZ-AOC-400G-30M"))  # fmt: skip
    assert unit.cost == 8 * 20000 + 256 * 500 + server_cost
    assert unit.cost_per_added_gpu == (unit.cost / 256).quantize(Decimal("0.01"))


def test_three_tiers_add_units_then_pods_then_cores() -> None:
    plan = growth_steps(_rail(4608), CATALOG, PRICES)
    assert [step.kind for step in plan.steps] == ["add_unit", "add_pod", "add_cores"]
    unit, pod, cores = plan.steps
    # 144 servers = 18 units of 32 (256 GPUs); pods of 4 units: the 5th pod has 2, 2 to go.
    assert (unit.gpus_before, unit.gpus_after, unit.repeat) == (4608, 4864, 2)
    # Then whole pods of 1,024 GPUs up to the cores' ports: 5 pods x 32 uplinks of each spine
    # over 64-port cores -> groups of 4 cores, 8 links each: 64 / 8 = 8 pods = 8,192 GPUs.
    assert (pod.gpus_before, pod.gpus_after, pod.repeat) == (5120, 6144, 3)
    parts = _parts(pod)
    assert parts["SW-64x400"] == 32 + 32  # 4 units x 8 leaves, 32 spines
    # Server and leaf-spine links, one cable each: 1,024 + 1,024. Spine-core: pods stand one
    # after another from the cores at the front of the hall (engine.geometry), a pod of 128
    # servers fills 128 / 40 = 4 rows of 2.4 m, so the 6th pod's spines are 5 x 9.6 = 48 m
    # further back: 15 + 48 + 2 + 0.5 = 65.5 m, past AOC (30 m) and OM4 (50 m), so single-mode:
    # 1,024 links x (two DR4 modules + one fibre) = 3,072 parts.
    assert sum(parts.values()) - 64 == 1024 + 1024 + 3 * 1024
    assert parts["EZ-OSFP-400G-DR4"] == 2 * 1024
    assert all(step.cables_moved == 0 for step in (unit, pod))
    # Beyond 8 pods: groups of 32 cores (1,024 in all, 896 new); each of the 8 x 32 spines moves
    # 32 - 4 = 28 core links: 7,168 cables.
    assert _parts(cores) == {"SW-64x400": 896}
    assert (cores.gpus_before, cores.gpus_after, cores.cables_moved) == (8192, 65536, 7168)


def test_a_design_built_for_today_recables_first() -> None:
    plan = growth_steps(_rail(320, build="today"), CATALOG, PRICES)
    rebuild = plan.steps[0]
    # Today: 2 units of 20 servers, 20 uplinks a leaf over 5 spines. For growth: 32 + 8, 32
    # uplinks over 8 spines. Servers 20-31 change unit: 12 x 8 = 96 links; and the 16 leaves'
    # 20 uplinks (320 links) are spread again.
    assert rebuild.kind == "rebuild_for_growth"
    assert rebuild.cables_moved == 96 + 320
    assert _parts(rebuild)["SW-64x400"] == 3  # 8 spines instead of 5
    grown = growth_steps(_rail(320), CATALOG, PRICES)
    assert [s.kind for s in grown.steps] == [s.kind for s in plan.steps[1:]]
    # Built for growth, nothing moves before the top tier is extended.
    assert all(step.cables_moved == 0 for step in grown.steps[:-1])


def test_one_switch_grows_on_its_free_ports() -> None:
    design = size(
        parse_request({"gpus": 64, "nic_speed": 400, "leaf": "SW-64x800", "fabric": "rail",
                       "oversubscription": 1}, CATALOG), CATALOG,
    )  # fmt: skip
    plan = growth_steps(design, CATALOG)
    (step,) = plan.steps
    # 8 servers x 8 ports on one 128 x 400G switch: 8 more servers fit, their links only.
    assert (step.kind, step.gpus_after, step.cables_moved, step.cost) == ("add_servers", 128, 0,
                                                                          None)  # fmt: skip
    assert plan.notes  # a second tier would recable


def test_a_full_design_has_no_step() -> None:
    design = size(
        # 800G uplinks stated (the catalog has no 800G optic; left open, 400G would be taken).
        parse_request({"gpus": 131072, "nic_speed": 400, "leaf": "SW-64x800", "fabric": "rail",
                       "oversubscription": 1, "uplink_speed": 800}, CATALOG), CATALOG,
    )  # fmt: skip
    plan = growth_steps(design, CATALOG)
    assert plan.steps == ()
    assert "limit of its tiers" in str(plan.notes[0])
    assert plan.to_json()["recabling"] is False
