"""A rack-scale (NVL72-class) compute rack as it stands: power shelves at the bottom and top,
compute trays below and above the NVLink switch trays, spare trays after the active ones, the
in-rack management switches above them (the DGX GB200 rack's front view: trays in two groups
around the switch trays, https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html).

Kept apart from `elevations` (which calls it) so the server racks' placement stays as it was."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from engine.design import Design
from engine.request.systems import POWER_SHELF_UNITS
from engine.scale_up import RACK_CATEGORY
from engine.text import Text, gettext_noop, text


class _Placed(Protocol):
    @property
    def name(self) -> str: ...


class _RackLike(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def power_max_w(self) -> int: ...


T = TypeVar("T", bound=_Placed)
# (name, model, role, units, watts) -> the caller's device
Make = Callable[[str, str, str, int, float], T]


def _management_switch(design: Design) -> tuple[str, float]:
    """The in-rack management switch's model and maximum watts, from its BOM line."""
    line = next(
        (
            line
            for line in design.bom
            if line.category == RACK_CATEGORY and "management switch" in line.description
        ),
        None,
    )
    if line is None:
        return "management switch", 0.0
    return line.sku or line.description, max(line.power_max_w, line.power_w) / max(line.quantity, 1)


def rack_scale_stack(design: Design, rack: str, trays: list[T], make: Make[T]) -> list[T]:
    """Every part of rack `rack` bottom up; `trays` are its active trays (the servers placed
    in it), the rest of its tray slots are spares."""
    up = design.scale_up
    assert up is not None
    system = up.system or "rack-scale"
    spares = [
        make(f"{rack}-spare{k + 1}", f"{system} compute tray (spare)", "spare_tray", 1, 0.0)
        for k in range(max(up.trays_per_rack - len(trays), 0))
    ]
    all_trays: Sequence[T] = [*trays, *spares]
    nvlink = [
        make(f"{rack}-nvsw{k + 1}", f"{system} NVLink switch tray", "nvlink_switch", 1, 0.0)
        for k in range(up.nvlink_switch_trays_per_rack)
    ]
    shelves = [
        make(f"{rack}-ps{k + 1}", "power shelf, 33 kW", "power_shelf", POWER_SHELF_UNITS, 0.0)
        for k in range(up.power_shelves_per_rack)
    ]
    model, watts = _management_switch(design)
    management = [
        make(f"{rack}-mgmt{k + 1}", model, "management_switch", 1, watts)
        for k in range(up.management_switches_per_rack)
    ]
    lower = len(all_trays) // 2
    half = len(shelves) // 2
    return [
        *shelves[:half],
        *all_trays[:lower],
        *nvlink,
        *all_trays[lower:],
        *shelves[half:],
        *management,
    ]


def rack_scale_warnings(design: Design, racks: Sequence[_RackLike]) -> tuple[Text, ...]:
    """A rack-scale rack drawing more than its power shelves' budget (leaves placed in it, or
    servers' figures given above the trays')."""
    up = design.scale_up
    if up is None:
        return ()
    return tuple(
        text(
            gettext_noop(
                "Rack %(rack)s draws up to %(power)s W, above the %(limit)s W its power shelves "
                "feed: run fewer trays in it or move its switches."
            ),
            rack=rack.name,
            power=rack.power_max_w,
            limit=up.rack_power_limit_w,
        )
        for rack in racks
        if rack.kind == "compute" and rack.power_max_w > up.rack_power_limit_w
    )
