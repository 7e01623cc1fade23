"""The sizing wizard's steps. Each step is a form over a few request fields; the engine is the one
judge of the values (`parse_request`), and its errors are put back next to the field that caused
them (`add_engine_errors`)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import HttpRequest, QueryDict
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from customers.models import Customer
from customers.selectors import CustomerNotFound, customer_for, customers_visible_to
from engine.catalog import NicSpec
from engine.request import NIC_SPEEDS_GBPS, Fabric, LeafPlacement, MediaPolicy
from planner.forms_pools import POOL_FIELDS, PoolFields, merge_pool, pool_field_of, pool_initial
from planner.forms_rack_scale import (
    RACK_SCALE_FIELDS,
    RackNumber,
    RackScaleFields,
    take_system_trays,
)
from planner.models import Scenario
from planner.selectors import product_names


@dataclass(frozen=True)
class Step:
    key: str
    title: StrOrPromise  # lazy: translated when shown, in the reader's language
    fields: tuple[str, ...]


STEPS: tuple[Step, ...] = (
    Step("customer", _("Customer and scenario"), ("name", "customer", "scenario")),
    Step(
        "gpus",
        _("GPUs and servers"),
        ("gpus", "gpus_per_server", *RACK_SCALE_FIELDS, *POOL_FIELDS),
    ),
    Step(
        "nics",
        _("Planes and NICs"),
        (
            "nic",
            "nic_speed",
            "rails",
            "storage_plane",
            "storage_nic_speed",
            "storage_ports",
            "storage_nodes",
            "storage_oversubscription",
            "frontend_plane",
            "oob_plane",
        ),
    ),
    Step(
        "fabric",
        _("Fabric and switches"),
        (
            "fabric",
            "leaf",
            "spine",
            "core",
            "oversubscription",
            "media",
            "dual_homing",
            "rails_per_plane",
            "servers_per_su",
            "min_spines",
            "oversubscription_tolerance",
            "planes",
            "uplink_speed",
            "build",
        ),
    ),
    Step(
        "racks",
        _("Racks and distances"),
        (
            "servers_per_rack",
            "racks_per_row",
            "rack_width_m",
            "leaf_placement",
            "spine_row_distance_m",
            "cable_slack_m",
            "max_rack_power_w",
        ),
    ),
    Step("review", _("Review"), ()),
)
STEP_KEYS = tuple(step.key for step in STEPS)
META_FIELDS = ("name", "customer", "scenario")
# Form fields that are booleans switching an optional plane on.
PLANE_SWITCHES = {"storage_plane": "storage", "frontend_plane": "frontend", "oob_plane": "oob"}
STORAGE_FIELDS = {
    "storage_nic_speed": "nic_speed",
    "storage_ports": "ports",
    "storage_nodes": "storage_nodes",
    "storage_oversubscription": "oversubscription",
}
LAYOUT_DEFAULTS: dict[str, object] = {
    "servers_per_rack": 4,
    "racks_per_row": 10,
    "rack_width_m": 0.6,
    "spine_row_distance_m": 20,
    "cable_slack_m": 0.5,
    "media": "auto",
    "rails_per_plane": 1,
}

# What each scenario fills in; an expert overrides any of it on the later steps. No scenario
# names a switch: the engine compares the catalog's by priced cost, so a default design is built
# from parts the catalog sells (an inline 64x400 was never priced, issue 26).
SCENARIO_DEFAULTS: dict[str, dict[str, object]] = {
    Scenario.LLM_TRAINING: {
        "gpus": 1024,
        "gpus_per_server": 8,
        "nic_speed": 400,
        "fabric": "rail",
        "oversubscription": "1:1",
        "leaf_placement": "mor",
    },
    Scenario.INFERENCE: {
        "gpus": 256,
        "gpus_per_server": 8,
        "nic_speed": 200,
        "fabric": "tor",
        "oversubscription": "2:1",
        "leaf_placement": "tor",
    },
    Scenario.HPC: {
        "gpus": 512,
        "gpus_per_server": 4,
        "nic_speed": 200,
        "fabric": "rail",
        "oversubscription": "1:1",
        "leaf_placement": "mor",
    },
    Scenario.STORAGE: {
        "gpus": 256,
        "gpus_per_server": 8,
        "nic_speed": 400,
        "fabric": "rail",
        "oversubscription": "1:1",
        "leaf_placement": "mor",
        "storage": {"nic_speed": 200, "ports": 2, "storage_nodes": 16, "oversubscription": 3},
    },
}
REQUEST_KEYS_SET_BY_SCENARIO = frozenset(
    {
        "gpus", "gpus_per_server", "nic_speed", "fabric", "leaf", "oversubscription",
        "leaf_placement", "storage", "rails",
    }
)  # fmt: skip


def scenario_request(scenario: str) -> dict[str, object]:
    return {**LAYOUT_DEFAULTS, **SCENARIO_DEFAULTS.get(scenario, SCENARIO_DEFAULTS["llm_training"])}


def apply_scenario(request_data: Mapping[str, Any], scenario: str) -> dict[str, object]:
    """The request with the scenario's defaults for the choices a scenario decides."""
    kept = {k: v for k, v in request_data.items() if k not in REQUEST_KEYS_SET_BY_SCENARIO}
    return {**scenario_request(scenario), **kept, **SCENARIO_DEFAULTS.get(scenario, {})}


