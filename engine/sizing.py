"""Sizing: from a `DesignRequest` and a catalog snapshot to a `Design`.

`size` computes one design; `alternatives` tries the choices a request leaves open (fabric style,
switch model, oversubscription) and ranks the valid designs by cost per GPU."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal

from engine.bom import _Bom, _bom_for_plane, bom_cost
from engine.catalog import CatalogSnapshot
from engine.design import (
    BomLine,
    Design,
    DownPart,
    LengthBin,
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
    ceil_div,
    plan_plane,
)
from engine.fit import check_design
from engine.geometry import (
    rail_server_cages,
    rail_style,
    spine_core_runs_m,
)
from engine.link_groups import (
    FabricParts,
    down_parts,
    down_units,
    fabric_groups,
    fabric_parts,
    leaf_split,
    link_groups,
    pod_spans,
)
from engine.media import MediaSelector, PortEnd, selector_for
from engine.plane_models import PlaneModels, _compute_models, _plane_models
from engine.pools import plan_pools, pool_layout, pool_of
from engine.ports import SwitchModel, unsplit
from engine.request import (
    Build,
    DesignRequest,
    Fabric,
    Layout,
    PlaneRequest,
    PoolRequest,
)
from engine.scale_up import ScaleUpDesign, add_rack_parts, plan_scale_up
from engine.shape_figures import bisection_gbps, growth
from engine.wiring import port_parts, slice_parts

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
    # The pools' leaves on the compute spines (two tiers), their pods' spines on its cores
    # (three): that tier is the compute plane's, with their ports.
    pools_down = shape.pool_top_downlinks
    if shape.tiers >= 2 and not shape.shares_spines:
        tiers.append(
            _tier(
                plane=models.name,
                role="spine",
                model=models.spine,
                count=shape.spines * planes,
                down=shape.spine_downlinks + (pools_down if shape.tiers == 2 else 0),
                down_gbps=shape.uplink_speed_gbps,
                up=shape.spine_uplinks,
                up_gbps=shape.core_speed_gbps,
                target=float(models.spine_target),
            )
        )
    if shape.tiers == 3 and not shape.shares_cores:
        tiers.append(
            _tier(
                plane=models.name,
                role="core",
                model=models.core,
                count=shape.cores * planes,
                down=shape.pods * shape.spine_core_links + pools_down,
                down_gbps=shape.core_speed_gbps,
                up=0,
                up_gbps=0,
                target=None,
            )
        )
    return tuple(tiers)


def _plane(
    shape: PlaneShape,
    models: PlaneModels,
    layout: Layout,
    selector: MediaSelector,
    gpus_per_server: int,
    top_down: tuple[DownPart, ...] | None = None,
) -> PlaneDesign:
    """One plane's design; a pool's (`top_down`) lands its uplinks on those ports of the
    compute plane's spines (two tiers) or cores (three)."""
    nic = shape.nic_speed_gbps
    parts = fabric_parts(shape, models)
    if top_down is not None and shape.shares_spines:
        parts = replace(parts, spine_down=top_down)
    elif top_down is not None:
        parts = replace(parts, core_down=top_down)
    with_runs = _server_groups(shape, models, layout, selector)
    with_runs += _switch_groups(shape, models, layout, selector, parts)
    links = [group for group, _ in with_runs]
    per_server = shape.ports_per_server * shape.fabric_planes * nic
    return PlaneDesign(
        name=models.name,
        style=shape.style,
        shape=shape,
        tiers=_tiers(shape, models),
        links=tuple(links),
        lengths=_length_bins(links),
        bisection_gbps=bisection_gbps(shape),
        bandwidth_per_server_gbps=per_server,
        bandwidth_per_gpu_gbps=round(per_server / gpus_per_server, 3),
        leaf_downlink_gbps=shape.leaf_downlinks * nic,
        leaf_uplink_gbps=shape.leaf_uplinks * shape.uplink_speed_gbps,
        growth=growth(shape, gpus_per_server, models.leaf, models.spine, models.core),
        runs=_run_media(with_runs),
        down_parts=down_parts(models.leaf, shape),
        leaf_up_parts=parts.leaf_up,
        spine_down_parts=parts.spine_down,
        spine_up_parts=parts.spine_up,
        core_down_parts=parts.core_down,
    )


