"""Sizing: from a `DesignRequest` and a catalog snapshot to a `Design`.

`size` computes one design; `alternatives` tries the choices a request leaves open (fabric style,
switch model, oversubscription) and ranks the valid designs by cost per GPU."""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

from engine.catalog import CatalogSnapshot, Lifecycle, NicSpec, Product
from engine.design import (
    BomLine,
    Design,
    DesignWarning,
    DownPart,
    LengthBin,
    LinkEnd,
    LinkGroup,
    PlaneDesign,
    PlaneShape,
    RunMedia,
    TierDesign,
)
from engine.errors import (
    DesignError,
    FabricTooLarge,
    MediaUnavailable,
    NoDesign,
    SwitchMismatch,
)
from engine.fabric import (
    PlaneInput,
    bisection_gbps,
    ceil_div,
    growth,
    plan_plane,
    uplink_speeds,
)
from engine.fit import check_design
from engine.media import (
    MediaChoice,
    MediaSelector,
    PortEnd,
    leaf_link_runs,
    leaf_pattern_key,
    pods_by_runs,
    rail_server_cages,
    rail_style,
    selector_for,
    spine_core_run_m,
    switch_end,
)
from engine.ports import SwitchModel, parse_inline
from engine.request import (
    Build,
    DesignRequest,
    Fabric,
    Layout,
    Oversubscription,
    PlaneRequest,
    SwitchChoice,
    resolve_switch,
)
from engine.text import Text, gettext_noop, text
from engine.wiring import fabric_cages, port_parts

__all__ = [
    "DesignError",
    "FabricTooLarge",
    "MediaUnavailable",
    "NoDesign",
    "SwitchMismatch",
    "alternatives",
    "size",
]

UNUSED_PORTS_WARN = 0.25  # warn when more than a quarter of a tier's ports are idle
MAX_ALTERNATIVES = 3
RATIO_EPSILON = 1e-6  # achieved ratios are rounded floats; a target is met within this
TOLERANCE_STEPS = 3  # whole-port ratios above a target that a tolerance lets the search try
SPINE_CHOICES = 2  # bigger spine models sized beside the leaf's own, when the spine is open


@dataclass(frozen=True, kw_only=True)
class _PlaneModels:
    name: str
    leaf: SwitchModel
    spine: SwitchModel
    core: SwitchModel
    nic: NicSpec | None
    leaf_target: Fraction
    spine_target: Fraction


@functools.lru_cache(maxsize=256)
def _fraction(value: float) -> Fraction:
    # Targets are a handful of ratios (1, 2, 3, 7...); parsing one is costly next to sizing.
    return Fraction(str(value)).limit_denominator(1000)


def _label(model: SwitchModel, speed: int, parts: tuple[DownPart, ...]) -> str:
    """How ports run at `speed`: "" when native, "2x400G" when broken out, and per port group
    when the links span several ("SFP28 + QSFP28 4x25G": 48 native cages, then breakouts)."""
    if len(parts) <= 1:
        if parts and parts[0].ways > 1:
            return f"{parts[0].ways}x{speed}G"
        return model.breakout_label(speed)
    return " + ".join(
        f"{part.form_factor.value if part.form_factor else '?'}"
        + (f" {part.ways}x{speed}G" if part.ways > 1 else "")
        for part in parts
    )


def _tier(
    *,
    plane: str,
    role: str,
    model: SwitchModel,
    count: int,
    down: int,
    down_gbps: int,
    up: int,
    up_gbps: int,
    target: float | None,
) -> TierDesign:
    down_parts, up_parts = port_parts(model, down_gbps, down, up_gbps if up else 0, up)
    used = sum(ceil_div(p.links, p.ways) for p in (*down_parts, *up_parts))
    achieved = round(down * down_gbps / (up * up_gbps), 4) if up else None
    return TierDesign(
        plane=plane,
        role=role,
        switch=model.label,
        sku=model.sku,
        description=model.description,
        count=count,
        physical_ports=model.physical_ports,
        ports_used=used,
        ports_free=model.physical_ports - used,
        downlinks=down,
        uplinks=up,
        downlink_speed_gbps=down_gbps,
        uplink_speed_gbps=up_gbps if up else 0,
        downlink_breakout=_label(model, down_gbps, down_parts),
        uplink_breakout=_label(model, up_gbps, up_parts) if up else "",
        oversubscription_target=target if up else None,
        oversubscription=achieved,
        power_w=model.power_w,
        rack_units=model.rack_units,
    )


def _tiers(shape: PlaneShape, models: _PlaneModels) -> tuple[TierDesign, ...]:
    planes = shape.fabric_planes
    nic = shape.nic_speed_gbps
    tiers = [
        _tier(
            plane=models.name,
            role="leaf",
            model=models.leaf,
            count=shape.leaves * planes,
            down=shape.leaf_downlinks,
            down_gbps=nic,
            up=shape.leaf_uplinks,
            up_gbps=shape.uplink_speed_gbps,
            target=float(models.leaf_target),
        )
    ]
    if shape.tiers >= 2:
        tiers.append(
            _tier(
                plane=models.name,
                role="spine",
                model=models.spine,
                count=shape.spines * planes,
                down=shape.spine_downlinks,
                down_gbps=shape.uplink_speed_gbps,
                up=shape.spine_uplinks,
                up_gbps=shape.core_speed_gbps,
                target=float(models.spine_target),
            )
        )
    if shape.tiers == 3:
        tiers.append(
            _tier(
                plane=models.name,
                role="core",
                model=models.core,
                count=shape.cores * planes,
                down=shape.pods * shape.spine_core_links,
                down_gbps=shape.core_speed_gbps,
                up=0,
                up_gbps=0,
                target=None,
            )
        )
    return tuple(tiers)


