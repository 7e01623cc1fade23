"""How a design grows from today's size to its limit, step by step, and what each step costs.

Each step's parts are the difference between the bill of materials of the design re-sized
before and after it, with its units (servers per unit), uplink speed, planes and, in two tiers,
its spine count held, so the figures carry the same media choices and cable lengths as the
design itself. The steps, in the order a customer meets them:

- fill the partial unit: a unit built for growth already has every leaf and uplink; the
  servers need only their own links;
- add a unit: its leaves, their server links and their uplinks to free spine ports;
- three tiers: add a pod (its units and spines, and the spines' links to free core ports);
- add spines (two tiers) or cores (three tiers) once the top tier's ports are used up: every
  leaf's uplinks (every spine's core links) are spread over more switches, so cables move; the
  design's `growth.max_gpus_same_tiers` is the end.

Cables never move before that last step, unless the design was built for today (`build =
today`): its leaves carry uplinks for today's servers only, and growing starts by spreading them
again. A step's `cables_moved` is what the grown design's cabling schedule re-lands, where the
two schedules differ (`engine.relanding` counts it from the port formulas both follow, one pod
and plane of each kind, without reading either), not the least a re-landing could do: the
installer ends on the grown design's documents (labels, NetBox, the as-built check), so those
are the moves made. `step_relanding` lists them, cable end by cable end, visiting every link:
seconds at 100,000 GPUs, so it is asked for on demand, never to show the plan."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from engine.catalog import CatalogSnapshot
from engine.design import Design
from engine.errors import DesignError
from engine.fabric import ceil_div
from engine.money import per_unit
from engine.relanding import Relanding, relanding, schedule_relanding
from engine.request import Build, DesignRequest
from engine.sizing import size
from engine.text import Text, gettext_noop, text

_CATEGORY_ORDER = {"switch": 0, "transceiver": 1, "cable": 2, "patch_panel": 3, "nic": 4}


@dataclass(frozen=True, kw_only=True)
class GrowthPart:
    sku: str  # empty for a generic stand-in
    description: str
    category: str
    quantity: int
    unit_price: Decimal | None
    total: Decimal | None

    def to_json(self) -> dict[str, object]:
        return {
            "sku": self.sku,
            "description": self.description,
            "category": self.category,
            "quantity": self.quantity,
            "unit_price": None if self.unit_price is None else str(self.unit_price),
            "total": None if self.total is None else str(self.total),
        }


@dataclass(frozen=True, kw_only=True)
class GrowthStep:
    kind: str  # rebuild_for_growth, add_servers, fill_unit, add_unit, add_pod, add_spines, ...
    gpus_before: int
    gpus_after: int
    repeat: int  # how many times this step can follow itself (each adds the same GPUs)
    parts: tuple[GrowthPart, ...]
    cables_moved: int
    cost: Decimal | None  # None without prices; lines without a price left out
    unpriced_lines: int
    description: Text

    @property
    def gpus_added(self) -> int:
        return self.gpus_after - self.gpus_before

    @property
    def cost_per_added_gpu(self) -> Decimal | None:
        return per_unit(self.cost, self.gpus_added)

    def to_json(self) -> dict[str, object]:
        per_gpu = self.cost_per_added_gpu
        return {
            "kind": self.kind,
            "gpus_before": self.gpus_before,
            "gpus_after": self.gpus_after,
            "repeat": self.repeat,
            "parts": [part.to_json() for part in self.parts],
            "cables_moved": self.cables_moved,
            "cost": None if self.cost is None else str(self.cost),
            "cost_per_added_gpu": None if per_gpu is None else str(per_gpu),
            "unpriced_lines": self.unpriced_lines,
            "description": self.description.as_dict(),
        }


@dataclass(frozen=True, kw_only=True)
class GrowthPlan:
    gpus_today: int
    gpus_current_top_tier: int  # reached without new spines (cores)
    gpus_same_tiers: int  # reached with new spines (cores), no new tier
    steps: tuple[GrowthStep, ...]
    notes: tuple[Text, ...] = ()

    @property
    def recabling(self) -> bool:
        return any(step.cables_moved for step in self.steps)

    def to_json(self) -> dict[str, object]:
        return {
            "gpus_today": self.gpus_today,
            "gpus_current_top_tier": self.gpus_current_top_tier,
            "gpus_same_tiers": self.gpus_same_tiers,
            "steps": [step.to_json() for step in self.steps],
            "recabling": self.recabling,
            "notes": [note.as_dict() for note in self.notes],
        }


def _bom_counts(design: Design) -> dict[tuple[str, str, str], int]:
    counts: dict[tuple[str, str, str], int] = {}
    for line in design.bom:
        key = (line.category, line.sku, line.sku or line.description)
        counts[key] = counts.get(key, 0) + line.quantity
    return counts


def _parts(
    counts: Mapping[tuple[str, str, str], int], prices: Mapping[str, Decimal] | None
) -> tuple[tuple[GrowthPart, ...], Decimal | None, int]:
    parts = []
    cost: Decimal | None = Decimal(0) if prices is not None else None
    unpriced = 0
    for key in sorted(counts, key=lambda k: (_CATEGORY_ORDER.get(k[0], 9), k[1], k[2])):
        quantity = counts[key]
        if quantity <= 0:
            continue
        category, sku, description = key
        price = prices.get(sku) if prices is not None and sku else None
        total = price * quantity if price is not None else None
        if cost is not None:
            if total is None:
                unpriced += 1
            else:
                cost += total
        parts.append(
            GrowthPart(sku=sku, description=description, category=category, quantity=quantity,
                       unit_price=price, total=total)
        )  # fmt: skip
    if cost is not None and unpriced and len(parts) == unpriced:
        cost = None  # nothing priced: no figure rather than a zero
    return tuple(parts), cost, unpriced


def _diff(before: Design, after: Design) -> dict[tuple[str, str, str], int]:
    """What `after` has more of than `before`. Parts it has fewer of are left installed: the
    re-sized layout may cut some existing runs to other stock lengths, which nobody rebuys."""
    old = _bom_counts(before)
    return {key: count - old.get(key, 0) for key, count in _bom_counts(after).items()}


class _Sizer:
    """The design re-sized at other server counts with its shape held (memoised)."""

    def __init__(
        self, design: Design, catalog: CatalogSnapshot, prices: Mapping[str, Decimal] | None
    ) -> None:
        self.design = design
        self.catalog = catalog
        self.prices = prices
        # Today is the design as quoted: re-sized with its shape pinned it may differ (a top
        # tier sized for today's pods only), and the first step starts from what is installed.
        self.memo: dict[int, Design] = {design.servers: design}

    def request(self, servers: int) -> DesignRequest:
        design = self.design
        shape = design.compute.shape
        request = design.request
        pinned = replace(
            request,
            gpus=servers * design.gpus_per_server,
            build=Build.GROWTH,
            oversubscription_tolerance=0.0,
            uplink_speed_gbps=shape.uplink_speed_gbps or request.uplink_speed_gbps,
        )
        if shape.style == "rail":
            pinned = replace(pinned, planes=shape.fabric_planes)
        if shape.tiers >= 2 and shape.style in ("rail", "rail-plane"):
            pinned = replace(pinned, servers_per_su=shape.group_servers)
        if shape.tiers == 2:
            pinned = replace(pinned, min_spines=shape.spines_per_pod)
        return pinned

    def at(self, servers: int) -> Design:
        found = self.memo.get(servers)
        if found is None:
            found = self.memo[servers] = size(self.request(servers), self.catalog, self.prices)
        return found


def _step(
    sizer: _Sizer,
    kind: str,
    before: Design,
    after: Design,
    repeat: int,
    description: Text,
    cables_moved: int | None = None,
    moving: Text | None = None,
) -> GrowthStep:
    """A step from `before` to `after`; the cables it moves are those the schedules differ in,
    unless the caller counted them (a rebuild). `description` says no cable moves; where the
    grown schedule re-lands some all the same (today's design sized its top tier for today
    only), `moving` says the step without that claim and the re-landing follows it."""
    parts, cost, unpriced = _parts(_diff(before, after), sizer.prices)
    if cables_moved is None:
        moves = relanding(before, after)
        cables_moved = moves.moved + moves.server_moved
        if cables_moved and moving is not None:
            description = moving
        if moves.moved and moving is not None:
            description = text(
                gettext_noop("%(step)s The grown design's cabling schedule re-lands "
                             "%(moved)s of today's %(cables)s switch-to-switch cables."),
                step=moving, moved=moves.moved, cables=moves.cables,
            )  # fmt: skip
        description = _with_servers(description, moves)
    return GrowthStep(
        kind=kind, gpus_before=before.gpus, gpus_after=after.gpus, repeat=repeat, parts=parts,
        cables_moved=cables_moved, cost=cost, unpriced_lines=unpriced, description=description,
    )  # fmt: skip


def _with_servers(description: Text, moves: Relanding) -> Text:
    """`description`, and the server cables the grown schedule moves when its units hold other
    numbers of servers than today's (a unit sized for an even spread of today's uplinks)."""
    if not moves.server_moved:
        return description
    return text(
        gettext_noop("%(step)s The grown design's units hold other numbers of servers: its "
                     "schedule also moves %(moved)s of today's %(cables)s server cables to "
                     "other leaf ports."),
        step=description, moved=moves.server_moved, cables=moves.server_cables,
    )  # fmt: skip


def _top_tier_step(sizer: _Sizer, base: Design, limit_servers: int) -> GrowthStep | None:
    """New spines (two tiers) or cores (three) for the tier's last growth: at the limit every
    spine (core) port meets one leaf (pod) with one link, so a leaf's u uplinks go one to each
    of u spines; a spine's core links one to each core of its group. The cables moved are
    those the grown design's schedule lands elsewhere (`engine.relanding`)."""
    design = sizer.design
    shape = base.compute.shape
    planes = shape.fabric_planes
    g = design.gpus_per_server
    full = design.compute.growth.max_gpus_same_tiers
    if shape.tiers == 2:
        role, now, needed = "spine", shape.spines_per_pod, shape.leaf_uplinks
        template = gettext_noop(
            "Add %(new)s spines (%(now)s to %(needed)s per plane): each leaf's %(links)s "
            "uplinks spread one to each spine, and the grown design's cabling schedule "
            "re-lands %(moved)s of today's %(cables)s leaf-to-spine cables on other spine ports; "
            "then add units as before up to %(gpus)s GPUs."
        )
        links = shape.leaf_uplinks
    elif shape.tiers == 3:
        role, now, needed = "core", shape.cores_per_group, shape.spine_uplinks
        template = gettext_noop(
            "Add %(new)s cores (%(now)s to %(needed)s per plane): each spine's %(links)s core "
            "links spread one to each core, and the grown design's cabling schedule re-lands "
            "%(moved)s of today's %(cables)s switch-to-switch cables on other core ports; then "
            "add pods as before up to %(gpus)s GPUs."
        )
        links = shape.spine_uplinks
    else:
        return None
    if needed <= now or full <= limit_servers * g:
        return None
    per_now = now if role == "spine" else now * shape.spines_per_pod
    per_needed = needed if role == "spine" else needed * shape.spines_per_pod
    new = (per_needed - per_now) * planes
    tier = base.compute.tier(role)
    assert tier is not None
    counts = {("switch", tier.sku or "", tier.sku or tier.description): new}
    parts, cost, unpriced = _parts(counts, sizer.prices)
    moves = relanding(sizer.at(limit_servers), sizer.at(full // g))
    return GrowthStep(
        kind="add_spines" if role == "spine" else "add_cores",
        gpus_before=limit_servers * g,
        gpus_after=full,
        repeat=1,
        parts=parts,
        cables_moved=moves.moved + moves.server_moved,
        cost=cost,
        unpriced_lines=unpriced,
        description=_with_servers(text(
            template, new=new, now=per_now, needed=per_needed, links=links, moved=moves.moved,
            cables=moves.cables, gpus=full,
        ), moves),
    )  # fmt: skip


def growth_steps(
    design: Design,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal] | None = None,
) -> GrowthPlan:
    """The steps from `design` to the limit of its tiers, each with what to buy."""
    room = design.compute.growth
    g = design.gpus_per_server
    sizer = _Sizer(design, catalog, prices)
    # Filled in place: when a later step cannot be sized, the steps before it still stand.
    steps: list[GrowthStep] = []
    notes: list[Text] = []
    limit = room.max_gpus_current_spines // g
    try:
        if design.compute.shape.tiers == 1:
            _one_tier_steps(sizer, design, steps, notes)
            return _plan(design, limit * g, room.max_gpus_same_tiers, steps, notes)
        base = design
        if design.request.build == Build.TODAY:
            rebuilt = _rebuild_for_growth(sizer, design, catalog, prices, steps)
            if rebuilt is not None:
                base = rebuilt
                sizer = _Sizer(rebuilt, catalog, prices)
                limit = rebuilt.compute.growth.max_gpus_current_spines // g
        _unit_and_pod_steps(sizer, base, design.servers, limit, g, steps)
        top = _top_tier_step(sizer, base, limit)
        if top is not None:
            steps.append(top)
        if not steps and limit * g >= sizer.design.compute.growth.max_gpus_same_tiers:
            notes.append(
                text(
                    gettext_noop(
                        "The design is at the limit of its tiers (%(gpus)s GPUs): growing needs "
                        "another tier or larger switches."
                    ),
                    gpus=limit * g,
                )
            )
    except DesignError as exc:
        notes.append(
            text(gettext_noop("Growth beyond this point could not be sized: %(reason)s"),
                 reason=exc.text)
        )  # fmt: skip
    return _plan(design, limit * g, sizer.design.compute.growth.max_gpus_same_tiers, steps, notes)


def _one_tier_steps(
    sizer: _Sizer, design: Design, steps: list[GrowthStep], notes: list[Text]
) -> None:
    room = design.compute.growth
    if room.free_server_slots > 0:
        after = sizer.at(design.servers + room.free_server_slots)
        steps.append(
            _step(sizer, "add_servers", design, after, 1,
                  text(gettext_noop("Add up to %(servers)s servers on the switch's free "
                                    "ports: their own links only."),
                       servers=room.free_server_slots))
        )  # fmt: skip
    notes.append(
        text(
            gettext_noop(
                "Beyond one switch a second tier is needed: half of each leaf's server "
                "links move to make room for uplinks (recabling); size the larger "
                "design to see it."
            )
        )
    )


def _rebuild_for_growth(
    sizer: _Sizer,
    design: Design,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal] | None,
    steps: list[GrowthStep],
) -> Design | None:
    """The design built for growth, with the step that rebuilds today's units into it; None
    when it is today's design (no cable moves, the same units and uplinks)."""
    rebuilt = size(replace(design.request, build=Build.GROWTH), catalog, prices)
    moves = _rebuild_moves(design, rebuilt)
    if moves is None:
        return None
    steps.append(
        _step(sizer, "rebuild_for_growth", design, rebuilt, 1,
              text(gettext_noop("Built for today: before adding servers, rebuild the units "
                                "for growth: the rebuilt design's cabling schedule re-lands "
                                "%(moved)s of today's %(cables)s cables."),
                   moved=moves.moved, cables=moves.cables),
              cables_moved=moves.moved)
    )  # fmt: skip
    return rebuilt


