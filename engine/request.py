"""What a sales engineer asks for, validated against the catalog.

`parse_request` takes the same mapping whether it came from the CLI, the REST API or a saved JSON
file (field names are the CLI option names with underscores) and returns a `DesignRequest`, or
raises `RequestError` with one sentence per offending field."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.catalog import CatalogSnapshot, FormFactor, Lifecycle, NicSpec, SwitchSpec
from engine.ports import SwitchModel, catalog_model, inline_model, parse_inline
from engine.text import Text, gettext_noop, text

MAX_GPUS = 1_000_000
NIC_SPEEDS_GBPS = (1, 10, 25, 50, 100, 200, 400, 800)
MAX_OVERSUBSCRIPTION = 64


class Fabric(StrEnum):
    RAIL = "rail"
    RAIL_PLANE = "rail-plane"
    TOR = "tor"


class MediaPolicy(StrEnum):
    AUTO = "auto"
    COPPER = "copper"
    OPTICAL = "optical"
    MMF = "mmf"  # multimode optics only
    SMF = "smf"  # single-mode optics only


class Build(StrEnum):
    """How a partial scalable unit is built (issue 13, item 4)."""

    GROWTH = "growth"  # full units; the last one partial, with every leaf uplink (the default)
    TODAY = "today"  # servers spread evenly over as few units as hold them: least to buy now


class LeafPlacement(StrEnum):
    TOR = "tor"
    MOR = "mor"
    EOR = "eor"
    NETWORK_RACK = "network-rack"


class RequestError(ValueError):
    """Invalid request. `errors` maps each offending field to one human sentence."""

    def __init__(self, errors: Mapping[str, str | Text]) -> None:
        # `texts` keeps each message translatable (engine.text); `errors` is English.
        self.texts: dict[str, Text] = {
            key: message if isinstance(message, Text) else Text(message)
            for key, message in sorted(errors.items())
        }
        self.errors: dict[str, str] = {key: str(message) for key, message in self.texts.items()}
        super().__init__("; ".join(f"{key}: {msg}" for key, msg in self.errors.items()))


@dataclass(frozen=True, kw_only=True)
class SwitchChoice:
    """A tier's switch as the user wrote it, and what it resolved to."""

    text: str
    model: SwitchModel


@dataclass(frozen=True, kw_only=True)
class Oversubscription:
    """Target downlink:uplink bandwidth per tier (1.0 = non-blocking)."""

    leaf: float = 1.0
    spine: float = 1.0


@dataclass(frozen=True, kw_only=True)
class Layout:
    servers_per_rack: int = 4
    rack_width_m: float = 0.6
    racks_per_row: int = 10
    leaf_placement: LeafPlacement = LeafPlacement.MOR
    spine_row_distance_m: float = 20.0
    cable_slack_m: float = 0.5
    max_rack_power_w: int | None = None


@dataclass(frozen=True, kw_only=True)
class PlaneRequest:
    """An optional plane (storage, frontend, out-of-band): its own NIC ports and switches."""

    name: str
    nic_speed_gbps: int
    ports: int  # per GPU server
    nic: NicSpec | None = None
    leaf: SwitchChoice
    spine: SwitchChoice
    oversubscription: float = 1.0
    storage_nodes: int = 0
    storage_node_ports: int = 0


@dataclass(frozen=True, kw_only=True)
class DesignRequest:
    gpus: int
    gpus_per_server: int = 8
    rails: int
    nic_speed_gbps: int
    nic: NicSpec | None = None
    # None = left open: `size` takes the best of `alternatives`.
    fabric: Fabric | None = Fabric.RAIL
    leaf: SwitchChoice | None = None
    spine: SwitchChoice | None = None
    core: SwitchChoice | None = None
    oversubscription: Oversubscription | None = None
    media: MediaPolicy = MediaPolicy.AUTO
    dual_homing: bool = False
    rails_per_plane: int = 1  # rail-plane only: rails sharing one spine plane
    servers_per_su: int | None = None  # scalable unit size; None: as many as a leaf serves
    min_spines: int = 2  # two-tier fabrics get at least this many spines (1 allows a single one)
    # Leaf-to-spine speed; None: every speed both tiers run is sized and the cheapest kept.
    uplink_speed_gbps: int | None = None
    # Identical compute planes a server's ports are split over (rail fabrics; None: open, one
    # unless the server has more ports than GPUs, when alternatives weigh more planes).
    planes: int | None = None
    # How far above the stated oversubscription an alternative may go (0.1: 10 %) when that
    # saves a tier or switches; 0 keeps 1:1 exactly 1:1.
    oversubscription_tolerance: float = 0.0
    build: Build = Build.GROWTH
    layout: Layout = Layout()
    storage: PlaneRequest | None = None
    frontend: PlaneRequest | None = None
    oob: PlaneRequest | None = None

    @property
    def servers(self) -> int:
        return self.gpus // self.gpus_per_server

    @property
    def open_choices(self) -> tuple[str, ...]:
        names = (
            ("fabric", self.fabric),
            ("leaf", self.leaf),
            ("oversubscription", self.oversubscription),
        )
        open_ = [name for name, value in names if value is None]
        if self.oversubscription_tolerance > 0:
            open_.append("oversubscription_tolerance")
        if self.plane_choices != (self.planes or 1,):
            open_.append("planes")
        return tuple(open_)

    @property
    def plane_choices(self) -> tuple[int, ...]:
        """Compute plane counts worth sizing: the one the request sets, else one, and for
        servers with more ports than GPUs (16 x 400G for 8 GPUs) one plane per GPU's worth of
        ports, each a full rail set (DeepSeek's multi-plane fabric)."""
        if self.planes is not None:
            return (self.planes,)
        if self.fabric not in (Fabric.RAIL, None):
            return (1,)
        sets, rest = divmod(self.rails, self.gpus_per_server)
        return (1, sets) if sets > 1 and not rest else (1,)