def _link_groups(
    plane: str,
    a: str,
    b: str,
    units: Mapping[tuple[float, int], int],
    speed: int,
    end_a: PortEnd,
    end_b: PortEnd,
    selector: MediaSelector,
    shared: bool,
    lower_links: int = 1,
    lower_by_run: Mapping[float, int] | None = None,
) -> list[tuple[LinkGroup, tuple[float, ...]]]:
    """Link groups with the computed runs each one carries. `units` counts the upper tier's
    cages (`end_a`, the fat end of a breakout) by (run, links used in the cage); `end_b` is the
    lower tier's cage. The group reports its ends the other way round: `a` is the lower tier."""
    link = f"{plane} {a}-{b}"
    # Runs that round up to the same stock parts form one group.
    merged: dict[tuple[object, ...], tuple[MediaChoice, list[int], dict[float, int]]] = {}
    for length, lanes in sorted(units):
        cages = units[(length, lanes)]
        if cages == 0:
            continue
        choice = selector.choose(link, speed, length, end_a, end_b, shared)
        entry = merged.get(choice.group_key)
        if entry is None:
            entry = merged[choice.group_key] = (choice, [0, 0, 0], {})
        counts, runs = entry[1], entry[2]
        counts[0] += cages * lanes
        counts[1] += cages
        per_cable = choice.links_per_cable
        if per_cable <= end_a.ways:
            counts[2] += cages * ceil_div(lanes, per_cable)
        # else: a breakout whose bundled end sits in the lower tier's cages, one per such cage,
        # counted for the whole group below.
        runs[length] = runs.get(length, 0) + cages * lanes
    groups: list[tuple[LinkGroup, tuple[float, ...]]] = []
    for choice, (links, upper_cages, cables), runs in merged.values():
        # Each lower device fills its own cages: `lower_links` links in ceil(lower_links / ways)
        # cages (2 uplinks of a leaf in a 4x100G cage take the whole cage).
        lower_cages = ceil_div(links * ceil_div(lower_links, end_b.ways), lower_links)
        if lower_by_run is not None:  # counted cage by cage (`wiring.fabric_cages`)
            lower_cages = sum(lower_by_run.get(run, 0) for run in runs)
        if choice.links_per_cable > end_a.ways:
            cables = lower_cages
        optics = choice.transceiver_a is not None
        upper_modules = upper_cages if optics else 0  # one module per cage, always
        lower_modules = lower_cages if optics else 0
        structured = choice.cord is not None and choice.panel is not None
        panel_ports = 2 * links if structured else 0
        group = LinkGroup(
            plane=plane,
            a=a,
            b=b,
            links=links,
            speed_gbps=speed,
            media=choice.media,
            length_m=choice.length_m,
            cable_sku=choice.cable.sku,
            cables=cables,
            links_per_cable=choice.links_per_cable,
            transceiver_sku_a=choice.transceiver_b.sku if choice.transceiver_b else None,
            transceiver_sku_b=choice.transceiver_a.sku if choice.transceiver_a else None,
            transceivers=upper_modules + lower_modules,
            links_per_transceiver_a=choice.links_per_transceiver_b,
            links_per_transceiver_b=choice.links_per_transceiver_a,
            end_a=LinkEnd(
                role=a,
                form_factor=end_b.form_factor,
                cages=lower_cages,
                links_per_cage=end_b.ways,
            ),
            end_b=LinkEnd(
                role=b,
                form_factor=end_a.form_factor,
                cages=upper_cages,
                links_per_cage=end_a.ways,
            ),
            transceivers_a=lower_modules,
            transceivers_b=upper_modules,
            cord_sku=choice.cord.sku if structured and choice.cord else None,
            cords=2 * links if structured else 0,
            panel_sku=choice.panel.sku if structured and choice.panel else None,
            panel_ports=panel_ports,
            panels=2 * ceil_div(links, choice.panel.ports) if choice.panel else 0,
            catalog_gap=choice.catalog_gap,
            runs_m=tuple(sorted(runs)),
            run_links=tuple(sorted(runs.items())),
            shared=shared,
            choice=choice,
        )
        groups.append((group, tuple(runs)))
    if len(groups) > 1:
        groups.sort(key=lambda g: (g[0].length_m, g[0].media.value, g[0].cable_sku))
    return groups


def _leaf_split(model: SwitchModel, nic: int, downlinks: int) -> tuple[tuple[PortEnd, int], ...]:
    """One leaf's server-facing links by port group, in the order the leaf fills them
    (`wiring.port_parts`: slowest groups first, so a 48 x SFP28 + 8 x QSFP28 switch breaks out
    its QSFP28 cages last)."""
    return tuple(
        (PortEnd(form_factor=part.form_factor, native_gbps=0, ways=part.ways), part.links)
        for part in port_parts(model, nic, downlinks, 0, 0)[0]
    )


def _down_parts(
    model: SwitchModel, shape: PlaneShape
) -> tuple[tuple[int, tuple[DownPart, ...]], ...]:
    """How a leaf spreads each downlink count of the plane over its port groups."""
    nic = shape.nic_speed_gbps
    counts = sorted({g.downlinks_per_leaf for g in shape.leaf_groups})
    return tuple((count, port_parts(model, nic, count, 0, 0)[0]) for count in counts)


def _leaf_cages(
    runs: tuple[float, ...], split: tuple[tuple[PortEnd, int], ...]
) -> Counter[tuple[PortEnd, float, int]]:
    """The cages of one leaf by (end, run of the cage's longest lane, lanes used)."""
    cages: Counter[tuple[PortEnd, float, int]] = Counter()
    first = 0
    for end, links in split:
        for start in range(0, links, end.ways):
            lanes = min(end.ways, links - start)
            cages[(end, max(runs[first + start : first + start + lanes]), lanes)] += 1
        first += links
    return cages