def _rebuild_moves(design: Design, rebuilt: Design) -> Relanding | None:
    """The cables rebuilding today's design for growth moves; None when the rebuilt design is
    today's (no cable moves, the same units and uplinks): the plan then grows today's."""
    # The schedule is read from these alone (`cabling.iter_cabling`): when they agree it is
    # today's cable for cable, and large designs, whose units are full either way, are not
    # read in full on every page (millions of rows at 100,000 GPUs).
    same = (rebuilt.planes, rebuilt.servers, rebuilt.request.layout)
    if same == (design.planes, design.servers, design.request.layout):
        return None
    # Units change size, so servers move to other leaves: the whole schedule is compared.
    moves = schedule_relanding(design, rebuilt)
    old, new = design.compute.shape, rebuilt.compute.shape
    shape = ("group_servers", "leaf_uplinks", "spines_per_pod", "leaf_spine_links", "pods")
    if not moves.moved and all(getattr(old, f) == getattr(new, f) for f in shape):
        return None
    return moves


def _unit_and_pod_steps(
    sizer: _Sizer, base: Design, servers: int, limit: int, g: int, steps: list[GrowthStep]
) -> None:
    """Fill the last unit, then add units up to a full pod, then whole pods (or, on two tiers,
    whole units), as far as the current spines (or cores) reach."""
    shape = base.compute.shape
    unit = shape.group_servers
    full = ceil_div(servers, unit) * unit
    if full > servers and full <= limit:
        after = sizer.at(full)
        steps.append(
            _step(sizer, "fill_unit", base, after, 1,
                  text(gettext_noop("Fill the last unit with %(servers)s servers: its "
                                    "leaves and uplinks are already there."),
                       servers=full - servers),
                  moving=text(gettext_noop("Fill the last unit with %(servers)s servers."),
                              servers=full - servers))
        )  # fmt: skip
    per_pod = shape.groups_per_pod if shape.tiers == 3 else 0
    units = full // unit
    if per_pod and units % per_pod and full + unit <= limit:
        repeat = min(per_pod - units % per_pod, (limit - full) // unit)
        steps.append(_unit_step(sizer, full, unit, repeat))
        full = ceil_div(units, per_pod) * per_pod * unit
    if per_pod and full + per_pod * unit <= limit:
        pod = per_pod * unit
        before, after = sizer.at(full), sizer.at(full + pod)
        steps.append(
            _step(sizer, "add_pod", before, after, (limit - full) // pod,
                  text(gettext_noop("Add a pod of %(units)s units (%(gpus)s GPUs) with its "
                                    "%(spines)s spines, on free core ports; no cable "
                                    "moves."),
                       units=per_pod, gpus=pod * g, spines=shape.spines_per_pod),
                  moving=text(gettext_noop("Add a pod of %(units)s units (%(gpus)s GPUs) "
                                           "with its %(spines)s spines."),
                              units=per_pod, gpus=pod * g, spines=shape.spines_per_pod))
        )  # fmt: skip
    elif not per_pod and full + unit <= limit:
        steps.append(_unit_step(sizer, full, unit, (limit - full) // unit))


def _unit_step(sizer: _Sizer, full: int, unit: int, repeat: int) -> GrowthStep:
    before, after = sizer.at(full), sizer.at(full + unit)
    leaves = after.compute.shape.leaves_per_group * after.compute.shape.fabric_planes
    return _step(
        sizer, "add_unit", before, after, repeat,
        text(gettext_noop("Add a unit of %(servers)s servers: %(leaves)s leaves, their server "
                          "links and their uplinks to free spine ports; no cable moves."),
             servers=unit, leaves=leaves),
        moving=text(gettext_noop("Add a unit of %(servers)s servers: %(leaves)s leaves, "
                                 "their server links and their uplinks."),
                    servers=unit, leaves=leaves),
    )  # fmt: skip


def step_relanding(
    design: Design,
    catalog: CatalogSnapshot,
    step: GrowthStep,
    prices: Mapping[str, Decimal] | None = None,
) -> Relanding:
    """What an installer follows for `step` of `growth_steps(design, ...)`: each switch-to-switch
    cable the grown schedule lands elsewhere, its leaf (spine) end and its spine (core) end
    before and after; server cables on other leaf ports are counted, not listed. Every link
    is visited (seconds at 100,000 GPUs): for the installer's list, not to show the plan."""
    base = design
    if design.request.build == Build.TODAY:
        rebuilt = size(replace(design.request, build=Build.GROWTH), catalog, prices)
        if step.kind == "rebuild_for_growth":
            return relanding(design, rebuilt, with_moves=True)
        if _rebuild_moves(design, rebuilt) is not None:  # the plan grows the rebuilt design
            base = rebuilt
    sizer = _Sizer(base, catalog, prices)
    g = design.gpus_per_server
    before, after = sizer.at(step.gpus_before // g), sizer.at(step.gpus_after // g)
    return relanding(before, after, with_moves=True)


def _plan(
    design: Design, current: int, same: int, steps: list[GrowthStep], notes: list[Text]
) -> GrowthPlan:
    return GrowthPlan(
        gpus_today=design.gpus,
        gpus_current_top_tier=current,
        gpus_same_tiers=same,
        steps=tuple(steps),
        notes=tuple(notes),
    )


__all__ = ["GrowthPart", "GrowthPlan", "GrowthStep", "growth_steps", "step_relanding"]