class FieldKind(StrEnum):
    """A request field's JSON shape, as the API's schema states it."""

    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    CHOICE = "choice"  # a string among `choices`
    TEXT = "text"  # a catalog SKU, or a switch written PORTSxSPEED
    RATIO = "ratio"  # oversubscription: a number, "3:1", or one per tier
    PLANE = "plane"  # an optional plane: true (its defaults) or a mapping of PLANE_FIELDS


@dataclass(frozen=True, kw_only=True)
class RequestField:
    """One field of a request. The REST API's serializer, the CLI's options and the wizard's
    check all read `REQUEST_FIELDS` (issue 26, item 4: the API had its own list and refused
    fields the CLI and the wizard took); `parse_request` reads its ranges from here too, so a
    bound cannot differ between the schema and the engine. `low`/`high` are the range the
    engine accepts; `help` is English, marked for translation."""

    name: str
    kind: FieldKind
    help: str
    required: bool = False
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

    @property
    def option(self) -> str:
        """The CLI's option: the field's name with dashes."""
        return "--" + self.name.replace("_", "-")


def _choices(enum: type[StrEnum]) -> tuple[str, ...]:
    return tuple(member.value for member in enum)


REQUEST_FIELDS: tuple[RequestField, ...] = (
    RequestField(
        name="gpus",
        kind=FieldKind.INTEGER,
        required=True,
        low=1,
        high=MAX_GPUS,
        help=gettext_noop("Number of GPUs in the cluster, a multiple of gpus_per_server."),
    ),
    RequestField(
        name="gpus_per_server",
        kind=FieldKind.INTEGER,
        low=1,
        high=64,
        help=gettext_noop("GPUs per server (default 8)."),
    ),
    RequestField(
        name="rails",
        kind=FieldKind.INTEGER,
        low=1,
        high=64,
        help=gettext_noop("Compute NIC ports per server (default: one per GPU)."),
    ),
    RequestField(
        name="nic_speed",
        kind=FieldKind.INTEGER,
        low=1,
        high=800,
        help=gettext_noop(
            "Compute NIC port speed in Gbps, one of 1, 10, 25, 50, 100, 200, 400, 800 "
            "(default: the NIC's speed when a NIC is given, else 400)."
        ),
    ),
    RequestField(
        name="nic",
        kind=FieldKind.TEXT,
        help=gettext_noop(
            "Catalog NIC SKU: its port speed and cage are the compute ports' (nic_speed may be "
            "left out), and it is added to the bill of materials."
        ),
    ),
    RequestField(
        name="fabric",
        kind=FieldKind.CHOICE,
        choices=_choices(Fabric),
        help=gettext_noop(
            "Fabric style: rail (rail-optimized), rail-plane or tor (top of rack); left out "
            "with no leaf: the engine compares them."
        ),
    ),
    RequestField(
        name="leaf",
        kind=FieldKind.TEXT,
        help=gettext_noop("Leaf switch: PORTSxSPEED (e.g. 64x400) or a catalog SKU."),
    ),
    RequestField(
        name="spine",
        kind=FieldKind.TEXT,
        help=gettext_noop("Spine switch: PORTSxSPEED or a catalog SKU (default: as the leaf)."),
    ),
    RequestField(
        name="core",
        kind=FieldKind.TEXT,
        help=gettext_noop("Core switch: PORTSxSPEED or a catalog SKU (default: as the spine)."),
    ),
    RequestField(
        name="oversubscription",
        kind=FieldKind.RATIO,
        low=1,
        high=MAX_OVERSUBSCRIPTION,
        help=gettext_noop(
            'Downlink:uplink bandwidth, e.g. 1, 3 or "3:1", or one per tier '
            '{"leaf": 2, "spine": 1} (default 1 when a leaf is named).'
        ),
    ),
    RequestField(
        name="media",
        kind=FieldKind.CHOICE,
        choices=_choices(MediaPolicy),
        help=gettext_noop("Media policy: auto (default), copper, optical, mmf or smf."),
    ),
    RequestField(
        name="dual_homing",
        kind=FieldKind.BOOLEAN,
        help=gettext_noop("Top of rack only: each server's ports split over a leaf pair."),
    ),
    RequestField(
        name="rails_per_plane",
        kind=FieldKind.INTEGER,
        low=1,
        high=64,
        help=gettext_noop("Rail planes only: rails sharing one spine plane (default 1)."),
    ),
    RequestField(
        name="servers_per_su",
        kind=FieldKind.INTEGER,
        low=1,
        high=100_000,
        help=gettext_noop("Servers per scalable unit (default: as many as a leaf serves)."),
    ),
    RequestField(
        name="min_spines",
        kind=FieldKind.INTEGER,
        low=1,
        high=64,
        help=gettext_noop(
            "Fewest spines of a two-tier fabric (default 2; 1 allows a single spine)."
        ),
    ),
    RequestField(
        name="oversubscription_tolerance",
        kind=FieldKind.NUMBER,
        low=0,
        high=1,
        help=gettext_noop(
            "How far above the oversubscription a design may go when that saves a tier or "
            "switches, as a fraction (0.1 allows 10 percent more; default 0)."
        ),
    ),
    RequestField(
        name="planes",
        kind=FieldKind.INTEGER,
        low=1,
        high=64,
        help=gettext_noop(
            "Rail fabrics: identical compute planes the server's ports split over; must divide "
            "rails (default: open)."
        ),
    ),
    RequestField(
        name="uplink_speed",
        kind=FieldKind.INTEGER,
        low=0,
        high=800,
        help=gettext_noop(
            "Leaf-to-spine speed in Gbps, at least nic_speed (default or 0: every speed both "
            "tiers run is sized, fewest switches then fewest links win)."
        ),
    ),
    RequestField(
        name="build",
        kind=FieldKind.CHOICE,
        choices=_choices(Build),
        help=gettext_noop(
            "growth (default): a partial unit gets every leaf uplink; today: servers spread "
            "evenly over the units (least to buy now)."
        ),
    ),
    RequestField(
        name="servers_per_rack",
        kind=FieldKind.INTEGER,
        low=1,
        high=64,
        help=gettext_noop("Servers per rack (default 4)."),
    ),
    RequestField(
        name="rack_width_m",
        kind=FieldKind.NUMBER,
        low=0.3,
        high=2.0,
        help=gettext_noop("Rack width in metres (default 0.6)."),
    ),
    RequestField(
        name="racks_per_row",
        kind=FieldKind.INTEGER,
        low=1,
        high=200,
        help=gettext_noop("Compute racks per row (default 10)."),
    ),
    RequestField(
        name="leaf_placement",
        kind=FieldKind.CHOICE,
        choices=_choices(LeafPlacement),
        help=gettext_noop(
            "Where the leaves stand: tor, mor, eor or network-rack (default: tor for a tor "
            "fabric, else mor)."
        ),
    ),
    RequestField(
        name="spine_row_distance_m",
        kind=FieldKind.NUMBER,
        low=0,
        high=2000,
        help=gettext_noop("Metres from a compute row to the spine/core row (default 20)."),
    ),
    RequestField(
        name="cable_slack_m",
        kind=FieldKind.NUMBER,
        low=0,
        high=20,
        help=gettext_noop("Metres of slack added to every cable (default 0.5)."),
    ),
    RequestField(
        name="max_rack_power_w",
        kind=FieldKind.INTEGER,
        low=0,
        high=1_000_000,
        help=gettext_noop("Warn above this many watts per rack (default or 0: no limit)."),
    ),
    RequestField(
        name="storage",
        kind=FieldKind.PLANE,
        help=gettext_noop(
            "A storage plane: true, or its options (nic_speed 200, ports 2, oversubscription "
            "3 by default; storage_nodes, storage_node_ports, nic, leaf, spine)."
        ),
    ),
    RequestField(
        name="frontend",
        kind=FieldKind.PLANE,
        help=gettext_noop(
            "A frontend plane: true, or its options (nic_speed 100, ports 2, "
            "oversubscription 2 by default; nic, leaf, spine)."
        ),
    ),
    RequestField(
        name="oob",
        kind=FieldKind.PLANE,
        help=gettext_noop(
            "An out-of-band management plane: true, or its options (nic_speed 1, ports 1, "
            "oversubscription 11 by default; nic, leaf, spine)."
        ),
    ),
)
FIELDS: dict[str, RequestField] = {spec.name: spec for spec in REQUEST_FIELDS}
TOP_FIELDS = frozenset(FIELDS)


