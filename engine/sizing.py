"""Sizing: from a `DesignRequest` and a catalog snapshot to a `Design`.

`size` computes one design; `alternatives` tries the choices a request leaves open (fabric style,
switch model, oversubscription) and ranks the valid designs by cost per GPU."""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal

from engine.bom import _Bom, _bom_for_plane, bom_cost
from engine.catalog import CatalogSnapshot
from engine.design import (
    Design,
    DownPart,
    LengthBin,
    LinkEnd,
    LinkGroup,
    PlaneDesign,
    PlaneShape,
    RunMedia,
    TierDesign,
)
from engine.design_warnings import _rack_power, _warnings
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
)
from engine.fit import check_design
from engine.geometry import (
    leaf_link_runs,
    leaf_pattern_key,
    pods_by_runs,
    rail_server_cages,
    rail_style,
    spine_core_runs_m,
)
from engine.media import MediaChoice, MediaSelector, PortEnd, selector_for
from engine.plane_models import PlaneModels, _compute_models, _plane_models
from engine.ports import SwitchModel
from engine.request import (
    Build,
    DesignRequest,
    Fabric,
    Layout,
    PlaneRequest,
)
from engine.text import gettext_noop, text
from engine.wiring import fabric_cages, port_parts

__all__ = [
    "DesignError",
    "FabricTooLarge",
    "MediaUnavailable",
    "NoDesign",
    "SwitchMismatch",
    "size",
]


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


def _tiers(shape: PlaneShape, models: PlaneModels) -> tuple[TierDesign, ...]:
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
            # One assembly per lower cage; a twin-port module splits each port on its own fibre.
            cables = lower_cages * max(1, end_b.ways // choice.links_per_cable)
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


def _fabric_parts(shape: PlaneShape, models: PlaneModels) -> _Parts:
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
    models: PlaneModels,
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
        with_runs += _fabric_groups(
            models.name, "spine", "core", ((spine_core_runs_m(shape, layout), 1),),
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
        cost = total
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
        # Imported here: the search sizes each of its candidates with `_size` below.
        from engine.search import alternatives

        return alternatives(request, catalog, prices)[0]
    # Imported here: both size their variants with `_size` below.
    from engine.hints import size_hints
    from engine.priced import size_priced

    design = size_priced(request, catalog, prices)
    hints = size_hints(design, request, catalog, prices)
    return replace(design, warnings=design.warnings + hints) if hints else design