def _down_units(
    shape: PlaneShape, layout: Layout, model: SwitchModel
) -> dict[PortEnd, Counter[tuple[float, int]]]:
    """Every leaf's server-facing cages, by end and (run, lanes), leaf by leaf as the cabling
    plan wires them; leaves with the same geometry are computed once."""
    units: dict[PortEnd, Counter[tuple[float, int]]] = {}
    memo: dict[tuple[object, ...], Counter[tuple[PortEnd, float, int]]] = {}
    period = layout.servers_per_rack * layout.racks_per_row
    nic = shape.nic_speed_gbps

    def add(key_args: tuple[int, int, int, int, int, int], times: int) -> None:
        servers, downlinks, first_server, leaf_index, within, fabric_plane = key_args
        split = _leaf_split(model, nic, downlinks)
        args = (shape, layout, servers, downlinks, first_server, leaf_index, within, fabric_plane)
        key = leaf_pattern_key(*args)
        cages = memo.get(key)
        if cages is None:
            cages = memo[key] = _leaf_cages(leaf_link_runs(*args), split)
        for (end, run, lanes), count in cages.items():
            units.setdefault(end, Counter())[(run, lanes)] += count * times

    for fabric_plane in range(shape.fabric_planes):
        leaf_index = first_server = 0
        for group in shape.leaf_groups:
            if shape.style == "packed":
                for _ in range(group.count * group.leaves):
                    args = (group.servers, group.downlinks_per_leaf, first_server, leaf_index, 0,
                            fabric_plane)  # fmt: skip
                    add(args, 1)
                    leaf_index += 1
                first_server += group.servers * group.count
                continue
            # Geometry repeats every `cycle` groups: count each distinct start once.
            cycle = period // math.gcd(period, group.servers or 1)
            for i in range(min(group.count, cycle)):
                times = (group.count - i + cycle - 1) // cycle
                start = first_server + i * group.servers
                for within in range(group.leaves):
                    index = leaf_index + i * group.leaves + within
                    args = (group.servers, group.downlinks_per_leaf, start, index, within,
                            fabric_plane)  # fmt: skip
                    add(args, times)
            leaf_index += group.count * group.leaves
            first_server += group.servers * group.count
    return units


@dataclass(frozen=True, kw_only=True)
class _Parts:
    leaf_up: tuple[DownPart, ...] = ()
    spine_down: tuple[DownPart, ...] = ()
    spine_up: tuple[DownPart, ...] = ()
    core_down: tuple[DownPart, ...] = ()


def _fabric_parts(shape: PlaneShape, models: _PlaneModels) -> _Parts:
    """The port groups each switch-to-switch end uses (`wiring.port_parts`)."""
    if shape.tiers < 2:
        return _Parts()
    nic, up, core = shape.nic_speed_gbps, shape.uplink_speed_gbps, shape.core_speed_gbps
    leaf_up = port_parts(models.leaf, nic, shape.leaf_downlinks, up, shape.leaf_uplinks)[1]
    spine_down, spine_up = port_parts(
        models.spine, up, shape.spine_downlinks, core, shape.spine_uplinks
    )
    core_down: tuple[DownPart, ...] = ()
    if shape.tiers == 3:
        core_down = port_parts(models.core, core, shape.pods * shape.spine_core_links, 0, 0)[0]
    return _Parts(leaf_up=leaf_up, spine_down=spine_down, spine_up=spine_up, core_down=core_down)


def _part_label(part: DownPart, speed: int) -> str:
    form = part.form_factor.value if part.form_factor else "?"
    return f"{form} {part.ways}x{speed}G" if part.ways > 1 else f"{form} {speed}G"


def _end(part: DownPart) -> PortEnd:
    return PortEnd(form_factor=part.form_factor, native_gbps=0, ways=part.ways)


@functools.lru_cache(maxsize=512)
def _tally_fabric(
    spans: tuple[tuple[tuple[float, ...], int], ...],
    links: int,
    switches: int,
    copies: int,
    upper: tuple[DownPart, ...],
    lower: tuple[DownPart, ...],
) -> (
    tuple[dict[tuple[int, int], Counter[tuple[float, int]]], dict[tuple[int, int], Counter[float]]]
    | None
):
    """Upper cages by (run, lanes) and lower cages by run, per (upper part, lower part), over
    every span; None when a cage would join ports of different kinds. Pure geometry, so it is
    computed once per layout of spans (the caller must not change the counters)."""
    units: dict[tuple[int, int], Counter[tuple[float, int]]] = {}
    lowers: dict[tuple[int, int], Counter[float]] = {}
    for runs, times in spans:  # pods alike in their rows count once
        cages = fabric_cages(runs, links, switches, upper, lower)
        if cages.mixed:
            return None
        # When a lower cage's lanes were cut to different lengths, its module serves links of
        # several runs: all of them take the longest run, so one group holds the whole cage.
        longest = max((run for (_, _, run, _), _ in cages.upper), default=0.0)
        for (ui, li, run, lanes), count in cages.upper:
            if (ui, li) not in units:
                units[(ui, li)] = Counter()
            units[(ui, li)][(longest if cages.split else run, lanes)] += count * copies * times
        for (ui, li, run), count in cages.lower:
            if (ui, li) not in lowers:
                lowers[(ui, li)] = Counter()
            lowers[(ui, li)][longest if cages.split else run] += count * copies * times
    return units, lowers


@functools.lru_cache(maxsize=256)
def _pod_spans(shape: PlaneShape, layout: Layout) -> tuple[tuple[tuple[float, ...], int], ...]:
    """Each pod's leaf runs and how many pods share them: pure geometry of shape and layout."""
    return pods_by_runs(shape, layout)


def _fabric_groups(
    plane: str,
    a: str,
    b: str,
    spans: tuple[tuple[tuple[float, ...], int], ...],
    links: int,
    switches: int,
    copies: int,
    speed: int,
    upper: tuple[DownPart, ...],
    lower: tuple[DownPart, ...],
    selector: MediaSelector,
) -> list[tuple[LinkGroup, tuple[float, ...]]]:
    """Link groups between the lower devices of each span (their runs, in order) and the
    `switches` upper switches serving it, `copies` times over (fabric planes, core groups)."""
    tallied = _tally_fabric(spans, links, switches, copies, upper, lower)
    if tallied is None:
        raise SwitchMismatch(
            text(
                gettext_noop(
                    "%(plane)s %(a)s-%(b)s: one cage's links would land in ports of "
                    "different kinds at the other end (%(upper)s and %(lower)s), which no "
                    "cable or module joins; choose a %(b)s switch with one kind of port at "
                    "%(speed)sG."
                ),
                plane=plane,
                a=a,
                b=b,
                upper=" + ".join(_part_label(p, speed) for p in upper),
                lower=" + ".join(_part_label(p, speed) for p in lower),
                speed=speed,
            )
        )
    units, lowers = tallied
    out: list[tuple[LinkGroup, tuple[float, ...]]] = []
    for (ui, li), counted in sorted(units.items()):
        top, bottom = upper[ui], lower[li]
        # Lanes of one cage may share a straight cable only if they all join the same two cages.
        shared = links % top.ways == 0 and links % bottom.ways == 0
        out += _link_groups(
            plane, a, b, counted, speed, _end(top), _end(bottom), selector, shared,
            lower_by_run=lowers.get((ui, li), Counter()),
        )  # fmt: skip
    return out