def _float_range(name: str) -> tuple[float, float]:
    """The range `parse_request` accepts for a numeric field: REQUEST_FIELDS's, which the API
    states too."""
    spec = FIELDS[name]
    if spec.low is None or spec.high is None:
        raise LookupError(f"{name} has no range in REQUEST_FIELDS")
    return float(spec.low), float(spec.high)


def _int_range(name: str) -> tuple[int, int]:
    low, high = _float_range(name)
    return int(low), int(high)


PLANE_FIELDS = frozenset(
    {"nic_speed", "ports", "nic", "oversubscription", "leaf", "spine", "storage_nodes",
     "storage_node_ports"}
)  # fmt: skip
PLANE_DEFAULTS: dict[str, dict[str, Any]] = {
    # Storage tolerates 3:1 (planes chapter 6.2.2: "1:3 or 1:4"); frontend is light (6.2.3);
    # out-of-band is one 1G BMC port per server on "a simple, low-cost star or tree" of cheap
    # management switches (6.3.2): a 48-port switch with 44 ports down and 4 up is 11:1.
    "storage": {"nic_speed": 200, "ports": 2, "oversubscription": 3},
    "frontend": {"nic_speed": 100, "ports": 2, "oversubscription": 2},
    "oob": {"nic_speed": 1, "ports": 1, "oversubscription": 11},
}


