"""The search over the choices a request leaves open (fabric style, switch models, planes,
oversubscription): each candidate sized, the valid designs ranked by cost per GPU, and up to
MAX_ALTERNATIVES of them kept."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

from engine.catalog import CatalogSnapshot, Lifecycle
from engine.design import (
    Design,
)
from engine.errors import (
    DesignError,
    NoDesign,
)
from engine.fabric import (
    uplink_speeds,
)
from engine.failures import failure_effects
from engine.notes import RATIO_EPSILON, _notes, _switch_count
from engine.plane_models import _compute_models
from engine.ports import SwitchModel
from engine.priced import size_priced
from engine.request import (
    DesignRequest,
    Fabric,
    Oversubscription,
    SwitchChoice,
    resolve_switch,
)
from engine.text import Text, gettext_noop, text

MAX_ALTERNATIVES = 3
TOLERANCE_STEPS = 3  # whole-port ratios above a target that a tolerance lets the search try
SPINE_CHOICES = 2  # bigger spine models sized beside the leaf's own, when the spine is open


# ---------------------------------------------------------------------------------------------
# Alternatives


def _candidate_switches(request: DesignRequest, catalog: CatalogSnapshot) -> list[SwitchChoice]:
    if request.leaf is not None:
        return [request.leaf]
    return _switch_pool(request, catalog)


def _bandwidth_gbps(model: SwitchModel) -> int:
    return max(speed * model.logical_ports(speed) for speed in model.speeds_gbps())


def _candidate_spines(
    request: DesignRequest, leaf: SwitchChoice, pool: list[SwitchChoice]
) -> list[SwitchChoice | None]:
    """Spine models to size above `leaf`: the request's, else the leaf's own model (None) and up
    to SPINE_CHOICES bigger catalog or inline switches that share an uplink speed with it; a
    bigger spine reaches more leaves in two tiers (a 48 x 25G leaf under 32 x 100G spines)."""
    if request.spine is not None:
        return [request.spine]
    floor = _bandwidth_gbps(leaf.model)
    bigger = sorted(
        (
            choice
            for choice in pool
            if choice.model.label != leaf.model.label
            and _bandwidth_gbps(choice.model) >= floor
            and uplink_speeds(leaf.model, choice.model, request.nic_speed_gbps)
        ),
        key=lambda choice: (_bandwidth_gbps(choice.model), choice.model.label),
    )
    return [None, *bigger[:SPINE_CHOICES]]


def _switch_pool(request: DesignRequest, catalog: CatalogSnapshot) -> list[SwitchChoice]:
    """The catalog's switches that serve the NIC speed, and inline specs of the usual sizes."""
    nic = request.nic_speed_gbps
    texts = [spec.sku for spec in sorted(catalog.switches, key=lambda s: s.sku)]
    if nic >= 100:
        texts += [f"64x{max(nic, 400)}", "64x800"]
    elif nic >= 25:
        texts += ["48x25", "32x100", "64x100"]
    else:
        texts += ["48x25", "48x10"]
    out: list[SwitchChoice] = []
    seen: set[str] = set()
    for name in texts:
        model = resolve_switch(name, catalog)
        if isinstance(model, Text) or model.label in seen or model.logical_ports(nic) == 0:
            continue
        if _main_port_speed(model) < nic:
            # Most of its ports run slower than the NICs: a management switch (48 x 1G with four
            # 100G uplinks) would reach this speed on its uplinks only, and is no leaf for it.
            continue
        if model.lifecycle == Lifecycle.END_OF_SALE:
            continue
        seen.add(model.label)
        out.append(SwitchChoice(text=name, model=model))
    return out


def _main_port_speed(model: SwitchModel) -> int:
    """The speed of the switch's largest port group: what it is built to serve."""
    return max(model.port_groups, key=lambda group: (group.count, group.speed_gbps)).speed_gbps