def _plane(
    shape: PlaneShape,
    models: _PlaneModels,
    layout: Layout,
    selector: MediaSelector,
    gpus_per_server: int,
) -> PlaneDesign:
    nic = shape.nic_speed_gbps
    nic_end = PortEnd(
        form_factor=models.nic.form_factor if models.nic else None, native_gbps=nic, ways=1
    )
    a_name = "endpoint" if shape.style == "packed" else "server"
    # Media is chosen with the upper tier's port as end `a` (the fat end of a breakout).
    with_runs: list[tuple[LinkGroup, tuple[float, ...]]] = []
    splits = {_leaf_split(models.leaf, nic, g.downlinks_per_leaf) for g in shape.leaf_groups}
    down_ends = {end for split in splits for end, _ in split}
    if rail_style(shape) and len(down_ends) == 1:
        # A cage of a k-way breakout serves k neighbouring servers of one rail.
        leaf_down = next(iter(down_ends))
        units = rail_server_cages(shape, layout, leaf_down.ways)
        with_runs += _link_groups(
            models.name, a_name, "leaf", units, nic, leaf_down, nic_end, selector, True
        )
    else:
        for leaf_down, units in _down_units(shape, layout, models.leaf).items():
            with_runs += _link_groups(
                models.name, a_name, "leaf", units, nic, leaf_down, nic_end, selector, True
            )
    parts = _fabric_parts(shape, models)
    if shape.tiers >= 2:
        pods = _pod_spans(shape, layout)
        with_runs += _fabric_groups(
            models.name, "leaf", "spine", pods, shape.leaf_spine_links, shape.spines_per_pod,
            shape.fabric_planes, shape.uplink_speed_gbps, parts.spine_down, parts.leaf_up,
            selector,
        )  # fmt: skip
    if shape.tiers == 3:
        run = spine_core_run_m(layout)
        with_runs += _fabric_groups(
            models.name, "spine", "core", (((run,) * shape.pods, 1),),
            shape.spine_core_links,
            shape.cores_per_group, shape.fabric_planes * shape.spines_per_pod,
            shape.core_speed_gbps, parts.core_down, parts.spine_up, selector,
        )  # fmt: skip
    links = [group for group, _ in with_runs]
    runs = tuple(
        RunMedia(
            group.a,
            group.b,
            run,
            index,
            group.end_b.form_factor if group.end_b else None,
            group.end_b.links_per_cage if group.end_b else 1,
            group.end_a.form_factor if group.end_a else None,
            group.end_a.links_per_cage if group.end_a else 1,
        )
        for index, (group, carried) in enumerate(with_runs)
        for run in carried
    )
    lengths: dict[tuple[str, str, float], int] = {}
    for group in links:
        key = (group.a, group.b, group.length_m)
        lengths[key] = lengths.get(key, 0) + group.links
    per_server = shape.ports_per_server * shape.fabric_planes * nic
    return PlaneDesign(
        name=models.name,
        style=shape.style,
        shape=shape,
        tiers=_tiers(shape, models),
        links=tuple(links),
        lengths=tuple(
            LengthBin(a=a, b=b, length_m=length, links=count)
            for (a, b, length), count in sorted(lengths.items())
        ),
        bisection_gbps=bisection_gbps(shape),
        bandwidth_per_server_gbps=per_server,
        bandwidth_per_gpu_gbps=round(per_server / gpus_per_server, 3),
        leaf_downlink_gbps=shape.leaf_downlinks * nic,
        leaf_uplink_gbps=shape.leaf_uplinks * shape.uplink_speed_gbps,
        growth=growth(shape, gpus_per_server, models.leaf, models.spine, models.core),
        runs=runs,
        down_parts=_down_parts(models.leaf, shape),
        leaf_up_parts=parts.leaf_up,
        spine_down_parts=parts.spine_down,
        spine_up_parts=parts.spine_up,
        core_down_parts=parts.core_down,
    )


def _compute_models(request: DesignRequest) -> _PlaneModels:
    assert request.leaf is not None
    leaf = request.leaf.model
    spine = request.spine.model if request.spine else leaf
    core = request.core.model if request.core else spine
    over = request.oversubscription or Oversubscription()
    return _PlaneModels(
        name="compute",
        leaf=leaf,
        spine=spine,
        core=core,
        nic=request.nic,
        leaf_target=_fraction(over.leaf),
        spine_target=_fraction(over.spine),
    )


def _plane_models(plane: PlaneRequest) -> _PlaneModels:
    return _PlaneModels(
        name=plane.name,
        leaf=plane.leaf.model,
        spine=plane.spine.model,
        core=plane.spine.model,
        nic=plane.nic,
        leaf_target=_fraction(plane.oversubscription),
        spine_target=Fraction(1),
    )


@dataclass(kw_only=True)
class _BomEntry:
    sku: str
    description: str
    quantity: int
    power_each: float
    power_max_each: float
    rack_units_each: int
    category: str
    gap: Text | None = None


_CATEGORY_ORDER = {"nic": 0, "switch": 1, "transceiver": 2, "cable": 3, "patch_panel": 4}
_PLANE_ORDER = {"compute": 0, "storage": 1, "frontend": 2, "oob": 3}


