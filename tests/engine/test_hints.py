"""Honest hints (issue 26, item 6): where a slightly looser ratio or a few GPUs fewer save a
tier or more than a fifth of the cost, the design says so with both figures."""

from __future__ import annotations

from engine.request import parse_request
from engine.sizing import size
from tests.engine.catalogs import CATALOG

FIELDS = {"gpus": 2056, "nic_speed": 400, "leaf": "64x400", "spine": "64x400", "fabric": "rail",
          "oversubscription": 1}  # fmt: skip


def _hints(**fields: object) -> dict[str, str]:
    design = size(parse_request(fields, CATALOG), CATALOG)
    return {w.code: w.message for w in design.warnings if w.code.startswith("size_hint")}


def test_2056_gpus_are_told_of_the_two_tier_designs_next_to_them() -> None:
    hints = _hints(**FIELDS)
    # tests/engine/test_search.py derives both: at 1:1, 257 servers need three tiers and 232
    # switches; 33 down and 31 up (1.0645:1) keep two tiers with 64 leaves and 31 spines = 95;
    # 2,048 GPUs (256 servers, 8 units of 32) are 64 leaves and 32 spines = 96.
    assert hints["size_hint_ratio"].startswith(
        "At 1.0645:1 instead of 1:1 this fabric needs 2 tiers and 95 switches instead of 3 and 232"
    )
    assert hints["size_hint_gpus"].startswith(
        "With 2,048 GPUs instead of 2,056 this fabric needs 2 tiers and 96 switches instead of "
        "3 and 232"
    )
    # The inline switches carry no price here: no cost is compared.
    assert "costs not comparable" in hints["size_hint_gpus"]


def test_no_hint_where_nothing_nearby_is_better() -> None:
    assert _hints(**{**FIELDS, "gpus": 2048}) == {}  # two tiers already
    # A tolerance already given: the engine has weighed the looser ratios itself.
    tolerant = _hints(**{**FIELDS, "oversubscription_tolerance": 0.1})
    assert "size_hint_ratio" not in tolerant