def _ratio_choices(request: DesignRequest, leaf: SwitchModel) -> list[Oversubscription]:
    """Leaf oversubscription targets to size: the request's (and 1:1 beside a looser one), or
    1:1 and 2:1 when it states none; with a tolerance, also the whole-port ratios just above the
    target up to its ceiling (33 down and 31 up on a 64-port leaf is 1.065:1), because one of
    them may keep a fabric in two tiers."""
    stated = request.oversubscription
    if stated is None:
        return [Oversubscription(leaf=1.0), Oversubscription(leaf=2.0)]
    overs = [stated]
    if stated.leaf > 1:
        overs.append(replace(stated, leaf=1.0))
    tolerance = request.oversubscription_tolerance
    ports = leaf.logical_ports(request.nic_speed_gbps)
    if tolerance > 0 and ports > 1:
        ceiling = Fraction(str(stated.leaf)) * (1 + Fraction(str(tolerance)))
        target = Fraction(str(stated.leaf))
        near = [
            Fraction(down, ports - down)
            for down in range(ports // 2, ports)
            if target < Fraction(down, ports - down) <= ceiling
        ][:TOLERANCE_STEPS]
        overs.extend(replace(stated, leaf=float(ratio)) for ratio in near)
        if ceiling not in near and not near:
            overs.append(replace(stated, leaf=float(ceiling)))
    return overs


def _radix_speed(design: Design | None, request: DesignRequest) -> int | None:
    """The uplink speed that gives the spines their most ports, when the design chose another
    (and the request left the speed open)."""
    if design is None or request.uplink_speed_gbps is not None:
        return None
    shape = design.compute.shape
    if shape.tiers < 2:
        return None
    models = _compute_models(design.request)
    speeds = uplink_speeds(models.leaf, models.spine, shape.nic_speed_gbps)
    radix = max(speeds, key=lambda s: (models.spine.logical_ports(s), s))
    return radix if radix != shape.uplink_speed_gbps else None


def alternatives(
    request: DesignRequest,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal] | None = None,
) -> tuple[Design, ...]:
    """Up to three valid designs over the open choices, each labelled by what it optimises:
    the lowest cost per GPU (fully priced designs before those with lines still to be priced;
    without prices, fewest switches then least power), the most resilient (most spines, no
    single point of failure), the most growth room. An oversubscription the request states is a
    ceiling: alternatives meet it or do better (a 1:1 request is never offered 2:1)."""
    designs = _sized_candidates(request, catalog, prices)
    # Inline switch specs stand in where the catalog sells no switch that serves: never beside
    # a design built on switches it does sell, whose price is real, not estimated (issue 26).
    sold = [design for design in designs if not _invented_switches(design)]
    designs = sold or designs

    def rank(design: Design) -> tuple[object, ...]:
        # Cheapest per GPU with power as the tie-break (issue 13, item 1); without prices, the
        # fewest switches stand in for the cost. The rest only makes the order deterministic.
        cost = design.cost if design.cost is not None else Decimal(0)
        tiers = design.compute.tiers
        fabric = design.request.fabric or ""
        first, second = ((design.power_w, _switch_count(design)) if prices is not None
                         else (_switch_count(design), design.power_w))  # fmt: skip
        shape = design.compute.shape
        # Any switch to find ranks a design after those built on sold switches; how many tiers
        # it has to find does not (all three inline at 3,507 CNY a GPU lost to one inline tier
        # under 3,776 catalog spines at 265,932 CNY a GPU, 15,048 GPUs on 10G NICs).
        return (not _priced_in_full(design), bool(_invented_switches(design)), cost / design.gpus,
                first, second, fabric,
                tuple(t.switch for t in tiers), tiers[0].oversubscription or 0,
                shape.uplink_speed_gbps, shape.fabric_planes)  # fmt: skip

    def resilience(design: Design) -> tuple[object, ...]:
        # Fewest servers lost to the worst single failure, then fewest slowed by it: what the
        # label promises, measured (engine.failures), not inferred from spine counts.
        return (*_worst_failure(design), rank(design))

    def growth(design: Design) -> tuple[object, ...]:
        room = design.compute.growth
        return (-room.max_gpus_current_spines, -room.max_gpus_same_tiers, rank(design))

    designs.sort(key=rank)
    chosen = _labelled(designs, rank, resilience, growth, priced=prices is not None)
    best = chosen[0]
    stated = request.oversubscription.leaf if request.oversubscription else None
    strict = next(
        (d for d in designs if stated is None or _leaf_ratio(d) <= stated + RATIO_EPSILON), None
    )
    return tuple(
        replace(design, notes=_notes(design, best, prices is not None, strict, stated))
        for design in chosen
    )


