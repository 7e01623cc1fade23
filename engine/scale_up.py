"""Rack-scale scale-up domains (NVL72-class): the racks, trays, NVLink switch trays, power
shelves and in-rack management switches of a request whose servers are compute trays, their
power per rack, and their bill-of-materials lines.

The scale-out fabric is the ordinary compute plane, sized from the active trays (servers) and
their NICs (`rails` at `nic_speed`); this module adds what stands in the racks beside it. Parts
the catalog does not sell are named stand-ins "to be priced" (no SKU), as `engine.generic`
names a missing optic: a public system name is used, never an invented part number."""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.bom import _Bom
from engine.catalog import CatalogSnapshot
from engine.request import DesignRequest
from engine.request.scale_up_parse import MANAGEMENT_SWITCH_SKU
from engine.request.systems import (
    MANAGEMENT_SWITCHES_PER_RACK,
    POWER_SHELF_UNITS,
    POWER_SHELF_W,
    PRESETS,
    Cooling,
    System,
    power_shelves,
)
from engine.text import gettext_noop, text

RACK_TIER = "rack"  # the BOM tier of every rack part
RACK_CATEGORY = "rack"


@dataclass(frozen=True, kw_only=True)
class ScaleUpDesign:
    """What a rack-scale design stands on: counts for the whole design unless `_per_rack`."""

    system: str  # the public system name, or "" for a rack described by its fields
    gpus_per_tray: int
    nics_per_tray: int
    nic_speed_gbps: int
    trays_per_rack: int
    active_trays_per_rack: int
    nvlink_switch_trays_per_rack: int
    power_shelves_per_rack: int
    management_switches_per_rack: int
    racks: int
    compute_trays: int  # installed, spares included
    active_trays: int  # the design's servers
    spare_trays: int
    nvlink_switch_trays: int
    power_shelves: int
    management_switches: int
    scale_out_nics: int  # every active tray's NICs, each cabled to a leaf
    domain_gpus: int  # GPUs one NVLink domain (one rack) joins: tensor and expert parallelism
    # A GPU's NVLink bandwidth, GB/s both directions together (1,800 for NVLink 5); 0 when the
    # rack was described by its fields only and the request does not say.
    nvlink_gbytes_per_s: float
    rack_power_w: int  # the busiest rack's draw: its active trays and management switches
    rack_power_limit_w: int
    cooling: str  # liquid | air


def management_switch(catalog: CatalogSnapshot) -> tuple[str, str, float, float]:
    """(SKU, name, typical W, maximum W) of the in-rack management switch: the catalog's
    SN2201 when it sells one, else a stand-in to be priced (SKU "")."""
    spec = next((s for s in catalog.switches if s.sku == MANAGEMENT_SWITCH_SKU), None)
    if spec is None:
        return "", "In-rack management switch, 48 x 1GbE (SN2201 class)", 0.0, 0.0
    return spec.sku, spec.name, spec.power_typical_w, spec.power_max_w or spec.power_typical_w


def plan_scale_up(request: DesignRequest, catalog: CatalogSnapshot) -> ScaleUpDesign | None:
    """The racks of a rack-scale request: ceil(GPUs / (active trays x GPUs per tray)) of them,
    each with all its trays installed (a rack is bought whole; the inactive ones are spares)."""
    block = request.scale_up
    if block is None:
        return None
    active = request.servers
    racks = math.ceil(active / block.active_trays_per_rack)
    limit_w = round(block.rack_power_kw * 1000)
    _sku, _name, _typical, switch_max = management_switch(catalog)
    busiest = min(active, block.active_trays_per_rack)
    preset = PRESETS[System(block.system)] if block.system else None
    system = preset.name if preset else ""
    return ScaleUpDesign(
        system=system,
        gpus_per_tray=request.gpus_per_server,
        nics_per_tray=request.rails,
        nic_speed_gbps=request.nic_speed_gbps,
        trays_per_rack=block.trays_per_rack,
        active_trays_per_rack=block.active_trays_per_rack,
        nvlink_switch_trays_per_rack=block.nvlink_switch_trays,
        power_shelves_per_rack=power_shelves(limit_w),
        management_switches_per_rack=MANAGEMENT_SWITCHES_PER_RACK,
        racks=racks,
        compute_trays=racks * block.trays_per_rack,
        active_trays=active,
        spare_trays=racks * block.trays_per_rack - active,
        nvlink_switch_trays=racks * block.nvlink_switch_trays,
        power_shelves=racks * power_shelves(limit_w),
        management_switches=racks * MANAGEMENT_SWITCHES_PER_RACK,
        scale_out_nics=active * request.rails,
        domain_gpus=busiest * request.gpus_per_server,
        nvlink_gbytes_per_s=preset.nvlink_gbytes_per_s if preset else 0.0,
        rack_power_w=round(
            busiest * block.tray_power_w + switch_max * MANAGEMENT_SWITCHES_PER_RACK
        ),
        rack_power_limit_w=limit_w,
        cooling=block.cooling.value,
    )


def add_rack_parts(
    bom: _Bom, scale_up: ScaleUpDesign, request: DesignRequest, catalog: CatalogSnapshot
) -> None:
    """The rack parts as BOM lines. Their power stays out of the lines: a design's power is
    its network equipment's (`Design.power_w`); the racks' draw is `rack_power_w`. The
    management switches are network equipment and keep theirs."""
    block = request.scale_up
    assert block is not None
    system = scale_up.system or "rack-scale"
    tray = text(
        gettext_noop(
            "%(system)s compute tray, %(gpus)s GPUs and %(nics)s x %(speed)sG NICs (to be priced)"
        ),
        system=system,
        gpus=scale_up.gpus_per_tray,
        nics=scale_up.nics_per_tray,
        speed=scale_up.nic_speed_gbps,
    )
    spare = text(
        gettext_noop("%(system)s compute tray, installed as a spare (to be priced)"),
        system=system,
    )
    nvlink = text(gettext_noop("%(system)s NVLink switch tray (to be priced)"), system=system)
    shelf = text(
        gettext_noop("Rack power shelf, %(kw)s kW, 1U (to be priced)"), kw=POWER_SHELF_W // 1000
    )
    parts = [
        (tray, scale_up.active_trays, 1),
        (spare, scale_up.spare_trays, 1),
        (nvlink, scale_up.nvlink_switch_trays, 1),
        (shelf, scale_up.power_shelves, POWER_SHELF_UNITS),
    ]
    if block.cooling == Cooling.LIQUID:
        manifold = text(gettext_noop("Rack liquid-cooling manifold pair (to be priced)"))
        parts.append((manifold, scale_up.racks, 0))
    for description, quantity, units in parts:
        bom.add(
            sku="",
            description=str(description),
            quantity=quantity,
            power_each=0.0,
            rack_units_each=units,
            plane="compute",
            tier=RACK_TIER,
            category=RACK_CATEGORY,
            gap=description,
        )
    sku, name, typical, maximum = management_switch(catalog)
    bom.add(
        sku=sku,
        description=name,
        quantity=scale_up.management_switches,
        power_each=typical,
        power_max_each=maximum,
        rack_units_each=1,
        plane="compute",
        tier=RACK_TIER,
        category=RACK_CATEGORY,
        gap=None if sku else text(gettext_noop("In-rack management switch (to be priced)")),
    )