class _Reader:
    """Collects every field error instead of stopping at the first."""

    def __init__(self, data: Mapping[str, object], prefix: str = "") -> None:
        self.data = data
        self.prefix = prefix
        self.errors: dict[str, Text] = {}

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def fail(self, name: str, message: Text) -> None:
        self.errors.setdefault(self.key(name), message)

    def int_(self, name: str, default: int | None, low: int, high: int) -> int | None:
        raw = self.data.get(name)
        if raw is None or raw == "":
            if default is None:
                self.fail(name, text(gettext_noop("%(field)s is required."), field=name))
            return default
        value = _to_number(raw)
        if value is None or value != int(value):
            self.fail(
                name,
                text(
                    gettext_noop("%(field)s must be a whole number, not %(value)s."),
                    field=name,
                    value=repr(raw),
                ),
            )
            return default
        if not low <= value <= high:
            self.fail(
                name,
                text(
                    gettext_noop("%(field)s must be between %(low)s and %(high)s; got %(value)s."),
                    field=name,
                    low=low,
                    high=high,
                    value=int(value),
                ),
            )
            return default
        return int(value)

    def float_(self, name: str, default: float | None, low: float, high: float) -> float | None:
        raw = self.data.get(name)
        if raw is None or raw == "":
            return default
        value = _to_number(raw)
        if value is None or not low <= value <= high:
            self.fail(
                name,
                text(
                    gettext_noop(
                        "%(field)s must be a number between %(low)s and %(high)s; got %(value)s."
                    ),
                    field=name,
                    low=float(low),
                    high=float(high),
                    value=repr(raw),
                ),
            )
            return default
        return value

    def choice(self, name: str, enum: type[StrEnum], default: Any) -> Any:
        raw = self.data.get(name)
        if raw is None or raw == "":
            return default
        try:
            return enum(str(raw).strip().lower())
        except ValueError:
            allowed = ", ".join(member.value for member in enum)
            self.fail(
                name,
                text(
                    gettext_noop("%(field)s must be one of %(allowed)s; got %(value)s."),
                    field=name,
                    allowed=allowed,
                    value=repr(raw),
                ),
            )
            return default

    def bool_(self, name: str, default: bool) -> bool:
        raw = self.data.get(name)
        if raw is None or raw == "":
            return default
        if isinstance(raw, bool):
            return raw
        word = str(raw).strip().lower()
        if word in {"1", "true", "yes", "on"}:
            return True
        if word in {"0", "false", "no", "off"}:
            return False
        self.fail(
            name,
            text(
                gettext_noop("%(field)s must be true or false; got %(value)s."),
                field=name,
                value=repr(raw),
            ),
        )
        return default


def _to_number(raw: object) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, str):
        try:
            return float(raw.strip().replace(",", "").replace("_", ""))
        except ValueError:
            return None
    return None


def resolve_switch(name: str, catalog: CatalogSnapshot) -> SwitchModel | Text:
    """The switch a `leaf`/`spine`/`core` value names, or the reason it names none."""
    for spec in catalog.switches:
        if spec.sku.lower() == name.strip().lower():
            return catalog_model(spec)
    inline = parse_inline(name)
    if inline is None:
        return text(
            gettext_noop(
                "%(value)s is neither a catalog switch SKU nor a PORTSxSPEED spec like 64x400."
            ),
            value=repr(name),
        )
    ports, speed = inline
    if not 1 <= ports <= 1024 or speed not in NIC_SPEEDS_GBPS:
        return text(
            gettext_noop("%(value)s: ports must be 1..1024 and the speed one of %(speeds)s Gbps."),
            value=repr(name),
            speeds=", ".join(str(s) for s in NIC_SPEEDS_GBPS),
        )
    return inline_model(ports, speed)


