"""The rack-scale fields of a request (`system`, trays, power, cooling), read by `parse_request`
through its field reader: a system's preset fills in what the request leaves out, and a rack
whose active trays draw more than its power is refused naming the field to change."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Protocol

from engine.catalog import CatalogSnapshot
from engine.request.fields import _float_range, _int_range
from engine.request.model import ScaleUpRequest
from engine.request.systems import (
    DEFAULT_RACK_POWER_KW,
    DEFAULT_TRAY_POWER_W,
    MANAGEMENT_SWITCHES_PER_RACK,
    PRESETS,
    Cooling,
    System,
    default_nvlink_switch_trays,
    most_active_trays,
)
from engine.text import Text, gettext_noop, text

SCALE_UP_FIELDS = (
    "system", "trays_per_rack", "active_trays_per_rack", "nvlink_switch_trays", "tray_power_w",
    "rack_power_kw", "cooling",
)  # fmt: skip
# The in-rack management switch the catalog may sell (NVIDIA SN2201, the seed's MSN2201-CB2F);
# `engine.scale_up` puts the same one on the BOM.
MANAGEMENT_SWITCH_SKU = "MSN2201-CB2F"


class _Reader(Protocol):
    data: Mapping[str, object]
    errors: dict[str, Text]

    def fail(self, name: str, message: Text) -> None: ...

    def int_(self, name: str, default: int | None, low: int, high: int) -> int | None: ...

    def float_(self, name: str, default: float | None, low: float, high: float) -> float | None: ...

    def choice(self, name: str, enum: type[StrEnum], default: Any) -> Any: ...


def with_system_defaults(data: Mapping[str, object]) -> Mapping[str, object]:
    """The request with its system's tray figures where it gives none (GPUs, NICs and their
    speed per tray); an unknown system is left for the field check to name."""
    try:
        system = System(str(data.get("system") or "").strip().lower())
    except ValueError:
        return data
    preset = PRESETS[system]
    defaults = {
        "gpus_per_server": preset.gpus_per_tray,
        "rails": preset.nics_per_tray,
        "nic_speed": preset.nic_speed_gbps,
    }
    return {**{k: v for k, v in defaults.items() if k != "nic_speed" or not data.get("nic")},
            **{k: v for k, v in data.items() if v not in (None, "")}}  # fmt: skip


def management_switch_w(catalog: CatalogSnapshot) -> float:
    """The in-rack management switches' maximum draw, when the catalog states it."""
    spec = next((s for s in catalog.switches if s.sku == MANAGEMENT_SWITCH_SKU), None)
    if spec is None:
        return 0.0
    return float(spec.power_max_w or spec.power_typical_w) * MANAGEMENT_SWITCHES_PER_RACK


def parse_scale_up(reader: _Reader, catalog: CatalogSnapshot) -> ScaleUpRequest | None:
    """The rack-scale block, or None when the request names neither a system nor trays."""
    data = reader.data
    if not any(data.get(name) not in (None, "") for name in SCALE_UP_FIELDS):
        return None
    system = reader.choice("system", System, None)
    if system is None and data.get("system") not in (None, ""):
        return None  # a system this planner does not know: its error alone, no others
    preset = PRESETS[system] if system is not None else None
    trays = reader.int_(
        "trays_per_rack", preset.trays_per_rack if preset else None, *_int_range("trays_per_rack")
    )
    nvlink = reader.int_(
        "nvlink_switch_trays",
        preset.nvlink_switch_trays if preset else default_nvlink_switch_trays(trays or 1),
        *_int_range("nvlink_switch_trays"),
    )
    tray_w = reader.int_("tray_power_w", DEFAULT_TRAY_POWER_W, *_int_range("tray_power_w"))
    rack_kw = reader.float_("rack_power_kw", DEFAULT_RACK_POWER_KW, *_float_range("rack_power_kw"))
    cooling = reader.choice("cooling", Cooling, Cooling.LIQUID)
    if trays is None or nvlink is None or tray_w is None or rack_kw is None:
        return None
    fits = most_active_trays(rack_kw * 1000, tray_w, management_switch_w(catalog))
    active = reader.int_(
        "active_trays_per_rack", min(trays, fits) or 1, *_int_range("active_trays_per_rack")
    )
    if active is None:
        return None
    if active > trays:
        reader.fail(
            "active_trays_per_rack",
            text(
                gettext_noop(
                    "active_trays_per_rack (%(active)s) cannot exceed trays_per_rack (%(trays)s)."
                ),
                active=active,
                trays=trays,
            ),
        )
    elif active > fits:
        field = "active_trays_per_rack" if "active_trays_per_rack" in data else "rack_power_kw"
        reader.fail(field, _over_power(active, tray_w, rack_kw, fits))
    return ScaleUpRequest(
        system=system.value if system is not None else "",
        trays_per_rack=trays,
        active_trays_per_rack=active,
        nvlink_switch_trays=nvlink,
        tray_power_w=tray_w,
        rack_power_kw=rack_kw,
        cooling=cooling,
    )


def _over_power(active: int, tray_w: int, rack_kw: float, fits: int) -> Text:
    return text(
        gettext_noop(
            "%(active)s active trays of %(tray)s W draw more than the rack's %(rack)s kW; "
            "run at most %(fits)s, or raise rack_power_kw."
        ),
        active=active,
        tray=tray_w,
        rack=f"{rack_kw:g}",
        fits=fits,
    )
