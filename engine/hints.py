"""Hints beside a design: a nearby request (a slightly looser ratio, a few GPUs fewer) that
saves a tier or more than a fifth of the cost, with both figures (issue 26, item 6)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal

from engine.catalog import CatalogSnapshot
from engine.design import Design, DesignWarning
from engine.errors import DesignError
from engine.notes import _switch_count
from engine.priced import size_priced
from engine.request import DesignRequest
from engine.sizing import size
from engine.text import Text, gettext_noop, text

# A hint is given when a nearby request saves a tier or more than this share of the cost.
HINT_SAVING = Decimal("0.2")
HINT_TOLERANCE = 0.1  # the ratio a hint may loosen to: 10 % above the one asked for
HINT_GPUS_KEPT = 0.97  # the fewest GPUs a hint may propose, as a share of those asked for


def size_hints(
    design: Design,
    request: DesignRequest,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal] | None,
) -> tuple[DesignWarning, ...]:
    """Where a slightly looser ratio, or a few GPUs fewer, saves a tier or more than a fifth of
    the cost, say so with both figures (2,056 GPUs at 1:1 take three tiers and 232 switches;
    at 1.0645:1, or with 2,048 GPUs, two tiers and 95). Three-tier fabrics only: that is where a
    step down is worth a sentence, and the extra sizings stay few."""
    if design.compute.shape.tiers < 3:
        return ()
    out: list[DesignWarning] = []
    if request.oversubscription is not None and not request.oversubscription_tolerance:
        ratio = _ratio_hint(design, request, catalog, prices)
        if ratio is not None:
            out.append(ratio)
    gpus = _gpus_hint(design, request, catalog, prices)
    if gpus is not None:
        out.append(gpus)
    return tuple(out)


def _better(design: Design, other: Design) -> bool:
    if other.compute.shape.tiers < design.compute.shape.tiers:
        return True
    cost, other_cost = design.cost, other.cost
    return cost is not None and other_cost is not None and other_cost < cost * (1 - HINT_SAVING)


def _figures(design: Design, other: Design) -> dict[str, object]:
    return {
        "tiers": design.compute.shape.tiers, "switches": _switch_count(design),
        "other_tiers": other.compute.shape.tiers, "other_switches": _switch_count(other),
    }  # fmt: skip


def _costs(design: Design, other: Design) -> Text:
    """Both costs, when both are known in full: a figure leaving lines out compares nothing."""
    cost = design.cost
    if cost is None or other.cost is None or design.unpriced_lines or other.unpriced_lines:
        return text(gettext_noop("(costs not comparable: lines still to be priced)"))
    return text(
        gettext_noop("(%(other_cost)s instead of %(cost)s before tax)"),
        other_cost=f"{other.cost:,.0f}",
        cost=f"{cost:,.0f}",
    )


def _ratio_hint(
    design: Design,
    request: DesignRequest,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal] | None,
) -> DesignWarning | None:
    """The same request with a 10 % tolerance on its ratio, when that is better."""
    try:
        looser = size(replace(request, oversubscription_tolerance=HINT_TOLERANCE), catalog, prices)
    except DesignError:
        return None
    if not _better(design, looser):
        return None
    leaf_ratio = design.compute.tiers[0].oversubscription or 1.0
    return DesignWarning(
        code="size_hint_ratio",
        message_text=text(
            gettext_noop(
                "At %(ratio)s:1 instead of %(asked)s:1 this fabric needs "
                "%(other_tiers)s tiers and %(other_switches)s switches instead of "
                "%(tiers)s and %(switches)s %(costs)s."
            ),
            costs=_costs(design, looser),
            ratio=round(looser.compute.tiers[0].oversubscription or 1.0, 4),
            asked=round(leaf_ratio, 4),
            **_figures(design, looser),
        ),
        # The share as a value: a template without values is shown as written, "%%" and all.
        action_text=text(
            gettext_noop(
                "Allow a %(tolerance)s oversubscription tolerance if the workload can take it."
            ),
            tolerance="10 %",
        ),
    )


def _gpus_hint(
    design: Design,
    request: DesignRequest,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal] | None,
) -> DesignWarning | None:
    """The largest round count of GPUs, a few fewer than asked for, that is better."""
    per_server = request.gpus_per_server
    # Each distinct smaller count once, largest first (rounding to 64 and to 128 often agree):
    # every candidate is a whole three-tier sizing.
    candidates = sorted(
        {
            request.gpus - request.gpus % max(step, per_server)
            for step in (64, 128, 256, 512, 1024, 2048)
        },
        reverse=True,
    )
    for fewer in candidates:
        if fewer == request.gpus or fewer < request.gpus * HINT_GPUS_KEPT or fewer % per_server:
            continue
        try:
            smaller = size_priced(replace(request, gpus=fewer), catalog, prices)
        except DesignError:
            continue
        if _better(design, smaller):
            return DesignWarning(
                code="size_hint_gpus",
                message_text=text(
                    gettext_noop(
                        "With %(gpus)s GPUs instead of %(asked)s this fabric needs "
                        "%(other_tiers)s tiers and %(other_switches)s switches instead of "
                        "%(tiers)s and %(switches)s %(costs)s."
                    ),
                    costs=_costs(design, smaller),
                    gpus=fewer,
                    asked=request.gpus,
                    **_figures(design, smaller),
                ),
                action_text=text(
                    gettext_noop("Consider the smaller cluster, or plan the third tier.")
                ),
            )
    return None
