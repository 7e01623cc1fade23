"""What a sized design warns of: idle ports, partial units, media that were stood in, single
points of failure, and the power a rack draws."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal

from engine.catalog import CatalogSnapshot, Lifecycle
from engine.design import (
    BomLine,
    DesignWarning,
    PlaneDesign,
)
from engine.lanes import leg_cage
from engine.media import PortEnd, switch_end
from engine.plane_models import PlaneModels
from engine.ports import parse_inline
from engine.request import (
    Build,
    DesignRequest,
)
from engine.text import Text, gettext_noop, text

UNUSED_PORTS_WARN = 0.25  # warn when more than a quarter of a tier's ports are idle


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


def _nic_leaf_warnings(plane: PlaneDesign, m: PlaneModels) -> list[DesignWarning]:
    """The NICs against their leaf's ports: slower than the ports, or in other cages."""
    nic = plane.shape.nic_speed_gbps
    end = switch_end(m.leaf, nic, fastest=False)
    if end.native_gbps > nic and end.ways == 1:
        return [_speed_mismatch(plane, m, end)]
    if m.nic is None and end.ways > 1 and end.form_factor is not None:
        assumed = _nic_cage_assumed(plane, m, end)
        return [assumed] if assumed is not None else []
    if m.nic is not None and end.form_factor and m.nic.form_factor != end.form_factor:
        return [_form_factor_mismatch(plane, m, end)]
    return []


def _speed_mismatch(plane: PlaneDesign, m: PlaneModels, end: PortEnd) -> DesignWarning:
    nic = plane.shape.nic_speed_gbps
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
                "%(plane)s: the %(nic)sG NIC ports run below the %(port)sG ports of leaf %(leaf)s."
            ),
            **values,
        )
    return DesignWarning(
        code="speed_mismatch",
        message_text=message,
        action_text=text(
            gettext_noop(
                "Use %(port)sG NICs to use the ports' full speed, or accept %(nic)sG per port."
            ),
            port=end.native_gbps,
            nic=nic,
        ),
    )


def _nic_cage_assumed(plane: PlaneDesign, m: PlaneModels, end: PortEnd) -> DesignWarning | None:
    """A NIC given by speed only, on a leaf port that breaks out: the cage the BOM assumes."""
    nic = plane.shape.nic_speed_gbps
    assert end.form_factor is not None
    cage = leg_cage(end.form_factor, end.native_gbps, end.ways, nic)
    if cage is None:
        return None
    return DesignWarning(
        code="nic_cage_assumed",
        message_text=text(
            gettext_noop(
                "%(plane)s: the NICs are given by speed only. Each %(port)sG "
                "%(leaf_form)s port of leaf %(leaf)s splits %(ways)s ways, and a "
                "%(nic)sG leg runs on lanes a %(cage)s port takes: the bill of "
                "materials assumes %(cage)s NIC ports."
            ),
            plane=plane.name,
            port=end.native_gbps,
            leaf_form=end.form_factor.value,
            leaf=m.leaf.label,
            ways=end.ways,
            nic=nic,
            cage=cage.value,
        ),
        action_text=text(
            gettext_noop("Name the NIC (its catalog SKU) so that its own ports are checked.")
        ),
    )


def _form_factor_mismatch(plane: PlaneDesign, m: PlaneModels, end: PortEnd) -> DesignWarning:
    assert m.nic is not None
    assert end.form_factor is not None
    return DesignWarning(
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
            gettext_noop("Check that the chosen cables have the right connector at each end.")
        ),
    )


def _tier_warnings(plane: PlaneDesign) -> list[DesignWarning]:
    """Each tier's ratio against the one asked for, and ports left idle."""
    out: list[DesignWarning] = []
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
                            "Whole ports cannot meet the ratio exactly; the design stays below it."
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
    return out


def _catalog_warnings(bom: tuple[BomLine, ...], catalog: CatalogSnapshot) -> list[DesignWarning]:
    """Generic parts standing in for catalog ones, and parts not (or no longer) for sale."""
    out: list[DesignWarning] = []
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
    return out


def _power_warnings(request: DesignRequest, rack_power_w: int) -> list[DesignWarning]:
    out: list[DesignWarning] = []
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
    return out


def _warnings(
    design_planes: tuple[PlaneDesign, ...],
    models: dict[str, PlaneModels],
    bom: tuple[BomLine, ...],
    catalog: CatalogSnapshot,
    request: DesignRequest,
    rack_power_w: int,
) -> tuple[DesignWarning, ...]:
    out: list[DesignWarning] = []
    out.extend(_partial_unit(design_planes[0], request))
    for plane in design_planes:
        out += _nic_leaf_warnings(plane, models[plane.name])
        out += _tier_warnings(plane)
    out += _resilience(design_planes)
    out += _catalog_warnings(bom, catalog)
    out += _power_warnings(request, rack_power_w)
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
        elif shape.style == "tor" and shape.leaves_per_group == 1 and shape.group_servers > 1:
            # Issue 26: single-homed racks got no note, although a leaf failure cuts them off
            # (engine.failures says so); a dual-homed pair has two leaves a group.
            message = text(
                gettext_noop(
                    "%(plane)s: each rack's %(servers)s servers hang off one top-of-rack leaf; "
                    "if it fails, they are cut off from the fabric."
                ),
                plane=plane.name,
                servers=shape.group_servers,
            )
            action = text(gettext_noop("Dual-home the servers to a leaf pair (dual homing)."))
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