def _sized_candidates(
    request: DesignRequest,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal] | None,
) -> list[Design]:
    """Every valid design over the open choices, in the order sized; NoDesign, with the first
    reason, when none is."""
    fabrics = [request.fabric] if request.fabric else [Fabric.RAIL, Fabric.RAIL_PLANE, Fabric.TOR]
    designs: list[Design] = []
    failures: list[Text] = []

    def attempt(candidate: DesignRequest) -> Design | None:
        try:
            design = size_priced(candidate, catalog, prices)
        except DesignError as exc:
            failures.append(exc.text)
            return None
        designs.append(design)
        return design

    pool = _switch_pool(request, catalog)
    for fabric in fabrics:
        for leaf in _candidate_switches(request, catalog):
            spines = _candidate_spines(request, leaf, pool)
            for spine, over in itertools.product(spines, _ratio_choices(request, leaf.model)):
                for planes in request.plane_choices if fabric == Fabric.RAIL else (None,):
                    candidate = replace(
                        request,
                        fabric=fabric,
                        leaf=leaf,
                        spine=spine,
                        oversubscription=over,
                        oversubscription_tolerance=0.0,
                        planes=planes,
                        dual_homing=request.dual_homing and fabric == Fabric.TOR,
                    )
                    design = attempt(candidate)
                    if spine is not None and design is not None and design.compute.shape.tiers < 2:
                        designs.pop()  # a one-tier design has no spine: the same as `None`'s
                        continue
                    radix = _radix_speed(design, request)
                    if design is not None and radix is not None:
                        # Fewer, faster uplinks won at equal switch counts; the broken-out
                        # speed reaches further with the same tiers, which "most growth" weighs.
                        attempt(replace(candidate, uplink_speed_gbps=radix))
    if not designs:
        reason = (
            failures[0]
            if failures
            else text(gettext_noop("no switch in the catalog serves this NIC speed"))
        )
        raise NoDesign(text(gettext_noop("No design fits the request: %(reason)s"), reason=reason))
    return designs


def _leaf_ratio(design: Design) -> float:
    return design.compute.tiers[0].oversubscription or 1.0


def _invented_switches(design: Design) -> int:
    """Switches that are inline specs, not catalog products: a design built on switches the
    catalog sells, with some optics still to price, is nearer a quote than one whose switches
    themselves have to be found (and whose estimated price hides that)."""
    return sum(1 for tier in design.compute.tiers if tier.sku is None)


def _priced_in_full(design: Design) -> bool:
    """Every line has a catalog price: no generic part to price by hand and no inline switch
    spec, whose price is only estimated from catalog switches of its class."""
    return design.unpriced_lines == 0 and not design.cost_estimated


def _worst_failure(design: Design) -> tuple[int, int]:
    """Servers cut off, then servers slowed, by the design's worst single failure."""
    effects = failure_effects(design)
    return max(((e.servers_cut_off, e.servers_degraded) for e in effects), default=(0, 0))


def _labelled(
    designs: list[Design],
    rank: Callable[[Design], tuple[object, ...]],
    resilience: Callable[[Design], tuple[object, ...]],
    growth: Callable[[Design], tuple[object, ...]],
    *,
    priced: bool,
) -> list[Design]:
    """Each label on the design that is best by its own measure among every design sized, so
    no label sits on an option another option beats at it. One design may win several (its
    `labels` lists them all; `label` is the first); the options are the distinct winners, the
    cheapest first. "lowest_cost" goes to a fully priced design only (`_priced_in_full`): when
    none is, the cheapest of what is priced is "lowest_cost_so_far" instead."""
    fully_priced = [d for d in designs if _priced_in_full(d)]
    cheapest = min(fully_priced or designs, key=rank)
    cost_label = "lowest_cost" if fully_priced or not priced else "lowest_cost_so_far"
    winners = (
        (cost_label, cheapest),
        ("most_resilient", min(designs, key=resilience)),
        ("most_growth", min(designs, key=growth)),
    )
    labels: dict[int, list[str]] = {}
    order: list[Design] = []
    for label, design in winners:
        if id(design) not in labels:
            labels[id(design)] = []
            order.append(design)
        labels[id(design)].append(label)
    return [
        replace(design, label=labels[id(design)][0], labels=tuple(labels[id(design)]))
        for design in order[:MAX_ALTERNATIVES]
    ]