def _server_groups(
    shape: PlaneShape, models: PlaneModels, layout: Layout, selector: MediaSelector
) -> list[tuple[LinkGroup, tuple[float, ...]]]:
    """The server-to-leaf link groups with their runs."""
    nic = shape.nic_speed_gbps
    nic_end = PortEnd(
        form_factor=models.nic.form_factor if models.nic else None, native_gbps=nic, ways=1
    )
    a_name = "endpoint" if shape.style == "packed" else "server"
    # Media is chosen with the upper tier's port as end `a` (the fat end of a breakout).
    with_runs: list[tuple[LinkGroup, tuple[float, ...]]] = []
    splits = {leaf_split(models.leaf, nic, g.downlinks_per_leaf) for g in shape.leaf_groups}
    down_ends = {end for split in splits for end, _ in split}
    if rail_style(shape) and len(down_ends) == 1:
        # A cage of a k-way breakout serves k neighbouring servers of one rail.
        leaf_down = next(iter(down_ends))
        units = rail_server_cages(shape, layout, leaf_down.ways)
        with_runs += link_groups(
            models.name, a_name, "leaf", units, nic, leaf_down, nic_end, selector, True
        )
    else:
        for leaf_down, units in down_units(shape, layout, models.leaf).items():
            with_runs += link_groups(
                models.name, a_name, "leaf", units, nic, leaf_down, nic_end, selector, True
            )
    return with_runs


def _switch_groups(
    shape: PlaneShape,
    models: PlaneModels,
    layout: Layout,
    selector: MediaSelector,
    parts: FabricParts,
) -> list[tuple[LinkGroup, tuple[float, ...]]]:
    """The leaf-to-spine and spine-to-core link groups with their runs."""
    with_runs: list[tuple[LinkGroup, tuple[float, ...]]] = []
    if shape.tiers >= 2:
        pods = pod_spans(shape, layout)
        with_runs += fabric_groups(
            models.name, "leaf", "spine", pods, shape.leaf_spine_links, shape.spines_per_pod,
            shape.fabric_planes, shape.uplink_speed_gbps, parts.spine_down, parts.leaf_up,
            selector,
        )  # fmt: skip
    if shape.tiers == 3:
        with_runs += fabric_groups(
            models.name, "spine", "core", ((spine_core_runs_m(shape, layout), 1),),
            shape.spine_core_links,
            shape.cores_per_group, shape.fabric_planes * shape.spines_per_pod,
            shape.core_speed_gbps, parts.core_down, parts.spine_up, selector,
        )  # fmt: skip
    return with_runs