class _Bom:
    def __init__(self) -> None:
        self.lines: dict[tuple[str, str, str], _BomEntry] = {}

    def add(
        self,
        *,
        sku: str,
        description: str,
        quantity: int,
        power_each: float,
        rack_units_each: int,
        plane: str,
        tier: str,
        category: str,
        power_max_each: float | None = None,
        gap: Text | None = None,
    ) -> None:
        if quantity <= 0:
            return
        key = (plane, tier, sku or f"generic:{description}")
        entry = self.lines.get(key)
        if entry is not None:
            entry.quantity += quantity
        else:
            self.lines[key] = _BomEntry(
                sku=sku,
                description=description,
                quantity=quantity,
                power_each=power_each,
                power_max_each=power_each if power_max_each is None else power_max_each,
                rack_units_each=rack_units_each,
                category=category,
                gap=gap,
            )

    def part(
        self,
        part: Product,
        quantity: int,
        plane: str,
        tier: str,
        category: str,
        gaps: dict[str, Text],
    ) -> None:
        """A transceiver, cable or panel of a link group; a generic one is a catalog gap."""
        if quantity <= 0:
            return
        sku = part.sku
        key = (plane, tier, sku or f"generic:{part.name}")
        entry = self.lines.get(key)
        if entry is not None:  # the same part on another link group of the tier pair
            entry.quantity += quantity
            return
        power = float(getattr(part, "power_w", 0.0))
        self.lines[key] = _BomEntry(
            sku=sku,
            description=part.name,
            quantity=quantity,
            power_each=power,
            power_max_each=power,
            rack_units_each=int(getattr(part, "rack_units", 0)),
            category=category,
            gap=None if sku else gaps.get(part.name, Text(part.name)),
        )

    def build(self) -> tuple[BomLine, ...]:
        out = []
        for (plane, tier, _), entry in self.lines.items():
            out.append(
                BomLine(
                    sku=entry.sku,
                    description=entry.description,
                    quantity=entry.quantity,
                    power_w=round(entry.power_each * entry.quantity),
                    power_max_w=round(entry.power_max_each * entry.quantity),
                    rack_units=entry.rack_units_each * entry.quantity,
                    plane=plane,
                    tier=tier,
                    category=entry.category,
                    catalog_gap=entry.gap is not None,
                    description_text=entry.gap,
                )
            )
        out.sort(
            key=lambda b: (
                _PLANE_ORDER.get(b.plane, 9), _CATEGORY_ORDER[b.category], b.tier,
                b.catalog_gap, b.sku, b.description,
            )
        )  # fmt: skip
        return tuple(out)


def _bom_for_plane(
    bom: _Bom, plane: PlaneDesign, models: _PlaneModels, servers: int, ports: int
) -> None:
    if models.nic is not None:
        bom.add(
            sku=models.nic.sku,
            description=models.nic.name,
            quantity=servers * ceil_div(ports, models.nic.ports),
            power_each=models.nic.power_w,
            rack_units_each=0,
            plane=plane.name,
            tier="server",
            category="nic",
        )
    model_of = {"leaf": models.leaf, "spine": models.spine, "core": models.core}
    for tier in plane.tiers:
        inline = parse_inline(tier.switch) if tier.sku is None else None
        bom.add(
            sku=tier.sku or "",
            description=tier.description,
            gap=None
            if inline is None
            else text(
                gettext_noop("Switch, %(ports)s x %(speed)sG (inline spec, not a catalog product)"),
                ports=inline[0],
                speed=inline[1],
            ),
            quantity=tier.count,
            power_each=tier.power_w,
            power_max_each=model_of[tier.role].power_max_w or tier.power_w,
            rack_units_each=tier.rack_units,
            plane=plane.name,
            tier=tier.role,
            category="switch",
        )
    for group in plane.links:
        choice = group.choice
        assert choice is not None
        pair = f"{group.a}-{group.b}"
        gaps = dict(choice.gaps)
        if choice.transceiver_b is not None:  # the lower tier's end
            bom.part(choice.transceiver_b, group.transceivers_a, plane.name, pair,
                     "transceiver", gaps)  # fmt: skip
        if choice.transceiver_a is not None:
            bom.part(choice.transceiver_a, group.transceivers_b, plane.name, pair,
                     "transceiver", gaps)  # fmt: skip
        bom.part(choice.cable, group.cables, plane.name, pair, "cable", gaps)
        if choice.cord is not None and group.cords:
            bom.part(choice.cord, group.cords, plane.name, pair, "cable", gaps)
        if choice.panel is not None and group.panels:
            bom.part(choice.panel, group.panels, plane.name, pair, "patch_panel", gaps)


def _partial_unit(plane: PlaneDesign, request: DesignRequest) -> list[DesignWarning]:
    """Say how a partial scalable unit was built (issue 13, item 4: the default stated)."""
    shape = plane.shape
    if shape.tiers < 2 or shape.style not in ("rail", "rail-plane"):
        return []
    groups = shape.leaf_groups
    sizes = [g.servers for g in groups]
    balanced = shape.groups >= 2 and max(sizes) - min(sizes) <= 1
    if request.build == Build.TODAY and balanced:
        return [
            DesignWarning(
                code="built_for_today",
                message_text=text(
                    gettext_noop(
                        "Minimum for today: %(servers)s servers spread over %(units)s units of "
                        "about %(per_unit)s; every leaf uplink carries today's servers only."
                    ),
                    servers=shape.servers,
                    units=shape.groups,
                    per_unit=shape.group_servers,
                ),
                action_text=text(
                    gettext_noop(
                        "Adding servers later needs more spines and every leaf's uplinks spread "
                        "again (recabling); size with build = growth to keep that room now."
                    )
                ),
            )
        ]
    partial = [g for g in groups if g.servers < shape.group_servers]
    if not partial:
        return []
    return [
        DesignWarning(
            code="partial_unit",
            message_text=text(
                gettext_noop(
                    "Built for growth: the last unit holds %(servers)s of %(per_unit)s servers, "
                    "and its leaves get every uplink, so %(free)s more servers need only their "
                    "own cables."
                ),
                servers=partial[0].servers,
                per_unit=shape.group_servers,
                free=shape.group_servers - partial[0].servers,
            ),
            action_text=text(
                gettext_noop(
                    "To buy less today, size with build = today: servers spread evenly over "
                    "the units, fewer uplinks and spines, and recabling to grow."
                )
            ),
        )
    ]