def _nic_fit(model: SwitchModel, nic_speed: int) -> Text | None:
    """Why servers at `nic_speed` cannot use this switch, or None."""
    if model.logical_ports(nic_speed) > 0:
        return None
    if nic_speed > model.max_speed_gbps:
        return text(
            gettext_noop("The %(nic)sG NIC is faster than the %(ports)sG ports of %(switch)s."),
            nic=nic_speed,
            ports=model.max_speed_gbps,
            switch=model.label,
        )
    return text(
        gettext_noop(
            "%(switch)s cannot run its ports at %(nic)sG by breakout (it runs %(speeds)s)."
        ),
        switch=model.label,
        nic=nic_speed,
        speeds=", ".join(f"{s}G" for s in model.speeds_gbps()),
    )


def _nic_unknown(sku: object) -> Text:
    return text(gettext_noop("NIC %(nic)s is not in the catalog."), nic=repr(sku))


def _speed_unknown(speed: int) -> Text:
    return text(
        gettext_noop("nic_speed must be one of %(speeds)s; got %(value)s."),
        speeds=", ".join(str(s) for s in NIC_SPEEDS_GBPS),
        value=speed,
    )


def _find_nic(sku: str, catalog: CatalogSnapshot) -> NicSpec | None:
    for nic in catalog.nics:
        if nic.sku.lower() == sku.strip().lower():
            return nic
    return None


def _switch_field(
    reader: _Reader, name: str, catalog: CatalogSnapshot, nic_speed: int | None
) -> SwitchChoice | None:
    raw = reader.data.get(name)
    if raw is None or raw == "":
        return None
    if isinstance(raw, SwitchSpec):
        return SwitchChoice(text=raw.sku, model=catalog_model(raw))
    given = str(raw).strip()
    model = resolve_switch(given, catalog)
    if isinstance(model, Text):
        reader.fail(name, model)
        return None
    if nic_speed is not None and name == "leaf":
        reason = _nic_fit(model, nic_speed)
        if reason is not None:
            reader.fail(name, reason)
            return None
    return SwitchChoice(text=given, model=model)


def _default_plane_switch(speed: int) -> str:
    return f"64x{speed}" if speed >= 100 else f"48x{speed}"


def _parse_plane(
    name: str, raw: object, catalog: CatalogSnapshot, errors: dict[str, Text]
) -> PlaneRequest | None:
    if raw is None or raw is False:
        return None
    if raw is True:
        raw = {}
    if not isinstance(raw, Mapping):
        errors[name] = text(
            gettext_noop("%(field)s must be a mapping of plane options, e.g. {'nic_speed': 100}."),
            field=name,
        )
        return None
    unknown = sorted(set(raw) - PLANE_FIELDS)
    reader = _Reader({**PLANE_DEFAULTS[name], **raw}, prefix=f"{name}.")
    for key in unknown:
        reader.fail(
            key, text(gettext_noop("%(field)s is not a plane option."), field=f"{name}.{key}")
        )
    nic: NicSpec | None = None
    if raw.get("nic"):
        nic = _find_nic(str(raw["nic"]), catalog)
        if nic is None:
            reader.fail("nic", _nic_unknown(raw["nic"]))
    speed_default = nic.speed_gbps if nic else None
    speed = (
        reader.int_("nic_speed", speed_default, 1, 800)
        if "nic_speed" in raw or not nic
        else speed_default
    )
    if speed is not None and speed not in NIC_SPEEDS_GBPS:
        reader.fail("nic_speed", _speed_unknown(speed))
        speed = None
    ports = reader.int_("ports", None, 1, 64)
    over = reader.float_("oversubscription", 1.0, 1.0, MAX_OVERSUBSCRIPTION)
    nodes = reader.int_("storage_nodes", 0, 0, 100_000) if name == "storage" else 0
    node_ports = (
        reader.int_("storage_node_ports", 2 if nodes else 0, 0, 64) if name == "storage" else 0
    )
    if speed is not None and "leaf" not in raw:
        reader.data = {**reader.data, "leaf": _default_plane_switch(speed)}
    leaf = _switch_field(reader, "leaf", catalog, speed)
    spine = _switch_field(reader, "spine", catalog, None) or leaf
    errors.update(reader.errors)
    if reader.errors or speed is None or ports is None or leaf is None or spine is None:
        return None
    return PlaneRequest(
        name=name,
        nic_speed_gbps=speed,
        ports=ports,
        nic=nic,
        leaf=leaf,
        spine=spine,
        oversubscription=over or 1.0,
        storage_nodes=nodes or 0,
        storage_node_ports=node_ports or 0,
    )


