"""Preferring what the catalog sells (issue 26, item 1): among the leaf-to-spine speeds a
request leaves open, a design built from catalog parts alone wins over one that needs generic
stand-ins."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from decimal import Decimal

from engine.catalog import CatalogSnapshot
from engine.design import Design
from engine.errors import DesignError
from engine.fabric import uplink_speeds
from engine.notes import _switch_count
from engine.plane_models import _compute_models
from engine.ports import unsplit
from engine.request import DesignRequest
from engine.request.model import SwitchChoice
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
    """`_size`, preferring what the catalog sells: when the design needs generic stand-ins, the
    leaf-to-spine speeds the request leaves open are sized too, and so is the leaf with the
    ports that break out to the NICs' speed run one link each (`unsplit`: a 200G NIC on a
    400G QSFP-DD port through a QSFP56 module instead of a 2 x 200G breakout optic nobody
    lists), and the spines' cages at the uplinks' speed likewise (`_too_dear` says when not).
    The one with the fewest stand-in parts wins (among those built from catalog parts
    alone, the fewest switches, then the lowest cost per GPU). An 800G uplink the catalog has
    no optic for loses to 2 x 400G on the twin-port modules it sells: the H100 SuperPOD's own
    choice, fully priced. At equal stand-ins, the fabric's choice (fewest switches) stands."""
    design = _size(request, catalog, prices)
    if not _stand_ins(design):
        return design
    best, best_key = design, _key(design)
    for variant in _variants(request, design):
        try:
            other = _size(variant, catalog, prices)
        except DesignError:
            continue
        if _too_dear(variant, request, other, design):
            continue
        # Fewer parts to price by hand first: where a long run needs a stand-in at every speed
        # (a 1 km spine-core trunk), the speed with catalog optics elsewhere still wins.
        key = _key(other)
        if key[0] < best_key[0] or (key[0] == best_key[0] == 0 and key < best_key):
            best, best_key = other, key
    return best


def _too_dear(
    variant: DesignRequest, request: DesignRequest, other: Design, design: Design
) -> bool:
    """Whether an unsplit variant costs more than the stand-in it removes can be worth.

    Leaves whose cages take one NIC each instead of two (a 200G NIC on a 400G port) need
    more leaves whatever is bought, and what they replace is a 2 x 200G-SR4 QSFP-DD optic no
    vendor lists: taken unless it adds a tier (every path a hop longer is not a media choice).
    Spines whose cages take one uplink each replace an MPO-to-LC harness, a passive part many
    sell: taken only when it costs no switch (at 4,096 GPUs under 400G spines, 352 switches
    became 640, 70 M CNY for 1,024 harnesses), else the harness stays, to be priced."""
    more_tiers = other.compute.shape.tiers > design.compute.shape.tiers
    if variant.spine is not request.spine:
        return more_tiers or _switch_count(other) > _switch_count(design)
    return variant.leaf is not request.leaf and more_tiers


def _key(design: Design) -> tuple[int, int, Decimal]:
    """Fewest stand-in parts, then fewest switches, then lowest cost per GPU."""
    cost = design.cost / design.gpus if design.cost is not None else Decimal(0)
    return (_stand_ins(design), _switch_count(design), cost)


def _variants(request: DesignRequest, design: Design) -> Iterator[DesignRequest]:
    """The requests to size beside `request`: each leaf-to-spine speed it leaves open, then its
    leaf unsplit at the NICs' speed (at the request's speed and at each open one), then its
    spines unsplit at the uplinks' speed."""
    shape = design.compute.shape
    open_speeds = request.uplink_speed_gbps is None and shape.tiers >= 2
    if open_speeds:
        yield from _speeds(request, skip=shape.uplink_speed_gbps, floor=shape.nic_speed_gbps)
    if request.leaf is None or request.leaf.model.sku is None:
        return  # an inline spec's breakouts are what the user described, not a port mode to try
    flat = unsplit(request.leaf.model, shape.nic_speed_gbps)
    if flat is not None:
        unsplit_request = replace(request, leaf=SwitchChoice(text=request.leaf.text, model=flat))
        yield unsplit_request
        if open_speeds:
            yield from _speeds(unsplit_request, skip=None, floor=shape.nic_speed_gbps)
    spine = request.spine or request.leaf
    up = shape.uplink_speed_gbps
    flat_spine = unsplit(spine.model, up) if shape.tiers >= 2 and spine.model.sku else None
    if flat_spine is not None:
        # The spines' cages at the leaves' uplink speed, one link each (a 100G leaf's QSFP28
        # module in a 400G QSFP-DD spine cage, where 4 x 100G-DR would need a harness).
        yield replace(
            request,
            spine=SwitchChoice(text=spine.text, model=flat_spine),
            uplink_speed_gbps=up,
        )


def _speeds(request: DesignRequest, *, skip: int | None, floor: int) -> Iterator[DesignRequest]:
    models = _compute_models(request)
    for speed in uplink_speeds(models.leaf, models.spine, floor):
        if speed != skip:
            yield replace(request, uplink_speed_gbps=speed)