def _warnings(
    design_planes: tuple[PlaneDesign, ...],
    models: dict[str, _PlaneModels],
    bom: tuple[BomLine, ...],
    catalog: CatalogSnapshot,
    request: DesignRequest,
    rack_power_w: int,
) -> tuple[DesignWarning, ...]:
    out: list[DesignWarning] = []
    out.extend(_partial_unit(design_planes[0], request))
    for plane in design_planes:
        m = models[plane.name]
        nic = plane.shape.nic_speed_gbps
        end = switch_end(m.leaf, nic, fastest=False)
        if end.native_gbps > nic and end.ways == 1:
            values = {
                "plane": plane.name,
                "nic": nic,
                "port": end.native_gbps,
                "leaf": m.leaf.label,
            }
            if m.nic:
                message = text(
                    gettext_noop(
                        "%(plane)s: the %(nic)sG NIC ports run below the %(port)sG ports of leaf "
                        "%(leaf)s (%(nic_form)s NIC in %(cage_form)s cages)."
                    ),
                    nic_form=m.nic.form_factor.value,
                    cage_form=end.form_factor.value if end.form_factor else "?",
                    **values,
                )
            else:
                message = text(
                    gettext_noop(
                        "%(plane)s: the %(nic)sG NIC ports run below the %(port)sG ports of leaf "
                        "%(leaf)s."
                    ),
                    **values,
                )
            out.append(
                DesignWarning(
                    code="speed_mismatch",
                    message_text=message,
                    action_text=text(
                        gettext_noop(
                            "Use %(port)sG NICs to use the ports' full speed, or accept %(nic)sG "
                            "per port."
                        ),
                        port=end.native_gbps,
                        nic=nic,
                    ),
                )
            )
        elif m.nic is not None and end.form_factor and m.nic.form_factor != end.form_factor:
            out.append(
                DesignWarning(
                    code="form_factor_mismatch",
                    message_text=text(
                        gettext_noop(
                            "%(plane)s: NIC %(nic)s has %(nic_form)s ports; leaf %(leaf)s has "
                            "%(leaf_form)s ports."
                        ),
                        plane=plane.name,
                        nic=m.nic.sku,
                        nic_form=m.nic.form_factor.value,
                        leaf=m.leaf.label,
                        leaf_form=end.form_factor.value,
                    ),
                    action_text=text(
                        gettext_noop(
                            "Check that the chosen cables have the right connector at each end."
                        )
                    ),
                )
            )
        for tier in plane.tiers:
            target, achieved = tier.oversubscription_target, tier.oversubscription
            if target is not None and achieved is not None and abs(target - achieved) > 1e-3:
                out.append(
                    DesignWarning(
                        code="oversubscription_inexact",
                        message_text=text(
                            gettext_noop(
                                "%(plane)s %(tier)s: %(down)s x %(down_gbps)sG down, %(up)s x "
                                "%(up_gbps)sG up gives %(achieved)s:1, not the %(target)s:1 "
                                "asked for."
                            ),
                            plane=plane.name,
                            tier=tier.role,
                            down=tier.downlinks,
                            down_gbps=tier.downlink_speed_gbps,
                            up=tier.uplinks,
                            up_gbps=tier.uplink_speed_gbps,
                            achieved=float(achieved),
                            target=float(target),
                        ),
                        action_text=text(
                            gettext_noop(
                                "Whole ports cannot meet the ratio exactly; the design stays "
                                "below it."
                            )
                        ),
                    )
                )
            if tier.physical_ports and tier.ports_free / tier.physical_ports > UNUSED_PORTS_WARN:
                out.append(
                    DesignWarning(
                        code="unused_ports",
                        message_text=text(
                            gettext_noop(
                                "%(plane)s %(tier)s: %(free)s of %(ports)s ports free on each "
                                "%(switch)s."
                            ),
                            plane=plane.name,
                            tier=tier.role,
                            free=tier.ports_free,
                            ports=tier.physical_ports,
                            switch=tier.switch,
                        ),
                        action_text=text(
                            gettext_noop(
                                "Free ports are growth room; a smaller switch or more servers "
                                "per group would use them."
                            )
                        ),
                    )
                )
    out += _resilience(design_planes)
    gaps = [line for line in bom if line.catalog_gap]
    if gaps:
        out.append(
            DesignWarning(
                code="catalog_gap",
                message_text=text(
                    gettext_noop(
                        "%(count)s lines have no catalog item that fits, so a generic part "
                        "stands in: %(parts)s."
                    ),
                    count=len(gaps),
                    parts=tuple(line.description_text or Text(line.description) for line in gaps),
                ),
                action_text=text(
                    gettext_noop(
                        "Price them or replace them with a catalog item before the quote is sent."
                    )
                ),
            )
        )
    items = catalog.by_sku()
    for line in bom:
        item = items.get(line.sku)
        if item is None:
            continue
        if item.lifecycle == Lifecycle.PLANNED:
            out.append(
                DesignWarning(
                    code="lifecycle_planned",
                    message_text=text(
                        gettext_noop("%(sku)s (%(name)s) is planned, not yet available."),
                        sku=line.sku,
                        name=item.name,
                    ),
                    action_text=text(
                        gettext_noop("Confirm the delivery date with EZMAX before quoting it.")
                    ),
                )
            )
        elif item.lifecycle == Lifecycle.END_OF_SALE:
            out.append(
                DesignWarning(
                    code="lifecycle_end_of_sale",
                    message_text=text(
                        gettext_noop("%(sku)s (%(name)s) is end of sale."),
                        sku=line.sku,
                        name=item.name,
                    ),
                    action_text=text(gettext_noop("Quote its successor instead.")),
                )
            )
    limit = request.layout.max_rack_power_w
    if limit is not None and rack_power_w > limit:
        out.append(
            DesignWarning(
                code="rack_power",
                message_text=text(
                    gettext_noop(
                        "Network equipment in one compute rack draws %(power)s W, above the "
                        "%(limit)s W limit."
                    ),
                    power=rack_power_w,
                    limit=limit,
                ),
                action_text=text(
                    gettext_noop("Put fewer servers per rack, or move leaves to network racks.")
                ),
            )
        )
    unique: dict[tuple[str, str], DesignWarning] = {}
    for warning in out:
        unique.setdefault((warning.code, warning.message), warning)
    return tuple(unique.values())


def _leaf_end_w(plane: PlaneDesign, bom: tuple[BomLine, ...]) -> float:
    """Power at the leaf end of one plane's links: half of the server-leaf modules and active
    cables, half of the leaf-spine ones (the other halves sit in the servers and the spines)."""
    watts = 0.0
    for line in bom:
        if line.plane != plane.name or line.category not in ("transceiver", "cable"):
            continue
        if line.tier.endswith("-leaf") or line.tier == "leaf-spine":
            watts += line.power_w * 0.5
    return watts


