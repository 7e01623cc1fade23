"""The alternatives a proposal shows beside the quoted design (issue 13, item 7): sized on the
catalog snapshot the design was sized with (never today's), priced with that snapshot's prices,
each labelled by what it optimises and with its cost difference per GPU against the quoted one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core import vocabulary
from engine.catalog import CatalogSnapshot
from engine.errors import DesignError
from engine.money import per_unit
from engine.request import RequestError, parse_request
from engine.result import DesignResult
from engine.sizing import size
from planner.i18n import localized_notes, translated
from planner.models import Design, SizingSnapshot
from planner.services import (
    DesignNotFeasible,
    DesignRequestInvalid,
    SizedDesign,
    catalog_prices,
    design_alternatives,
    design_catalog,
    sizing_snapshot_catalog,
)


@dataclass(frozen=True, kw_only=True)
class AlternativeRow:
    label: str  # what it optimises, in the reader's language
    fabric: str
    tiers: int
    switches: int
    leaf: str
    spine: str
    planes: int
    oversubscription: float | None
    power_w: int
    cost_per_gpu: Decimal | None
    delta_per_gpu: Decimal | None  # against the quoted design; None when either is unpriced
    partly_unpriced: bool
    notes: tuple[str, ...]


def proposal_catalog(*, pinned_sha256: str, design: Design | None) -> CatalogSnapshot | None:
    """The snapshot a quote pinned, else its design's; None when neither is known."""
    if pinned_sha256:
        snapshot = SizingSnapshot.objects.filter(sha256=pinned_sha256).first()
        if snapshot is not None:
            return sizing_snapshot_catalog(snapshot=snapshot)
    if design is not None and design.result is not None:
        return design_catalog(design=design)
    return None


# The engine's note that an alternative's cost leaves lines out (engine.notes): a note
# for the sales engineer, which a customer's copy leaves out with the figure it qualifies.
UNPRICED_NOTE = "%(lines)s lines have no price yet; the cost leaves them out."


def _notes(result: DesignResult, customer_copy: bool) -> tuple[str, ...]:
    if not customer_copy or not result.notes_text:
        return tuple(localized_notes(result))
    return tuple(translated(n) for n in result.notes_text if n.template != UNPRICED_NOTE)


def _labels(codes: Sequence[str], customer_copy: bool) -> str:
    """The option's labels in words; a customer's copy leaves out "lowest cost of the lines
    priced so far", which speaks of lines still to price (internal matter, as its figure)."""
    if customer_copy:
        codes = [code for code in codes if code != "lowest_cost_so_far"]
    return vocabulary.alternative_labels(codes)


def alternative_rows(
    *, request_data: Mapping[str, object], catalog: CatalogSnapshot, customer_copy: bool = False
) -> list[AlternativeRow]:
    """Up to three alternatives to the quoted request, on `catalog` and its prices. Empty when
    the request no longer sizes on it (nothing to compare with). `customer_copy`: for a document
    approved for the customer, which shows no figure that leaves unpriced lines out and no note
    about them."""
    prices = catalog_prices(catalog)
    try:
        quoted = size(parse_request(request_data, catalog), catalog, prices)
        options = design_alternatives(request_data=request_data, prices=prices, catalog=catalog)
    except (RequestError, DesignError, DesignRequestInvalid, DesignNotFeasible):
        return []
    base = per_unit(quoted.cost, quoted.gpus) if not quoted.unpriced_lines else None
    rows = []
    for option in options:
        design, result = option.design, option.value
        tiers = {tier.role: tier for tier in design.compute.tiers}
        cost = per_unit(design.cost, design.gpus_total)
        priced = cost is not None and not design.unpriced_lines
        if customer_copy and not priced:
            cost = None
        rows.append(
            AlternativeRow(
                label=_labels(design.labels or (design.label,), customer_copy),
                fabric=vocabulary.fabric_label(result.fabric),
                tiers=design.compute.shape.tiers,
                switches=result.switches_total,
                leaf=tiers["leaf"].switch,
                spine=tiers["spine"].switch if "spine" in tiers else "",
                planes=design.compute.shape.fabric_planes,
                oversubscription=tiers["leaf"].oversubscription,
                power_w=design.power_w,
                cost_per_gpu=cost,
                delta_per_gpu=cost - base if priced and base is not None and cost else None,
                partly_unpriced=design.unpriced_lines > 0 and not customer_copy,
                notes=_notes(result, customer_copy),
            )
        )
    return rows


def alternatives_to_json(options: Sequence[SizedDesign]) -> list[dict[str, Any]]:
    """The alternatives as the API and `size --alternatives --format json` give them: a list of
    designs, each with its label, cost per GPU and trade-offs in words, and the design itself
    through the one result codec."""
    rows = []
    for option in options:
        result = option.value
        cost = per_unit(result.cost, result.gpus)
        rows.append(
            {
                "label": result.label,
                "labels": list(result.labels or (result.label,)),
                "cost_per_gpu": str(cost) if cost is not None else None,
                "cost_estimated": result.cost_estimated,
                "unpriced_lines": result.unpriced_lines,
                "tradeoffs": list(localized_notes(result)),
                "design": option.result,
            }
        )
    return rows
