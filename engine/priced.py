"""Preferring what the catalog sells (issue 26, item 1): among the leaf-to-spine speeds a
request leaves open, a design built from catalog parts alone wins over one that needs generic
stand-ins."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal

from engine.catalog import CatalogSnapshot
from engine.design import Design
from engine.errors import DesignError
from engine.fabric import uplink_speeds
from engine.notes import _switch_count
from engine.plane_models import _compute_models
from engine.request import DesignRequest
from engine.sizing import _size


def _stand_ins(design: Design) -> int:
    """Stand-in parts to price by hand, counted as bought (a line of 1,024 modules weighs
    1,024): a design whose only gap is a long trunk beats one with generic modules throughout."""
    return sum(line.quantity for line in design.bom if line.catalog_gap)


def size_priced(
    request: DesignRequest,
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal] | None = None,
) -> Design:
    """`_size`, preferring what the catalog sells: when the design needs generic stand-ins and
    the request leaves the leaf-to-spine speed open, each other speed both tiers run is sized
    too, and the one with the fewest stand-in parts wins (among those built from catalog parts
    alone, the fewest switches, then the lowest cost per GPU). An 800G uplink the catalog has
    no optic for loses to 2 x 400G on the twin-port modules it sells: the H100 SuperPOD's own
    choice, fully priced. At equal stand-ins, the fabric's choice (fewest switches) stands."""
    design = _size(request, catalog, prices)
    if request.uplink_speed_gbps is not None or not _stand_ins(design):
        return design
    shape = design.compute.shape
    if shape.tiers < 2:
        return design
    models = _compute_models(request)
    best, best_key = design, (_stand_ins(design), *_priced_key(design))
    for speed in uplink_speeds(models.leaf, models.spine, shape.nic_speed_gbps):
        if speed == shape.uplink_speed_gbps:
            continue
        try:
            other = _size(replace(request, uplink_speed_gbps=speed), catalog, prices)
        except DesignError:
            continue
        # Fewer parts to price by hand first: where a long run needs a stand-in at every speed
        # (a 1 km spine-core trunk), the speed with catalog optics elsewhere still wins.
        key = (_stand_ins(other), *_priced_key(other))
        if key[0] < best_key[0] or (key[0] == best_key[0] == 0 and key < best_key):
            best, best_key = other, key
    return best


def _priced_key(design: Design) -> tuple[int, Decimal]:
    switches = _switch_count(design)
    cost = design.cost / design.gpus if design.cost is not None else Decimal(0)
    return (switches, cost)