def _run_media(with_runs: list[tuple[LinkGroup, tuple[float, ...]]]) -> tuple[RunMedia, ...]:
    return tuple(
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


def _length_bins(links: list[LinkGroup]) -> tuple[LengthBin, ...]:
    lengths: dict[tuple[str, str, float], int] = {}
    for group in links:
        key = (group.a, group.b, group.length_m)
        lengths[key] = lengths.get(key, 0) + group.links
    return tuple(
        LengthBin(a=a, b=b, length_m=length, links=count)
        for (a, b, length), count in sorted(lengths.items())
    )


def _size(
    request: DesignRequest, catalog: CatalogSnapshot, prices: Mapping[str, Decimal] | None
) -> Design:
    assert request.fabric is not None
    assert request.leaf is not None
    models: dict[str, PlaneModels] = {}
    design_planes = _planes(request, selector_for(catalog, request.media), models)
    scale_up = plan_scale_up(request, catalog)
    bom = _bom(request, design_planes, models, scale_up, catalog)
    power = sum(line.power_w for line in bom)
    power_max = sum(line.power_max_w for line in bom)
    rack_power, row_power = _rack_power(design_planes, bom, request)
    cost, estimated, unpriced = None, False, 0
    if prices is not None:
        total, estimated, unpriced = bom_cost(design_planes, bom, catalog, prices)
        cost = total
    first = design_planes[0].shape
    sus = first.groups if request.fabric != Fabric.TOR else 0
    servers = request.servers
    design = Design(
        request=request,
        gpus=request.gpus,
        gpus_per_server=request.gpus_per_server,
        servers=servers,
        scalable_units=sus,
        racks=math.ceil(servers / request.layout.servers_per_rack),
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
        scale_up=scale_up,
    )
    check_design(design)  # every line fits its cages, or the engine has a bug: raise
    return design


def _compute_input(request: DesignRequest, compute: PlaneModels) -> PlaneInput:
    assert request.fabric is not None
    return PlaneInput(
        plane="compute",
        style=request.fabric.value,
        servers=request.servers,
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
        servers_per_rack=request.layout.servers_per_rack,
        min_spines=request.min_spines,
        servers_per_su=request.servers_per_su,
    )


def _planes(
    request: DesignRequest, selector: MediaSelector, models: dict[str, PlaneModels]
) -> tuple[PlaneDesign, ...]:
    """The compute plane, then storage, frontend and OOB as the request asks; fills in
    `models` by plane name."""
    compute = _compute_models(request)
    layout = request.layout
    servers = request.servers_total
    models["compute"] = compute
    if request.pools:
        planes = _with_pools(request, compute, selector, models)
    else:
        shape = plan_plane(_compute_input(request, compute))
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
    return tuple(planes)


def _with_pools(
    request: DesignRequest,
    compute: PlaneModels,
    selector: MediaSelector,
    models: dict[str, PlaneModels],
) -> list[PlaneDesign]:
    """The compute plane and each pool's (engine.pools). A pool whose NICs' speed breaks out of
    the leaf's cages with no media made for it (4 x 200G from an 800G OSFP cage), or only with
    stand-in parts (a 2 x 200G-SR4 QSFP-DD optic nobody lists), runs those cages one link each
    (`ports.unsplit`), as `priced` does for the first pool's leaves, when that fits."""
    flat: dict[str, SwitchModel] = {}
    while True:
        try:
            planes, pool_models = _pool_planes(request, compute, selector, flat)
            break
        except _PoolFailed as failed:
            one_link = _one_link(compute, failed.pool)
            if failed.pool.name in flat or one_link is None:
                raise failed.error from None
            flat[failed.pool.name] = one_link
    for pool in request.pools:
        one_link = _one_link(compute, pool)
        if pool.name in flat or one_link is None or not _stand_in_links(planes, pool.name):
            continue
        try:
            other, other_models = _pool_planes(
                request, compute, selector, {**flat, pool.name: one_link}
            )
        except (_PoolFailed, DesignError):
            continue
        if _stand_in_links(other, pool.name) < _stand_in_links(planes, pool.name):
            planes, pool_models, flat = other, other_models, {**flat, pool.name: one_link}
    models.update(pool_models)
    return planes


def _one_link(compute: PlaneModels, pool: PoolRequest) -> SwitchModel | None:
    # An inline spec's breakouts are what the user described, not a port mode to try (priced).
    return unsplit(compute.leaf, pool.nic_speed_gbps) if compute.leaf.sku else None


class _PoolFailed(Exception):
    def __init__(self, pool: PoolRequest, error: DesignError) -> None:
        super().__init__(str(error))
        self.pool, self.error = pool, error


def _stand_in_links(planes: list[PlaneDesign], name: str) -> int:
    return sum(g.links for p in planes if p.name == name for g in p.links if g.catalog_gap)


def _pool_planes(
    request: DesignRequest,
    compute: PlaneModels,
    selector: MediaSelector,
    flat: Mapping[str, SwitchModel],
) -> tuple[list[PlaneDesign], dict[str, PlaneModels]]:
    shape, pool_shapes = plan_pools(_compute_input(request, compute), request, flat)
    planes = [_plane(shape, compute, request.layout, selector, request.gpus_per_server)]
    if shape.tiers == 2:  # the spines' ports, every pool's leaves after the compute plane's
        top_down = port_parts(
            compute.spine, shape.uplink_speed_gbps,
            shape.spine_downlinks + shape.pool_top_downlinks, 0, 0,
        )[0]  # fmt: skip
    else:  # the cores' ports, every pool's pods after the compute plane's
        top_down = port_parts(
            compute.core, shape.core_speed_gbps,
            shape.pods * shape.spine_core_links + shape.pool_top_downlinks, 0, 0,
        )[0]  # fmt: skip
    models: dict[str, PlaneModels] = {}
    for pool_shape in pool_shapes:
        pool = pool_of(request, pool_shape.plane)
        assert pool is not None
        leaf = flat.get(pool.name, compute.leaf)
        pool_models = replace(compute, name=pool.name, nic=pool.nic, leaf=leaf)
        taken = (
            pool_shape.spine_downlinks
            if pool_shape.tiers == 2
            else (pool_shape.pods * pool_shape.spine_core_links)
        )
        ports = slice_parts(top_down, pool_shape.spine_port_offset, taken)
        layout = pool_layout(request, pool)
        try:
            planes.append(
                _plane(pool_shape, pool_models, layout, selector, pool.gpus_per_server, ports)
            )
        except (MediaUnavailable, SwitchMismatch) as error:
            raise _PoolFailed(pool, error) from error
        models[pool.name] = pool_models
    return planes, models


def _bom(
    request: DesignRequest,
    planes: tuple[PlaneDesign, ...],
    models: Mapping[str, PlaneModels],
    scale_up: ScaleUpDesign | None,
    catalog: CatalogSnapshot,
) -> tuple[BomLine, ...]:
    bom_builder = _Bom()
    every_server = request.servers_total
    for plane in planes:
        plane_request = getattr(request, plane.name, None) if plane.name != "compute" else None
        ports = plane_request.ports if isinstance(plane_request, PlaneRequest) else request.rails
        servers = every_server if isinstance(plane_request, PlaneRequest) else request.servers
        pool = pool_of(request, plane.name)
        if pool is not None:
            ports, servers = pool.rails, pool.servers
        plane_models = models[plane.name]
        if scale_up is not None and plane.name == "compute":
            # A compute tray comes with its NICs: a catalog NIC named gives their cage (the
            # media), never a second set on the bill.
            plane_models = replace(plane_models, nic=None)
        _bom_for_plane(bom_builder, plane, plane_models, servers, ports)
    if scale_up is not None:
        add_rack_parts(bom_builder, scale_up, request, catalog)
    return bom_builder.build()


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