def _parse_uplink_speed(
    reader: _Reader,
    nic_speed: int | None,
    leaf: SwitchChoice | None,
    spine: SwitchChoice | None,
) -> int | None:
    speed = reader.int_("uplink_speed", 0, *_int_range("uplink_speed")) or None
    if speed is None:
        return None
    if speed not in NIC_SPEEDS_GBPS:
        reader.fail("uplink_speed", _speed_unknown(speed))
        return None
    if nic_speed is not None and speed < nic_speed:
        reader.fail(
            "uplink_speed",
            text(
                gettext_noop(
                    "uplink_speed (%(speed)sG) must be at least the NIC speed (%(nic)sG)."
                ),
                speed=speed,
                nic=nic_speed,
            ),
        )
        return None
    for choice in (leaf, spine):
        if choice is not None and choice.model.logical_ports(speed) == 0:
            reader.fail(
                "uplink_speed",
                text(
                    gettext_noop("%(switch)s has no %(speed)sG ports."),
                    switch=choice.model.label,
                    speed=speed,
                ),
            )
            return None
    return speed


def _parse_tolerance(reader: _Reader) -> float:
    raw = reader.data.get("oversubscription_tolerance")
    if raw is None or raw == "":
        return 0.0
    value = _to_number(raw)
    low, high = _float_range("oversubscription_tolerance")
    if value is None or not low <= value <= high:
        shown = f"{value * 100:g} %" if value is not None else repr(raw)
        reader.fail(
            "oversubscription_tolerance",
            text(
                gettext_noop(
                    "The oversubscription tolerance must be between 0 %% and 100 %% (0 to 1 in "
                    "a request file or the API); got %(value)s."
                ),
                value=shown,
            ),
        )
        return 0.0
    return value


def _parse_planes(reader: _Reader, fabric: Fabric | None, rails: int | None) -> int | None:
    planes = reader.int_("planes", 0, *_int_range("planes")) or None
    if planes is None:
        return None
    if fabric not in (Fabric.RAIL, None):
        reader.fail(
            "planes",
            text(
                gettext_noop(
                    "planes splits a rail-optimized fabric; the %(fabric)s fabric has its own "
                    "(rails_per_plane for rail planes)."
                ),
                fabric=fabric.value if fabric else "",
            ),
        )
        return None
    if rails is not None and rails % planes:
        reader.fail(
            "planes",
            text(
                gettext_noop(
                    "planes (%(planes)s) must divide the server's ports (rails, %(rails)s)."
                ),
                planes=planes,
                rails=rails,
            ),
        )
        return None
    return planes


def _parse_oversubscription(reader: _Reader) -> Oversubscription | None:
    raw = reader.data.get("oversubscription")
    if raw is None or raw == "":
        return None
    if isinstance(raw, Mapping):
        unknown = sorted(set(raw) - {"leaf", "spine"})
        if unknown:
            reader.fail(
                "oversubscription",
                text(
                    gettext_noop("oversubscription tiers are leaf and spine, not %(tiers)s."),
                    tiers=", ".join(map(str, unknown)),
                ),
            )
            return None
        sub = _Reader(raw, prefix="oversubscription.")
        leaf = sub.float_("leaf", 1.0, 1.0, MAX_OVERSUBSCRIPTION)
        spine = sub.float_("spine", 1.0, 1.0, MAX_OVERSUBSCRIPTION)
        reader.errors.update(sub.errors)
        return Oversubscription(leaf=leaf or 1.0, spine=spine or 1.0)
    ratio = str(raw).strip()
    if ":" in ratio:
        down, _, up = ratio.partition(":")
        num, den = _to_number(down), _to_number(up)
        value = num / den if num is not None and den else None
    else:
        value = _to_number(raw)
    low, high = _float_range("oversubscription")
    if value is None or not low <= value <= high:
        reader.fail(
            "oversubscription",
            text(
                gettext_noop(
                    "oversubscription is downlink:uplink bandwidth and must be between 1 and "
                    "%(high)s; got %(value)s."
                ),
                high=MAX_OVERSUBSCRIPTION,
                value=repr(raw),
            ),
        )
        return None
    return Oversubscription(leaf=value, spine=1.0)