def _switch_estimate(
    label: str, catalog: CatalogSnapshot, prices: Mapping[str, Decimal]
) -> Decimal | None:
    """An inline switch spec's price, estimated from the catalog's priced switches of the same
    capacity class (within a factor of two of its switching capacity): their median price per
    Gbps times its capacity. None when the catalog has no such switch."""
    inline = parse_inline(label)
    if inline is None:
        return None
    capacity = inline[0] * inline[1]
    rates = sorted(
        prices[spec.sku] / spec.switching_capacity_gbps
        for spec in catalog.switches
        if spec.sku in prices
        and spec.switching_capacity_gbps
        and capacity / 2 <= spec.switching_capacity_gbps <= capacity * 2
    )
    if not rates:
        return None
    return (rates[len(rates) // 2] * capacity).quantize(Decimal("1"))


def _resilience(planes: tuple[PlaneDesign, ...]) -> list[DesignWarning]:
    """Single points of failure: one switch for every server, one spine, one uplink a leaf."""
    out = []
    for plane in planes:
        shape = plane.shape
        if plane.name == "oob":
            continue  # management: a failure there stops no job
        if shape.tiers == 1 and shape.leaves_per_group == 1 and shape.servers > 1:
            message = text(
                gettext_noop(
                    "%(plane)s: every endpoint hangs off one switch; if it fails, the plane stops."
                ),
                plane=plane.name,
            )
            action = text(gettext_noop("Dual-home the servers to a switch pair."))
        elif shape.tiers >= 2 and shape.spines_per_pod == 1:
            message = text(
                gettext_noop(
                    "%(plane)s: one spine carries all traffic between leaves; if it fails, "
                    "servers reach only their own leaf."
                ),
                plane=plane.name,
            )
            action = text(gettext_noop("Use at least two spines."))
        elif shape.tiers >= 2 and shape.leaf_uplinks == 1:
            message = text(
                gettext_noop("%(plane)s: each leaf has a single uplink; one cable cuts it off."),
                plane=plane.name,
            )
            action = text(gettext_noop("Give each leaf at least two uplinks."))
        else:
            continue
        out.append(
            DesignWarning(code="single_point_of_failure", message_text=message, action_text=action)
        )
    return out


def _rack_power(
    design_planes: tuple[PlaneDesign, ...], bom: tuple[BomLine, ...], request: DesignRequest
) -> tuple[int, int]:
    """Network power, typical, in one full compute rack and in one full row of them: NICs and
    the server ends of their links (optics, and active cables, AOC and AEC, which draw power at
    both ends); the leaves with the modules they hold, in the rack when they sit there (top of
    rack), in the row when they sit in it (middle or end of row)."""
    layout = request.layout
    servers = request.servers
    per_server = 0.0
    for line in bom:
        if line.category == "nic":
            per_server += line.power_w / servers
        elif line.category in ("transceiver", "cable") and line.tier.endswith("-leaf"):
            # The server end is half of a server-leaf link's modules or active-cable ends.
            per_server += line.power_w * 0.5 / servers
    rack = per_server * layout.servers_per_rack
    racks = max(1, math.ceil(servers / layout.servers_per_rack))
    rows = max(1, math.ceil(racks / layout.racks_per_row))
    leaves_w = sum(
        plane.tiers[0].power_w * plane.tiers[0].count + _leaf_end_w(plane, bom)
        for plane in design_planes
    )
    placement = layout.leaf_placement.value
    if placement == "tor":
        rack += leaves_w / racks
    row = rack * min(racks, layout.racks_per_row)
    if placement in ("mor", "eor"):
        row += leaves_w / rows
    return round(rack), round(row)


def bom_cost(
    planes: tuple[PlaneDesign, ...],
    bom: tuple[BomLine, ...],
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal],
) -> tuple[Decimal, bool, int]:
    """(total, whether a switch price is estimated, lines with no price) of a bill of materials:
    list prices, inline switch specs estimated from the catalog's switches of their class. The
    one pricing the search ranks by, so every page that compares designs agrees with it."""
    total, estimated, unpriced = Decimal(0), False, 0
    for line in bom:
        price = prices.get(line.sku) if line.sku else None
        if price is None and line.category == "switch":
            plane = next(p for p in planes if p.name == line.plane)
            tier = plane.tier(line.tier)
            price = _switch_estimate(tier.switch, catalog, prices) if tier else None
            estimated = estimated or price is not None
        if price is None:
            unpriced += 1
            continue
        total += price * line.quantity
    return total, estimated, unpriced


def _size(
    request: DesignRequest, catalog: CatalogSnapshot, prices: Mapping[str, Decimal] | None
) -> Design:
    assert request.fabric is not None
    assert request.leaf is not None
    selector = selector_for(catalog, request.media)
    compute = _compute_models(request)
    layout = request.layout
    servers = request.servers
    shape = plan_plane(
        PlaneInput(
            plane="compute",
            style=request.fabric.value,
            servers=servers,
            ports_per_server=request.rails,
            nic_speed_gbps=request.nic_speed_gbps,
            leaf=compute.leaf,
            spine=compute.spine,
            core=compute.core,
            leaf_oversubscription=compute.leaf_target,
            spine_oversubscription=compute.spine_target,
            dual_homing=request.dual_homing,
            rails_per_plane=request.rails_per_plane,
            uplink_gbps=request.uplink_speed_gbps,
            planes=request.planes or 1,
            minimum_for_today=request.build == Build.TODAY,
            servers_per_rack=layout.servers_per_rack,
            min_spines=request.min_spines,
            servers_per_su=request.servers_per_su,
        )
    )
    models = {"compute": compute}
    planes = [_plane(shape, compute, layout, selector, request.gpus_per_server)]
    storage_nodes = request.storage.storage_nodes if request.storage else 0
    for plane_request in (request.storage, request.frontend, request.oob):
        if plane_request is None:
            continue
        pm = _plane_models(plane_request)
        models[pm.name] = pm
        extra = plane_request.storage_nodes * plane_request.storage_node_ports
        if plane_request.name == "oob":
            # Every switch's management port and every storage node's BMC need an OOB port.
            extra = sum(t.count for p in planes for t in p.tiers) + storage_nodes
        plane_shape = plan_plane(
            PlaneInput(
                plane=pm.name,
                style="packed",
                servers=servers,
                ports_per_server=plane_request.ports,
                nic_speed_gbps=plane_request.nic_speed_gbps,
                leaf=pm.leaf,
                spine=pm.spine,
                core=pm.core,
                leaf_oversubscription=pm.leaf_target,
                spine_oversubscription=pm.spine_target,
                servers_per_rack=layout.servers_per_rack,
                extra_endpoints=extra,
            )
        )
        planes.append(_plane(plane_shape, pm, layout, selector, request.gpus_per_server))
    design_planes = tuple(planes)

    bom_builder = _Bom()
    for plane in design_planes:
        plane_request = getattr(request, plane.name, None) if plane.name != "compute" else None
        ports = plane_request.ports if isinstance(plane_request, PlaneRequest) else request.rails
        _bom_for_plane(bom_builder, plane, models[plane.name], servers, ports)
    bom = bom_builder.build()
    power = sum(line.power_w for line in bom)
    power_max = sum(line.power_max_w for line in bom)
    rack_power, row_power = _rack_power(design_planes, bom, request)
    cost, estimated, unpriced = None, False, 0
    if prices is not None:
        total, estimated, unpriced = bom_cost(design_planes, bom, catalog, prices)
        cost = str(total)
    first = design_planes[0].shape
    sus = first.groups if request.fabric != Fabric.TOR else 0
    design = Design(
        request=request,
        gpus=request.gpus,
        gpus_per_server=request.gpus_per_server,
        servers=servers,
        scalable_units=sus,
        racks=math.ceil(servers / layout.servers_per_rack),
        planes=design_planes,
        bom=bom,
        power_w=power,
        power_max_w=power_max,
        power_per_rack_w=rack_power,
        power_per_row_w=row_power,
        warnings=_warnings(design_planes, models, bom, catalog, request, rack_power),
        cost=cost,
        cost_estimated=estimated,
        unpriced_lines=unpriced,
    )
    check_design(design)  # every line fits its cages, or the engine has a bug: raise
    return design


def size(
    request: DesignRequest,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal] | None = None,
) -> Design:
    """One design. Choices the request leaves open are settled by `alternatives`' best."""
    if request.open_choices:
        return alternatives(request, catalog, prices)[0]
    return _size(request, catalog, prices)


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
        if model.lifecycle == Lifecycle.END_OF_SALE:
            continue
        seen.add(model.label)
        out.append(SwitchChoice(text=name, model=model))
    return out


