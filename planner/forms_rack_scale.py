"""The wizard's rack-scale fields (issue 28, item 1): a system whose racks are one NVLink
domain (NVL72-class), its trays, power and cooling. A base of `forms.WizardStepForm`, kept
apart so the wizard's module stays within its size; the engine judges every value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from engine.request.systems import Cooling, System

RACK_SCALE_FIELDS = (
    "system", "trays_per_rack", "active_trays_per_rack", "nvlink_switch_trays", "tray_power_w",
    "rack_power_kw", "cooling",
)  # fmt: skip
# What a system fills in (engine.request.systems.PRESETS): choosing one on the page replaces
# the 8-GPU server the scenario filled in with the system's tray.
TRAY_FIELDS = ("gpus_per_server", "rails", "nic_speed")


class RackNumber(forms.CharField):
    """Kept as text, as the wizard's NumberField: the engine parses it and names what is
    wrong."""

    def __init__(
        self, label: StrOrPromise, unit: StrOrPromise, help_text: StrOrPromise, step: str = "1"
    ) -> None:
        attrs = {"inputmode": "decimal" if step != "1" else "numeric", "min": 0, "step": step}
        super().__init__(
            label=label, required=False, help_text=help_text, widget=forms.NumberInput(attrs=attrs)
        )
        self.unit = unit


class RackScaleFields(forms.Form):
    system = forms.ChoiceField(
        label=_("Rack-scale system"),
        required=False,
        choices=[
            ("", _("None: GPU servers")),
            (System.GB200_NVL72.value, "NVIDIA GB200 NVL72"),
            (System.GB300_NVL72.value, "NVIDIA GB300 NVL72"),
        ],
        help_text=_(
            "A rack that is one NVLink domain: each server is a compute tray (4 GPUs, 4 NICs "
            "at 400G for GB200, 800G for GB300); the fields below change its racks."
        ),
    )
    trays_per_rack = RackNumber(
        _("Compute trays per rack"), _("trays"), _("Empty: 18 with a system.")
    )
    active_trays_per_rack = RackNumber(
        _("Active trays per rack"),
        _("trays"),
        _("Trays that run; the others stay in the rack as spares. Empty: as many as it feeds."),
    )
    nvlink_switch_trays = RackNumber(
        _("NVLink switch trays per rack"), _("trays"), _("Empty: one per two compute trays.")
    )
    tray_power_w = RackNumber(
        _("Power per active tray"),
        "W",
        _("All in: the tray, its NICs and its share of the NVLink switch trays. Empty: 5,400."),
    )
    rack_power_kw = RackNumber(
        _("Rack power budget"),
        "kW",
        _("What one rack may draw; power shelves are sized for it twice. Empty: 132."),
        step="any",
    )
    cooling = forms.ChoiceField(
        label=_("Rack cooling"),
        required=False,
        choices=[
            ("", _("Liquid (default)")),
            (Cooling.LIQUID.value, _("Liquid: cold plates and a manifold per rack")),
            (Cooling.AIR.value, _("Air")),
        ],
        help_text=_("NVL72-class racks are liquid-cooled."),
    )


def take_system_trays(
    merged: dict[str, object], previous: Mapping[str, Any], posted: Mapping[str, Any]
) -> None:
    """A system chosen now (not before) brings its own tray: the GPUs, NICs and speed the page
    still held for a server are dropped so that the engine fills in the system's. A system
    taken away takes its rack fields with it: the racks hold servers again."""
    chosen, before = str(posted.get("system") or ""), str(previous.get("system") or "")
    if chosen and chosen != before:
        for name in TRAY_FIELDS:
            merged.pop(name, None)
    elif before and not chosen:
        for name in (*RACK_SCALE_FIELDS, "servers_per_rack"):
            merged.pop(name, None)
