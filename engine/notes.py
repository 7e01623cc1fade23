"""The notes that set a design beside the best one the search found (what a stated ratio or
choice costs, and what it saves)."""

from __future__ import annotations

from engine.design import (
    Design,
)
from engine.money import round_cents
from engine.text import Text, gettext_noop, text

RATIO_EPSILON = 1e-6  # achieved ratios are rounded floats; a target is met within this


def _notes(
    design: Design,
    best: Design,
    prices_given: bool,
    strict: Design | None,
    stated: float | None,
) -> tuple[Text, ...]:
    """The trade-offs of one alternative in words; `strict` is the best design that meets the
    `stated` leaf oversubscription without the request's tolerance."""
    notes = _shape_notes(design)
    notes += _tolerance_notes(design, prices_given, strict, stated)
    notes += _cost_notes(design, best, prices_given)
    compute = design.compute
    if compute.shape.tiers >= 2:
        notes.append(
            text(
                gettext_noop("Grows to %(gpus)s GPUs with these spines."),
                gpus=compute.growth.max_gpus_current_spines,
            )
        )
    return tuple(notes)


def _shape_notes(design: Design) -> list[Text]:
    """The fabric style, its tiers and switches, and the leaf ratio."""
    compute = design.compute
    notes: list[Text] = []
    style = {
        "rail": gettext_noop(
            "Rail-optimized, any-to-any: every GPU reaches every other through the fabric."
        ),
        "rail-plane": gettext_noop(
            "Rail planes: each rail has its own spines, so two tiers go further; cross-rail "
            "traffic must stay inside the server (NVLink)."
        ),
        "tor": gettext_noop(
            "Top-of-rack: simplest cabling, but traffic between rails crosses the spines."
        ),
    }[compute.style]
    notes.append(text(style))
    if compute.shape.fabric_planes > 1 and compute.style == "rail":
        notes.append(
            text(
                gettext_noop(
                    "%(planes)s identical planes of %(rails)s rails: each server's ports are "
                    "split over them, every GPU reaches every other in each plane, and a plane "
                    "stays two tiers where one large fabric would need three."
                ),
                planes=compute.shape.fabric_planes,
                rails=compute.shape.ports_per_server,
            )
        )
    leaf = compute.tiers[0]
    notes.append(
        text(
            gettext_noop(
                "%(tiers)s tier(s) of %(switch)s; %(switches)s switches, %(power)s W network power."
            ),
            tiers=len(compute.tiers),
            switch=leaf.switch,
            switches=sum(t.count for t in compute.tiers),
            power=design.power_w,
        )
    )
    over = leaf.oversubscription
    if over is not None and over > 1:
        notes.append(
            text(
                gettext_noop(
                    "Leaf oversubscription %(ratio)s:1: less cross-fabric bandwidth, fewer spines."
                ),
                ratio=float(over),
            )
        )
    return notes


def _tolerance_notes(
    design: Design, prices_given: bool, strict: Design | None, stated: float | None
) -> list[Text]:
    """What a ratio above the stated one, within the request's tolerance, buys."""
    notes: list[Text] = []
    compute = design.compute
    over = compute.tiers[0].oversubscription
    if (
        over is not None
        and stated is not None
        and over > stated + RATIO_EPSILON
        and strict is not None
        and strict is not design
    ):
        saved = _switch_count(strict) - _switch_count(design)
        notes.append(
            text(
                gettext_noop(
                    "%(ratio)s:1 is above the %(target)s:1 asked for but within its tolerance; "
                    "%(tiers)s tier(s) and %(saved)s fewer switches than the best design at "
                    "%(target)s:1."
                ),
                ratio=float(over),
                target=stated,
                tiers=compute.shape.tiers,
                saved=saved,
            )
        )
        if prices_given and design.cost is not None and strict.cost is not None:
            saving = strict.cost - design.cost
            notes.append(
                text(
                    gettext_noop("It saves %(amount)s against the design at %(target)s:1."),
                    amount=f"{saving:,.2f}",
                    target=stated,
                )
            )
    return notes


def _cost_notes(design: Design, best: Design, prices_given: bool) -> list[Text]:
    notes: list[Text] = []
    if prices_given and design.cost is not None and best.cost is not None and design is not best:
        delta = round_cents((design.cost - best.cost) / design.request.gpus)
        if delta > 0:
            notes.append(
                text(
                    gettext_noop("Costs %(amount)s more per GPU than the lowest-cost option."),
                    amount=f"{delta:,.2f}",
                )
            )
        elif delta < 0:  # cheaper only because parts are still to be priced
            notes.append(
                text(
                    gettext_noop(
                        "Shows %(amount)s less per GPU, but %(lines)s lines are still to be priced."
                    ),
                    amount=f"{-delta:,.2f}",
                    lines=design.unpriced_lines,
                )
            )
    if design.cost_estimated:
        notes.append(
            text(
                gettext_noop(
                    "Switch prices are estimates from catalog switches of the same capacity."
                )
            )
        )
    if design.unpriced_lines:
        notes.append(
            text(
                gettext_noop("%(lines)s lines have no price yet; the cost leaves them out."),
                lines=design.unpriced_lines,
            )
        )
    return notes


def _switch_count(design: Design) -> int:
    return sum(t.count for p in design.planes for t in p.tiers)