def _notes(
    design: Design,
    best: Design,
    prices_given: bool,
    strict: Design | None,
    stated: float | None,
) -> tuple[Text, ...]:
    """The trade-offs of one alternative in words; `strict` is the best design that meets the
    `stated` leaf oversubscription without the request's tolerance."""
    request = design.request
    compute = design.compute
    notes = []
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
            saving = Decimal(strict.cost) - Decimal(design.cost)
            notes.append(
                text(
                    gettext_noop("It saves %(amount)s against the design at %(target)s:1."),
                    amount=f"{saving:,.2f}",
                    target=stated,
                )
            )
    if prices_given and design.cost is not None and best.cost is not None and design is not best:
        delta = ((Decimal(design.cost) - Decimal(best.cost)) / request.gpus).quantize(
            Decimal("0.01")
        )
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
    if compute.shape.tiers >= 2:
        notes.append(
            text(
                gettext_noop("Grows to %(gpus)s GPUs with these spines."),
                gpus=compute.growth.max_gpus_current_spines,
            )
        )
    return tuple(notes)


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
    fabrics = [request.fabric] if request.fabric else [Fabric.RAIL, Fabric.RAIL_PLANE, Fabric.TOR]
    designs: list[Design] = []
    failures: list[Text] = []

    def attempt(candidate: DesignRequest) -> Design | None:
        try:
            design = _size(candidate, catalog, prices)
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

    def rank(design: Design) -> tuple[object, ...]:
        # Cheapest per GPU with power as the tie-break (issue 13, item 1); without prices, the
        # fewest switches stand in for the cost. The rest only makes the order deterministic.
        cost = Decimal(design.cost) if design.cost is not None else Decimal(0)
        tiers = design.compute.tiers
        fabric = design.request.fabric or ""
        first, second = ((design.power_w, _switch_count(design)) if prices is not None
                         else (_switch_count(design), design.power_w))  # fmt: skip
        shape = design.compute.shape
        return (design.unpriced_lines > 0, cost / design.gpus, first, second, fabric,
                tuple(t.switch for t in tiers), tiers[0].oversubscription or 0,
                shape.uplink_speed_gbps, shape.fabric_planes)  # fmt: skip

    def resilience(design: Design) -> tuple[object, ...]:
        weak = any(w.code == "single_point_of_failure" for w in design.warnings)
        spines = min((p.shape.spines_per_pod for p in design.planes if p.shape.tiers > 1),
                     default=0)  # fmt: skip
        return (weak, -spines, rank(design))

    def growth(design: Design) -> tuple[object, ...]:
        room = design.compute.growth
        return (-room.max_gpus_current_spines, -room.max_gpus_same_tiers, rank(design))

    designs.sort(key=rank)
    chosen: list[Design] = []
    taken: set[int] = set()
    for label, order in (("lowest_cost", rank), ("most_resilient", resilience),
                         ("most_growth", growth)):  # fmt: skip
        for design in sorted(designs, key=order):
            if id(design) not in taken:
                taken.add(id(design))
                chosen.append(replace(design, label=label))
                break
        if len(chosen) >= MAX_ALTERNATIVES:
            break
    best = chosen[0]
    stated = request.oversubscription.leaf if request.oversubscription else None
    strict = next(
        (d for d in designs if stated is None or _leaf_ratio(d) <= stated + RATIO_EPSILON), None
    )
    return tuple(
        replace(design, notes=_notes(design, best, prices is not None, strict, stated))
        for design in chosen
    )


def _switch_count(design: Design) -> int:
    return sum(t.count for p in design.planes for t in p.tiers)


def _leaf_ratio(design: Design) -> float:
    return design.compute.tiers[0].oversubscription or 1.0
