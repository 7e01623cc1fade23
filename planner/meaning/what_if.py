"""What-if for the customer (issue 28, item 4): how the step's communication time and the
network's cost per GPU move with the NIC speed one step up or down, the leaf oversubscription
(1:1, 2:1, 3:1) and rail-only planes against a full fat tree, from the same model.

Each variant is the design's own request with one choice changed, sized again by the engine
against the design's catalog snapshot and priced with that snapshot's prices (as
`read_model` does for the alternatives): nothing is saved and the design's own figures never
move. Every row is hypothetical and labelled so.

Sizing is pure (request and catalog in, design out), so variants are kept per process, keyed
by the catalog's version and the variant request: the page's second view costs no sizing."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from django.utils.translation import gettext as _

from engine.bom import bom_cost
from engine.catalog import CatalogSnapshot
from engine.comms import estimate
from engine.design import Design as EngineDesign
from engine.errors import DesignError
from engine.job import Job, JobError
from engine.money import per_unit
from engine.request import RequestError
from engine.request.model import DesignRequest, Fabric, Oversubscription
from engine.sizing import size
from planner.i18n import translated

NIC_STEPS = (100, 200, 400, 800)  # the compute NIC speeds a step up or down moves between
RATIOS = (1.0, 2.0, 3.0)
_CACHE: OrderedDict[tuple[str, str, str], EngineDesign | str] = OrderedDict()
_CACHE_SIZE = 128


@dataclass(frozen=True)
class WhatIfRow:
    key: str  # "design", "nic_800", "leaf_2", "fabric_rail-plane"
    kind: str  # "design", "nic", "oversubscription", "fabric"
    label: str
    is_design: bool
    seconds: float | None  # NCCL's model; None: no job, or the job does not fit
    low_seconds: float | None
    high_seconds: float | None
    bound_seconds: float | None
    cost_per_gpu: Decimal | None
    gpus: int
    error: str  # why the variant could not be sized ("" when it was)

    def to_json(self) -> dict[str, object]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 6)

        return {
            "key": self.key, "kind": self.kind, "label": self.label,
            "is_design": self.is_design, "hypothetical": not self.is_design,
            "gpus": self.gpus, "seconds_per_step": rounded(self.seconds),
            "low_seconds_per_step": rounded(self.low_seconds),
            "high_seconds_per_step": rounded(self.high_seconds),
            "bound_seconds_per_step": rounded(self.bound_seconds),
            "cost_per_gpu": None if self.cost_per_gpu is None else str(self.cost_per_gpu),
            "error": self.error,
        }  # fmt: skip


def _leaf_ratio(design: EngineDesign) -> float:
    leaf = design.compute.tier("leaf")
    if leaf is None or design.compute.shape.tiers < 2:
        return 1.0
    return max(1.0, leaf.oversubscription or 1.0)


def _variants(design: EngineDesign) -> list[tuple[str, str, str, DesignRequest]]:
    """(key, kind, label, request) for each variant that differs from the design."""
    request = design.request
    out: list[tuple[str, str, str, DesignRequest]] = []
    speed = request.nic_speed_gbps
    if speed in NIC_STEPS:
        at = NIC_STEPS.index(speed)
        steps = NIC_STEPS[max(0, at - 1) : at] + NIC_STEPS[at + 1 : at + 2]
        for step in steps:
            # The switches were chosen for the old speed: the engine picks them again.
            changed = replace(request, nic_speed_gbps=step, nic=None, leaf=None, spine=None,
                              core=None, uplink_speed_gbps=None)  # fmt: skip
            out.append((f"nic_{step}", "nic", _("NIC %(speed)s Gb/s") % {"speed": step},
                        changed))  # fmt: skip
    current = _leaf_ratio(design)
    spine = request.oversubscription.spine if request.oversubscription else 1.0
    for ratio in RATIOS:
        if abs(ratio - current) < 0.25:  # a 1.9091:1 leaf is the 2:1 choice
            continue
        changed = replace(request, oversubscription=Oversubscription(leaf=ratio, spine=spine))
        out.append(
            (
                f"leaf_{ratio:g}",
                "oversubscription",
                _("Leaf oversubscription %(ratio)s:1") % {"ratio": f"{ratio:g}"},
                changed,
            )
        )
    style = design.compute.shape.style
    for fabric, label in (
        (Fabric.RAIL, _("Full fat tree (rails meet at the spines)")),
        (Fabric.RAIL_PLANE, _("Rail-only (rails never meet)")),
    ):
        if fabric.value != style:
            out.append((f"fabric_{fabric.value}", "fabric", label, replace(request, fabric=fabric)))
    return out


def _sized(
    request: DesignRequest,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal],
    prices_key: str,
) -> EngineDesign | str:
    # Sized with the prices the design was sized with, so an open choice (the switches of a
    # NIC-speed variant) goes the way the design's own did: to the lowest priced cost.
    key = (catalog.version, prices_key, repr(request))
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    found: EngineDesign | str
    try:
        found = size(request, catalog, prices)
    except DesignError as exc:
        found = translated(exc.text)
    except RequestError as exc:
        found = "; ".join(translated(message) for message in exc.texts.values())
    _CACHE[key] = found
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return found


def _row(
    key: str,
    kind: str,
    label: str,
    design: EngineDesign | str,
    *,
    job: Job | None,
    prices: Mapping[str, Decimal],
    catalog: CatalogSnapshot,
) -> WhatIfRow:
    if isinstance(design, str):
        return WhatIfRow(key=key, kind=kind, label=label, is_design=kind == "design",
                         seconds=None, low_seconds=None, high_seconds=None, bound_seconds=None,
                         cost_per_gpu=None, gpus=0, error=design)  # fmt: skip
    found = None
    if job is not None and job.gpus <= design.gpus:
        try:
            found = estimate(job, design)
        except JobError:
            found = None
    cost = bom_cost(design.planes, design.bom, catalog, prices)[0] if prices else None
    return WhatIfRow(
        key=key, kind=kind, label=label, is_design=kind == "design",
        seconds=found.seconds_per_step if found else None,
        low_seconds=found.low_seconds_per_step if found else None,
        high_seconds=found.high_seconds_per_step if found else None,
        bound_seconds=found.bound_seconds_per_step if found else None,
        cost_per_gpu=per_unit(cost, design.gpus_total), gpus=design.gpus, error="",
    )  # fmt: skip


def what_if(
    design: EngineDesign,
    *,
    job: Job | None,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal],
    label: str,
) -> tuple[WhatIfRow, ...]:
    """The design first, then each hypothetical variant; `label`: the design's own name."""
    rows = [_row("design", "design", label, design, job=job, prices=prices, catalog=catalog)]
    prices_key = str(hash(frozenset(prices.items())))
    for key, kind, text, request in _variants(design):
        sized = _sized(request, catalog, prices, prices_key)
        rows.append(_row(key, kind, text, sized, job=job, prices=prices, catalog=catalog))
    return tuple(rows)


__all__ = ["WhatIfRow", "what_if"]
