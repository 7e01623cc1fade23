"""The wizard's second pool (issue 28: heterogeneous pools): another kind of server on the same
compute fabric, e.g. 8-GPU servers beside rack-scale trays, or 200G NICs beside 400G. The
wizard asks for one; the API, the CLI and a request file take up to `MAX_POOLS`. A base of
`forms.WizardStepForm`, kept apart so the wizard's module stays within its size; the engine
judges every value (engine.request.pool_parse)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from planner.forms_rack_scale import RackNumber

# Form field -> the pool's request option.
POOL_FIELDS = {
    "pool_gpus": "gpus",
    "pool_gpus_per_server": "gpus_per_server",
    "pool_rails": "rails",
    "pool_nic_speed": "nic_speed",
    "pool_servers_per_rack": "servers_per_rack",
}


class PoolFields(forms.Form):
    pool_gpus = RackNumber(
        _("Second pool: GPUs"),
        "",
        _(
            "Another kind of server on the same fabric, its leaves sharing the spines (e.g. "
            "8-GPU servers beside rack-scale racks). Empty: one kind of server."
        ),
    )
    pool_gpus_per_server = RackNumber(_("Second pool: GPUs per server"), _("GPUs"), _("Empty: 8."))
    pool_rails = RackNumber(_("Second pool: NICs per server"), _("NICs"), _("Empty: one per GPU."))
    pool_nic_speed = forms.TypedChoiceField(
        label=_("Second pool: NIC speed"),
        required=False,
        coerce=int,
        choices=[("", _("400G (default)"))] + [(s, f"{s}G") for s in (800, 400, 200, 100, 50, 25)],
        help_text=_("Each pool's links are sized and priced at its own NICs' speed."),
    )
    pool_servers_per_rack = RackNumber(
        _("Second pool: servers per rack"), _("servers"), _("Empty: 4.")
    )


def pool_initial(design_request: Mapping[str, Any]) -> dict[str, object]:
    """The first of the request's pools, as the wizard's fields."""
    pools = design_request.get("pools")
    first = pools[0] if isinstance(pools, list) and pools and isinstance(pools[0], Mapping) else {}
    return {field: first.get(key) for field, key in POOL_FIELDS.items() if key in first}


def merge_pool(
    merged: dict[str, object], previous: Mapping[str, Any], posted: Mapping[str, Any]
) -> None:
    """The posted pool in place of the request's first; its GPUs left empty take it away. Pools
    set through the API beyond the first are kept."""
    before = previous.get("pools")
    rest = list(before[1:]) if isinstance(before, list) else []
    pool: dict[str, object] = {}
    for field, key in POOL_FIELDS.items():
        raw = str(posted.get(field, "")).strip()
        if raw:
            pool[key] = _number(raw)
    if pool.get("gpus") not in (None, ""):
        merged["pools"] = [pool, *rest]
    elif rest:
        merged["pools"] = rest
    else:
        merged.pop("pools", None)


def _number(raw: str) -> object:
    try:
        return int(raw)
    except ValueError:
        return raw  # the engine names what is wrong with it


def pool_field_of(key: str) -> str | None:
    """The wizard field an engine error about the pools ("pools.0.nic_speed") belongs to."""
    head, _sep, tail = key.partition(".")
    if head != "pools":
        return None
    index, _sep, option = tail.partition(".")
    if index == "0":
        return {v: k for k, v in POOL_FIELDS.items()}.get(option, "pool_gpus")
    return "pool_gpus"