def _number(text: str) -> object:
    """Numbers typed into the form as numbers in the request; anything else as typed, so that the
    engine names the problem."""
    cleaned = text.strip().replace(",", "")
    try:
        return int(cleaned)
    except ValueError:
        pass
    try:
        return float(cleaned)
    except ValueError:
        return text.strip()


def _ratio(value: object) -> str:
    if isinstance(value, Mapping):
        value = value.get("leaf", 1)
    if isinstance(value, int | float):
        return f"{value:g}:1"
    return "" if value is None else str(value)


def _switch_options(catalog: Any, names: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The switch picker's entries: catalog switches named from `names` (the catalog's names in
    the reader's language, by SKU; the snapshot's English name otherwise), then the generic
    switches."""
    names = names or {}
    options = []
    for spec in sorted(catalog.switches, key=lambda s: s.sku):
        ports = " + ".join(f"{g.count}x{g.speed_gbps}G" for g in spec.port_groups)
        options.append((spec.sku, f"{names.get(spec.sku, spec.name)} ({ports})"))
    for text, label in (
        ("64x800", _("Generic 64 x 800G switch (no catalog price)")),
        ("64x400", _("Generic 64 x 400G switch (no catalog price)")),
        ("32x400", _("Generic 32 x 400G switch (no catalog price)")),
        ("48x25", _("Generic 48 x 25G switch (no catalog price)")),
    ):
        options.append((text, str(label)))
    return options


class NumberField(forms.CharField):
    """Kept as text: the engine parses it (commas allowed) and explains what is wrong."""

    def __init__(
        self, *, unit: StrOrPromise = "", step: str = "1", minimum: int = 0, **kwargs: Any
    ) -> None:
        attrs = {"inputmode": "decimal" if step != "1" else "numeric", "min": minimum}
        attrs["step"] = step
        kwargs.setdefault("required", False)
        super().__init__(widget=forms.NumberInput(attrs=attrs), **kwargs)
        self.unit = unit


class WizardStepForm(PoolFields, RackScaleFields):
    name = forms.CharField(
        label=_("Design name"),
        max_length=200,
        required=False,
        help_text=_("How you and the customer will recognise it, e.g. “Phase 1 training pod”."),
    )
    customer = forms.ModelChoiceField(
        label=_("Customer"),
        queryset=Customer.objects.none(),
        required=False,
        empty_label=_("No customer yet"),
        help_text=_("Optional; a quote needs one later."),
    )
    scenario = forms.ChoiceField(
        label=_("Scenario"),
        choices=Scenario.choices,
        help_text=_(
            "Fills in sensible defaults: training uses a rail-optimized 1:1 fabric at 400G, "
            "inference a top-of-rack 2:1 fabric, HPC a non-blocking fabric, storage adds a "
            "storage plane. Changing it resets those choices."
        ),
    )
    gpus = NumberField(
        label=_("GPUs"),
        minimum=1,
        help_text=_("Total GPUs in the cluster, a multiple of the GPUs per server."),
    )
    gpus_per_server = NumberField(
        label=_("GPUs per server"),
        minimum=1,
        help_text=_("8 for HGX/DGX-class servers, 4 for many PCIe servers."),
    )
    nic = forms.ChoiceField(
        label=_("Compute NIC"),
        required=False,
        help_text=_(
            "A catalog NIC sets the port speed and cage and adds it to the bill of materials; "
            "or set only the speed."
        ),
    )
    nic_speed = forms.TypedChoiceField(
        label=_("Compute NIC port speed"),
        coerce=int,
        required=False,
        choices=[(s, f"{s} Gbps") for s in NIC_SPEEDS_GBPS],
        help_text=_("Gbps per port; 400 for current training clusters."),
    )
    rails = NumberField(
        label=_("Compute ports per server (rails)"),
        unit=_("ports"),
        minimum=1,
        help_text=_("Ports per server on the compute fabric; empty = one per GPU."),
    )
    storage_plane = forms.BooleanField(
        label=_("Storage plane"),
        required=False,
        help_text=_("A separate fabric from the servers to the storage nodes."),
    )
    storage_nic_speed = forms.TypedChoiceField(
        label=_("Storage NIC port speed"),
        coerce=int,
        required=False,
        choices=[(s, f"{s} Gbps") for s in NIC_SPEEDS_GBPS if s >= 10],
        help_text=_("Gbps per storage port; 200 is common."),
    )
    storage_ports = NumberField(
        label=_("Storage ports per server"),
        unit=_("ports"),
        minimum=1,
        help_text=_("Usually 2 (one dual-port NIC)."),
    )
    storage_nodes = NumberField(
        label=_("Storage nodes"),
        unit=_("nodes"),
        help_text=_("Storage servers on the storage plane, each with 2 ports."),
    )
    storage_oversubscription = NumberField(
        label=_("Storage oversubscription"),
        unit=":1",
        step="0.5",
        minimum=1,
        help_text=_("Downlink:uplink bandwidth at the storage leaves; 3 means 3:1."),
    )
    frontend_plane = forms.BooleanField(
        label=_("Frontend (business) plane"),
        required=False,
        help_text=_("2 x 100G per server to the data-centre network, 2:1."),
    )
    oob_plane = forms.BooleanField(
        label=_("Out-of-band management plane"),
        required=False,
        help_text=_("One 1G BMC port per server on 48-port management switches."),
    )
    fabric = forms.ChoiceField(
        label=_("Fabric style"),
        required=False,
        choices=[
            ("", _("Let the engine choose (cheapest)")),
            (Fabric.RAIL.value, _("Rail-optimized (any-to-any)")),
            (Fabric.RAIL_PLANE.value, _("Rail planes (spines split per rail)")),
            (Fabric.TOR.value, _("Top-of-rack")),
        ],
        help_text=_("Rail-optimized suits training; top-of-rack suits inference and general use."),
    )
    leaf = forms.CharField(
        label=_("Leaf switch"),
        required=False,
        help_text=_(
            "A catalog SKU or PORTSxSPEED such as 64x400 (ports x Gbps); empty = the engine "
            "compares the catalog's switches."
        ),
    )
    spine = forms.CharField(
        label=_("Spine switch"),
        required=False,
        help_text=_("Empty = same as the leaf."),
    )
    core = forms.CharField(
        label=_("Core switch"),
        required=False,
        help_text=_("Used only when two tiers do not reach; empty = same as the spine."),
    )
    oversubscription = forms.CharField(
        label=_("Leaf oversubscription"),
        required=False,
        help_text=_(
            "Downlink:uplink bandwidth, e.g. 1:1 (non-blocking), 2:1, 3:1; empty = compare."
        ),
    )
    # The request's field is `media`; the form metaclass takes declared fields out of the class,
    # so Form.media (the widgets' assets) stays intact at run time.
    media = forms.ChoiceField(  # type: ignore[assignment]
        label=_("Media policy"),
        choices=[
            (MediaPolicy.AUTO.value, _("Automatic: the cheapest media that fits and reaches")),
            (MediaPolicy.COPPER.value, _("Copper only (DAC/AEC)")),
            (MediaPolicy.OPTICAL.value, _("Optical only")),
            (MediaPolicy.MMF.value, _("Multimode optics only")),
            (MediaPolicy.SMF.value, _("Single-mode optics only")),
        ],
        help_text=_("Chosen per link by length and speed from the catalog's reach limits."),
    )
    dual_homing = forms.BooleanField(
        label=_("Dual-home servers to a leaf pair"),
        required=False,
        help_text=_("Top-of-rack only; the ports per server must be even."),
    )
    rails_per_plane = NumberField(
        label=_("Rails per spine plane"),
        unit=_("rails"),
        minimum=1,
        help_text=_("Rail planes only: rails sharing one spine plane; must divide the rails."),
    )
    servers_per_su = NumberField(
        label=_("Servers per scalable unit"),
        unit=_("servers"),
        minimum=1,
        help_text=_("Empty: as many as one leaf serves at the oversubscription asked for."),
    )
    min_spines = NumberField(
        label=_("Fewest spines"),
        unit=_("spines"),
        minimum=1,
        help_text=_("Two by default, so no single spine carries the fabric; 1 allows one."),
    )
    oversubscription_tolerance = NumberField(
        label=_("Oversubscription tolerance"),
        unit="%",
        help_text=_(
            "How far above the ratio asked for a design may go when that saves a tier or "
            "switches (with 10 %, 1:1 may become 1.065:1); empty or 0 = the ratio is a ceiling."
        ),
    )
    planes = NumberField(
        label=_("Compute planes"),
        unit=_("planes"),
        minimum=1,
        help_text=_(
            "Rail-optimized only: identical planes the server's ports are split over; must "
            "divide the ports. Empty = the engine weighs more planes for servers with more "
            "ports than GPUs."
        ),
    )
    uplink_speed = NumberField(
        label=_("Leaf-to-spine speed"),
        unit="Gbps",
        help_text=_(
            "Empty = every speed both tiers run is sized and the fewest switches, then the "
            "fewest links, win."
        ),
    )
    build = forms.ChoiceField(
        label=_("Partial units"),
        required=False,
        choices=[
            ("", _("Built for growth: a partial unit gets every leaf uplink (default)")),
            ("today", _("Minimum for today: servers spread evenly over the units")),
        ],
        help_text=_("Minimum for today buys fewer uplinks and spines; growing then recables."),
    )
    servers_per_rack = NumberField(
        label=_("Servers per rack"),
        unit=_("servers"),
        minimum=1,
        help_text=_("Limited by rack power and cooling; 4 for 8-GPU servers in a 40 kW rack."),
    )
    racks_per_row = NumberField(
        label=_("Racks per row"), unit=_("racks"), minimum=1, help_text=_("Compute racks per row.")
    )
    rack_width_m = NumberField(
        label=_("Rack width"),
        unit="m",
        step="0.1",
        help_text=_("Metres; 0.6 for a standard rack, 0.8 for wide network racks."),
    )
    leaf_placement = forms.ChoiceField(
        label=_("Leaf placement"),
        choices=[
            (LeafPlacement.TOR.value, _("Top of rack")),
            (LeafPlacement.MOR.value, _("Middle of row")),
            (LeafPlacement.EOR.value, _("End of row")),
            (LeafPlacement.NETWORK_RACK.value, _("Dedicated network racks")),
        ],
        help_text=_("Where the leaf switches stand; sets the server-to-leaf cable lengths."),
    )
    spine_row_distance_m = NumberField(
        label=_("Distance to the spine row"),
        unit="m",
        step="any",
        help_text=_("Metres of cable route from a compute row to the spine/core row."),
    )
    cable_slack_m = NumberField(
        label=_("Slack per cable"),
        unit="m",
        step="any",
        help_text=_("Metres added to each cable for dressing; lengths round up to stock."),
    )
    max_rack_power_w = NumberField(
        label=_("Rack power limit"),
        unit="W",
        help_text=_("Watts of network equipment per rack before a warning; empty = no limit."),
    )

    def __init__(
        self,
        step: Step,
        *args: Any,
        catalog: Any = None,
        customers: Any = None,
        request: HttpRequest | None = None,
        **kwargs: Any,
    ) -> None:
        """With `request`, the customers offered are the ones its user sees (customers.selectors),
        and `?customer=<id>` (a customer just created through the wizard's "New customer" link)
        is preselected. `customers` is the older way to pass the choices, kept while views move."""
        super().__init__(*args, **kwargs)
        self.step = step
        self.catalog = catalog
        nic = self._chosen_nic()
        if nic is not None and "nic_speed" in step.fields:
            # A NIC runs at its own speed only: the page shows it again with that speed, not
            # the one the speed picker still held (the scenario's 400G for a 200G NIC).
            data = self.data.copy() if isinstance(self.data, QueryDict) else dict(self.data)
            data["nic_speed"] = str(nic.speed_gbps)
            self.data = data
        for name in list(self.fields):
            if name not in step.fields:
                del self.fields[name]
        # In the step's order: fields of the base forms (rack-scale, pools) come first otherwise.
        self.order_fields(step.fields)
        if "customer" in self.fields:
            field = self.fields["customer"]
            assert isinstance(field, forms.ModelChoiceField)
            if request is not None:
                customers = customers_visible_to(request.user)
            field.queryset = customers if customers is not None else Customer.objects.none()
            customer_id = request.GET.get("customer") if request is not None else None
            if request is not None and customer_id and not self.is_bound:
                # A stale or foreign id in the URL preselects nothing.
                with contextlib.suppress(CustomerNotFound):
                    chosen = customer_for(user=request.user, customer_id=customer_id)
                    self.initial["customer"] = chosen.pk
        # The snapshot names products in English only; the reader's names come from the
        # catalog, read here (not at import) so the active language is the request's, and in
        # one query for both pickers.
        names: Mapping[str, str] = {}
        if catalog is not None:
            skus = [spec.sku for spec in catalog.switches]
            if "nic" in self.fields:
                skus += [nic.sku for nic in catalog.nics]
            names = product_names(skus)
        if "nic" in self.fields and catalog is not None:
            choice = self.fields["nic"]
            assert isinstance(choice, forms.ChoiceField)
            choice.choices = [("", _("No specific product: use the speed below"))] + [
                (
                    nic.sku,
                    f"{nic.sku}: {names.get(nic.sku, nic.name)} ({nic.ports} x {nic.speed_gbps}G)",
                )
                for nic in sorted(catalog.nics, key=lambda n: (n.speed_gbps, n.sku))
            ]
        self.switch_options = _switch_options(catalog, names) if catalog is not None else []
        for name in ("leaf", "spine", "core"):
            if name in self.fields:
                self.fields[name].widget.attrs.update(list="switch-options", autocomplete="off")
        if "oversubscription" in self.fields:
            self.fields["oversubscription"].widget.attrs.update(list="ratio-options")
        for name, field in self.fields.items():
            attrs = field.widget.attrs
            described = [f"help-{name}", f"err-{name}"]
            attrs["aria-describedby"] = " ".join(described)
        self.engine_errors_elsewhere: dict[str, str] = {}

    # --- request <-> form -------------------------------------------------------------------

    @staticmethod
    def initial_from(design_request: Mapping[str, Any]) -> dict[str, object]:
        data: dict[str, object] = {**LAYOUT_DEFAULTS}
        for key, value in design_request.items():
            if key in ("storage", "frontend", "oob", "pools"):
                continue
            data[key] = value
        data.update(pool_initial(design_request))
        data["oversubscription"] = _ratio(design_request.get("oversubscription"))
        tolerance = design_request.get("oversubscription_tolerance")
        if isinstance(tolerance, int | float):
            data["oversubscription_tolerance"] = f"{tolerance * 100:g}"  # a fraction shown in %
        storage = design_request.get("storage")
        data["storage_plane"] = bool(storage)
        storage_values = storage if isinstance(storage, Mapping) else {}
        defaults = {"nic_speed": 200, "ports": 2, "storage_nodes": 0, "oversubscription": 3}
        for field, key in STORAGE_FIELDS.items():
            data[field] = storage_values.get(key, defaults[key])
        data["frontend_plane"] = bool(design_request.get("frontend"))
        data["oob_plane"] = bool(design_request.get("oob"))
        return data

    def _chosen_nic(self) -> NicSpec | None:
        """The catalog NIC this step posts, if it posts one the catalog has."""
        if not self.is_bound or "nic" not in self.step.fields or self.catalog is None:
            return None
        sku = str(self.data.get("nic", "")).strip().lower()
        return next((nic for nic in self.catalog.nics if nic.sku.lower() == sku), None)

    def request_values(self) -> dict[str, object]:
        """This step's values as request fields (empty text = the engine's default). A catalog
        NIC sets the speed: it has one port speed (and its cage, which the request's `nic`
        carries), and the speed picker beside it may still hold another (issue 26, item 4:
        choosing a 200G NIC left 400G asked for, and no design fitted)."""
        values: dict[str, object] = {}
        source = self.data
        for name in self.fields:
            if name in META_FIELDS or name in STORAGE_FIELDS or name in PLANE_SWITCHES:
                continue
            if name in POOL_FIELDS:  # one request field, `pools` (merge_into)
                continue
            field = self.fields[name]
            if isinstance(field, forms.BooleanField):
                values[name] = name in source and source.get(name) not in ("", "false", "off")
                continue
            raw = str(source.get(name, "")).strip()
            if raw == "":
                values[name] = None
            elif name == "oversubscription_tolerance":
                number = _number(raw)  # typed in %, a fraction in the request
                values[name] = number / 100 if isinstance(number, int | float) else number
            elif isinstance(field, NumberField | RackNumber | forms.TypedChoiceField):
                values[name] = _number(raw)
            else:
                values[name] = raw
        nic = self._chosen_nic()
        if nic is not None and "nic_speed" in values:
            values["nic_speed"] = nic.speed_gbps
        return values

    def merge_into(self, design_request: Mapping[str, Any]) -> dict[str, object]:
        """The whole request with this step's fields replaced by what was posted."""
        merged = dict(design_request)
        for key, value in self.request_values().items():
            if value is None or (value is False and key == "dual_homing"):
                merged.pop(key, None)
            else:
                merged[key] = value
        if "system" in self.fields:
            take_system_trays(merged, design_request, self.data)
        if "pool_gpus" in self.fields:
            merge_pool(merged, design_request, self.data)
        if "storage_plane" in self.fields:
            for switch, plane in PLANE_SWITCHES.items():
                on = self.data.get(switch) not in (None, "", "false", "off")
                if not on:
                    merged.pop(plane, None)
                elif plane == "storage":
                    storage: dict[str, object] = {}
                    previous = design_request.get("storage")
                    if isinstance(previous, Mapping):
                        storage.update(previous)
                    for field, key in STORAGE_FIELDS.items():
                        raw = str(self.data.get(field, "")).strip()
                        if raw:
                            storage[key] = _number(raw)
                        else:
                            storage.pop(key, None)
                    merged["storage"] = storage
                elif not merged.get(plane):
                    merged[plane] = True
        return merged

    def add_engine_errors(self, errors: Mapping[str, str]) -> None:
        """Engine field keys ("gpus", "storage.nic_speed", "oversubscription.leaf") to the form
        field that caused them; errors about fields of other steps are kept aside."""
        for key, message in errors.items():
            name = engine_key_to_field(key)
            if name in self.fields:
                if name not in self.errors:
                    self.add_error(name, message)
            else:
                self.engine_errors_elsewhere[key] = message

    def fields_with_units(self) -> list[tuple[Any, str]]:
        return [(self[name], getattr(self.fields[name], "unit", "")) for name in self.fields]


def engine_key_to_field(key: str) -> str:
    pool_field = pool_field_of(key)
    if pool_field is not None:
        return pool_field
    head, _sep, tail = key.partition(".")
    if head == "storage":
        return {v: k for k, v in STORAGE_FIELDS.items()}.get(tail, "storage_plane")
    if head in ("frontend", "oob"):
        return f"{head}_plane"
    return head


def step_of_field(name: str) -> Step | None:
    return next((step for step in STEPS if name in step.fields), None)


def step_by_key(key: str) -> Step | None:
    return next((step for step in STEPS if step.key == key), None)