def parse_request(data: Mapping[str, object], catalog: CatalogSnapshot) -> DesignRequest:
    reader = _Reader(data)
    for key in sorted(set(data) - TOP_FIELDS):
        reader.fail(key, text(gettext_noop("%(field)s is not a request field."), field=key))

    gpus = reader.int_("gpus", None, *_int_range("gpus"))
    per_server = reader.int_("gpus_per_server", 8, *_int_range("gpus_per_server"))
    if gpus is not None and per_server is not None and gpus % per_server:
        lower = gpus - gpus % per_server
        higher = lower + per_server
        if lower:
            template = gettext_noop(
                "gpus (%(gpus)s) must be a multiple of gpus_per_server (%(per_server)s); "
                "use %(lower)s or %(higher)s."
            )
        else:  # fewer GPUs than one server holds: 0 is no answer
            template = gettext_noop(
                "gpus (%(gpus)s) must be a multiple of gpus_per_server (%(per_server)s); "
                "use %(higher)s."
            )
        reader.fail(
            "gpus",
            text(template, gpus=gpus, per_server=per_server, lower=lower, higher=higher),
        )

    nic: NicSpec | None = None
    if data.get("nic"):
        nic = _find_nic(str(data["nic"]), catalog)
        if nic is None:
            reader.fail("nic", _nic_unknown(data["nic"]))
    nic_speed = reader.int_("nic_speed", nic.speed_gbps if nic else 400, *_int_range("nic_speed"))
    if nic_speed is not None and nic_speed not in NIC_SPEEDS_GBPS:
        reader.fail("nic_speed", _speed_unknown(nic_speed))
        nic_speed = None
    if nic is not None and nic_speed is not None and nic_speed != nic.speed_gbps:
        reader.fail(
            "nic_speed",
            text(
                gettext_noop("NIC %(nic)s runs at %(speed)sG, not %(asked)sG."),
                nic=nic.sku,
                speed=nic.speed_gbps,
                asked=nic_speed,
            ),
        )
    rails = reader.int_("rails", per_server, *_int_range("rails"))

    fabric = reader.choice("fabric", Fabric, None)
    if fabric is None and data.get("leaf") not in (None, ""):
        # Naming a switch but no style means the ordinary rail fabric; naming neither leaves
        # both open for `alternatives`.
        fabric = Fabric.RAIL
    dual = reader.bool_("dual_homing", False)
    if dual and fabric not in (Fabric.TOR, None):
        reader.fail(
            "dual_homing", text(gettext_noop("dual_homing applies to the tor fabric only."))
        )
    if dual and rails is not None and rails % 2:
        reader.fail(
            "dual_homing",
            text(
                gettext_noop(
                    "dual_homing splits each server's ports over a leaf pair; rails (%(rails)s) "
                    "must be even."
                ),
                rails=rails,
            ),
        )
    rails_per_plane = reader.int_("rails_per_plane", 1, *_int_range("rails_per_plane"))
    if rails and rails_per_plane and rails % rails_per_plane:
        reader.fail(
            "rails_per_plane",
            text(
                gettext_noop("rails_per_plane (%(per_plane)s) must divide rails (%(rails)s)."),
                per_plane=rails_per_plane,
                rails=rails,
            ),
        )

    leaf = _switch_field(reader, "leaf", catalog, nic_speed)
    servers_per_su = reader.int_("servers_per_su", 0, *_int_range("servers_per_su")) or None
    if servers_per_su and leaf is not None and nic_speed and rails:
        # A rail leaf takes one port of each server of its unit; a ToR leaf all of them.
        per_leaf = rails if fabric == Fabric.TOR else 1
        most = leaf.model.logical_ports(nic_speed) // max(per_leaf, 1)
        if servers_per_su > most:
            reader.fail(
                "servers_per_su",
                text(
                    gettext_noop(
                        "A leaf %(leaf)s serves at most %(most)s servers (%(ports)s ports of "
                        "%(speed)sG); choose %(most)s or fewer."
                    ),
                    leaf=leaf.model.label,
                    most=most,
                    ports=leaf.model.logical_ports(nic_speed),
                    speed=nic_speed,
                ),
            )
    min_spines = reader.int_("min_spines", 2, *_int_range("min_spines")) or 2
    spine = _switch_field(reader, "spine", catalog, None)
    core = _switch_field(reader, "core", catalog, None)
    uplink_speed = _parse_uplink_speed(reader, nic_speed, leaf, spine)
    compute_planes = _parse_planes(reader, fabric, rails)
    oversubscription = _parse_oversubscription(reader)
    tolerance = _parse_tolerance(reader)
    build = reader.choice("build", Build, Build.GROWTH)
    if build == Build.TODAY and servers_per_su:
        reader.fail(
            "build",
            text(
                gettext_noop(
                    "build today spreads servers evenly over units; it cannot be combined with "
                    "servers_per_su."
                )
            ),
        )
    if oversubscription is None and data.get("leaf") not in (None, ""):
        oversubscription = Oversubscription()  # a named switch without a ratio means 1:1
    media = reader.choice("media", MediaPolicy, MediaPolicy.AUTO)

    default_placement = LeafPlacement.TOR if fabric == Fabric.TOR else LeafPlacement.MOR
    layout = Layout(
        servers_per_rack=reader.int_("servers_per_rack", 4, *_int_range("servers_per_rack")) or 4,
        rack_width_m=reader.float_("rack_width_m", 0.6, *_float_range("rack_width_m")) or 0.6,
        racks_per_row=reader.int_("racks_per_row", 10, *_int_range("racks_per_row")) or 10,
        leaf_placement=reader.choice("leaf_placement", LeafPlacement, default_placement),
        spine_row_distance_m=reader.float_(
            "spine_row_distance_m", 20.0, *_float_range("spine_row_distance_m")
        )
        or 0.0,
        cable_slack_m=reader.float_("cable_slack_m", 0.5, *_float_range("cable_slack_m")) or 0.0,
        max_rack_power_w=reader.int_("max_rack_power_w", 0, *_int_range("max_rack_power_w"))
        or None,
    )

    planes: dict[str, PlaneRequest | None] = {}
    for name in ("storage", "frontend", "oob"):
        planes[name] = _parse_plane(name, data.get(name), catalog, reader.errors)

    if reader.errors:
        raise RequestError(reader.errors)
    assert gpus is not None
    assert per_server is not None
    assert rails is not None
    assert nic_speed is not None
    assert rails_per_plane is not None
    return DesignRequest(
        gpus=gpus,
        gpus_per_server=per_server,
        rails=rails,
        nic_speed_gbps=nic_speed,
        nic=nic,
        fabric=fabric,
        leaf=leaf,
        spine=spine,
        core=core,
        oversubscription=oversubscription,
        media=media,
        dual_homing=dual,
        rails_per_plane=rails_per_plane,
        servers_per_su=servers_per_su,
        min_spines=min_spines,
        uplink_speed_gbps=uplink_speed,
        planes=compute_planes,
        oversubscription_tolerance=tolerance,
        build=build,
        layout=layout,
        storage=planes["storage"],
        frontend=planes["frontend"],
        oob=planes["oob"],
    )


