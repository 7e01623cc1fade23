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
    tiers, switches = design.compute.shape.tiers, _switch_count(design)
    cost = design.cost
    out: list[DesignWarning] = []

    def better(other: Design) -> bool:
        if other.compute.shape.tiers < tiers:
            return True
        other_cost = other.cost
        return cost is not None and other_cost is not None and other_cost < cost * (1 - HINT_SAVING)

    def figures(other: Design) -> dict[str, object]:
        return {
            "tiers": tiers, "switches": switches, "other_tiers": other.compute.shape.tiers,
            "other_switches": _switch_count(other),
        }  # fmt: skip

    def costs(other: Design) -> Text:
        """Both costs, when both are known in full: a figure leaving lines out compares
        nothing."""
        if cost is None or other.cost is None or design.unpriced_lines or other.unpriced_lines:
            return text(gettext_noop("(costs not comparable: lines still to be priced)"))
        return text(
            gettext_noop("(%(other_cost)s instead of %(cost)s before tax)"),
            other_cost=f"{other.cost:,.0f}",
            cost=f"{cost:,.0f}",
        )

    leaf_ratio = design.compute.tiers[0].oversubscription or 1.0
    if request.oversubscription is not None and not request.oversubscription_tolerance:
        try:
            looser = size(
                replace(request, oversubscription_tolerance=HINT_TOLERANCE), catalog, prices
            )
        except DesignError:
            looser = None
        if looser is not None and better(looser):
            out.append(
                DesignWarning(
                    code="size_hint_ratio",
                    message_text=text(
                        gettext_noop(
                            "At %(ratio)s:1 instead of %(asked)s:1 this fabric needs "
                            "%(other_tiers)s tiers and %(other_switches)s switches instead of "
                            "%(tiers)s and %(switches)s %(costs)s."
                        ),
                        costs=costs(looser),
                        ratio=round(looser.compute.tiers[0].oversubscription or 1.0, 4),
                        asked=round(leaf_ratio, 4),
                        **figures(looser),
                    ),
                    action_text=text(
                        gettext_noop(
                            "Allow a 10 %% oversubscription tolerance if the workload can take it."
                        )
                    ),
                )
            )
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
        if better(smaller):
            out.append(
                DesignWarning(
                    code="size_hint_gpus",
                    message_text=text(
                        gettext_noop(
                            "With %(gpus)s GPUs instead of %(asked)s this fabric needs "
                            "%(other_tiers)s tiers and %(other_switches)s switches instead of "
                            "%(tiers)s and %(switches)s %(costs)s."
                        ),
                        costs=costs(smaller),
                        gpus=fewer,
                        asked=request.gpus,
                        **figures(smaller),
                    ),
                    action_text=text(
                        gettext_noop("Consider the smaller cluster, or plan the third tier.")
                    ),
                )
            )
            break
    return tuple(out)
