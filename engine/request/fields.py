"""The request's fields, defined once: the REST API's serializer, the CLI's options, the
wizard's check and the parser all read `REQUEST_FIELDS`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.request.model import (
    MAX_GPUS,
    MAX_OVERSUBSCRIPTION,
    Build,
    Fabric,
    LeafPlacement,
    MediaPolicy,
)
from engine.request.systems import Cooling, System
from engine.text import gettext_noop


class FieldKind(StrEnum):
    """A request field's JSON shape, as the API's schema states it."""

    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    CHOICE = "choice"  # a string among `choices`
    TEXT = "text"  # a catalog SKU, or a switch written PORTSxSPEED
    RATIO = "ratio"  # oversubscription: a number, "3:1", or one per tier
    PLANE = "plane"  # an optional plane: true (its defaults) or a mapping of PLANE_FIELDS
    POOLS = "pools"  # a list of mappings of POOL_FIELDS (engine.request.pool_parse)


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
    RequestField(
        name="pools",
        kind=FieldKind.POOLS,
        help=gettext_noop(
            "Other kinds of servers on the same compute fabric, their leaves sharing its "
            "spines: a list of {gpus, gpus_per_server, rails, nic_speed or nic, "
            "servers_per_rack}, e.g. 8-GPU servers beside rack-scale trays, or 200G NICs "
            "beside 400G."
        ),
    ),
    # A rack-scale scale-up domain (issue 28, item 1): set `system` or `trays_per_rack` and a
    # server is a compute tray (gpus_per_server GPUs, rails NICs at nic_speed).
    RequestField(
        name="system",
        kind=FieldKind.CHOICE,
        choices=_choices(System),
        help=gettext_noop(
            "A rack-scale system whose racks are one NVLink domain: gb200-nvl72 (18 trays of "
            "4 GPUs, 4 x 400G NICs each) or gb300-nvl72 (4 x 800G); it fills in the tray and "
            "rack fields below, each of which may still be set."
        ),
    ),
    RequestField(
        name="trays_per_rack",
        kind=FieldKind.INTEGER,
        low=1,
        high=64,
        help=gettext_noop(
            "Compute trays per rack-scale rack; set, each server is a tray of gpus_per_server "
            "GPUs and rails NICs (default with a system: 18)."
        ),
    ),
    RequestField(
        name="active_trays_per_rack",
        kind=FieldKind.INTEGER,
        low=1,
        high=64,
        help=gettext_noop(
            "Trays that run in each rack, the others spares (default: every tray the rack's "
            "power feeds)."
        ),
    ),
    RequestField(
        name="nvlink_switch_trays",
        kind=FieldKind.INTEGER,
        low=0,
        high=36,
        help=gettext_noop("NVLink switch trays per rack (default: one per two compute trays)."),
    ),
    RequestField(
        name="tray_power_w",
        kind=FieldKind.INTEGER,
        low=100,
        high=20_000,
        help=gettext_noop(
            "Watts an active compute tray draws, all in: its NICs and their modules, and its "
            "share of the NVLink switch trays (default 5400)."
        ),
    ),
    RequestField(
        name="rack_power_kw",
        kind=FieldKind.NUMBER,
        low=1,
        high=1000,
        help=gettext_noop(
            "Kilowatts a rack-scale rack may draw; its power shelves (33 kW each) are sized "
            "for it twice over (default 132)."
        ),
    ),
    RequestField(
        name="cooling",
        kind=FieldKind.CHOICE,
        choices=_choices(Cooling),
        help=gettext_noop(
            "How a rack-scale rack is cooled: liquid (default; a manifold per rack) or air."
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