def _plane_to_dict(plane: PlaneRequest) -> dict[str, object]:
    out: dict[str, object] = {
        "nic_speed": plane.nic_speed_gbps,
        "ports": plane.ports,
        "oversubscription": plane.oversubscription,
        "leaf": plane.leaf.text,
        "spine": plane.spine.text,
    }
    if plane.nic is not None:
        out["nic"] = plane.nic.sku
    if plane.name == "storage":
        out["storage_nodes"] = plane.storage_nodes
        out["storage_node_ports"] = plane.storage_node_ports
    return out


def to_dict(request: DesignRequest) -> dict[str, object]:
    """The request as plain JSON-ready data that `parse_request` accepts back unchanged."""
    layout = request.layout
    out: dict[str, object] = {
        "gpus": request.gpus,
        "gpus_per_server": request.gpus_per_server,
        "rails": request.rails,
        "nic_speed": request.nic_speed_gbps,
        "media": request.media.value,
        "dual_homing": request.dual_homing,
        "rails_per_plane": request.rails_per_plane,
        **({"servers_per_su": request.servers_per_su} if request.servers_per_su else {}),
        **({"min_spines": request.min_spines} if request.min_spines != 2 else {}),
        **({"uplink_speed": request.uplink_speed_gbps} if request.uplink_speed_gbps else {}),
        **({"planes": request.planes} if request.planes else {}),
        **({"build": request.build.value} if request.build != Build.GROWTH else {}),
        **(
            {"oversubscription_tolerance": request.oversubscription_tolerance}
            if request.oversubscription_tolerance
            else {}
        ),
        "servers_per_rack": layout.servers_per_rack,
        "rack_width_m": layout.rack_width_m,
        "racks_per_row": layout.racks_per_row,
        "leaf_placement": layout.leaf_placement.value,
        "spine_row_distance_m": layout.spine_row_distance_m,
        "cable_slack_m": layout.cable_slack_m,
    }
    if request.nic is not None:
        out["nic"] = request.nic.sku
    if request.fabric is not None:
        out["fabric"] = request.fabric.value
    for name in ("leaf", "spine", "core"):
        choice: SwitchChoice | None = getattr(request, name)
        if choice is not None:
            out[name] = choice.text
    if request.oversubscription is not None:
        out["oversubscription"] = {
            "leaf": request.oversubscription.leaf,
            "spine": request.oversubscription.spine,
        }
    if layout.max_rack_power_w is not None:
        out["max_rack_power_w"] = layout.max_rack_power_w
    for name in ("storage", "frontend", "oob"):
        plane: PlaneRequest | None = getattr(request, name)
        if plane is not None:
            out[name] = _plane_to_dict(plane)
    return out


def planned_products(request: DesignRequest) -> tuple[str, ...]:
    """SKUs in the request whose lifecycle is still `planned`."""
    skus: set[str] = set()
    for choice in (request.leaf, request.spine, request.core):
        if choice is not None and choice.model.lifecycle == Lifecycle.PLANNED:
            skus.add(choice.model.label)
    if request.nic is not None and request.nic.lifecycle == Lifecycle.PLANNED:
        skus.add(request.nic.sku)
    return tuple(sorted(skus))


__all__ = [
    "FIELDS",
    "REQUEST_FIELDS",
    "Build",
    "DesignRequest",
    "Fabric",
    "FieldKind",
    "FormFactor",
    "Layout",
    "LeafPlacement",
    "MediaPolicy",
    "Oversubscription",
    "PlaneRequest",
    "RequestError",
    "RequestField",
    "SwitchChoice",
    "parse_request",
    "to_dict",
]
