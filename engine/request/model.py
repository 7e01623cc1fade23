"""A design request's types: what the sales engineer asked for, once validated (`parse`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from engine.catalog import Lifecycle, NicSpec
from engine.ports import SwitchModel
from engine.request.systems import Cooling
from engine.text import Text

MAX_GPUS = 1_000_000
NIC_SPEEDS_GBPS = (1, 10, 25, 50, 100, 200, 400, 800)
MAX_OVERSUBSCRIPTION = 64
MAX_POOLS = 3  # other kinds of servers one compute fabric may serve besides the first


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
class ScaleUpRequest:
    """A server that is a compute tray of a rack-scale NVLink domain (NVL72-class): the
    request's `gpus_per_server` is GPUs per tray, `rails` the tray's scale-out NICs and
    `nic_speed` theirs (`engine.request.systems` has the presets and their sources)."""

    system: str = ""  # a preset's value (System), or "" when the fields were given alone
    trays_per_rack: int
    active_trays_per_rack: int  # trays that run; the rest are spares in the rack
    nvlink_switch_trays: int  # per rack
    tray_power_w: int  # an active tray's share of the rack's draw
    rack_power_kw: float  # what one rack may draw (its power shelves' N+N budget)
    cooling: Cooling = Cooling.LIQUID


@dataclass(frozen=True, kw_only=True)
class PoolRequest:
    """Another kind of server on the same compute fabric (issue 28: heterogeneous pools, "our
    room is heterogeneous"): its own GPUs per server, NICs and their speed, and rack density.
    Its leaves are the compute fabric's leaf model and uplink to the same spines."""

    name: str  # pool2, pool3: the plane its servers, leaves and links are listed under
    gpus: int
    gpus_per_server: int = 8
    rails: int  # NICs per server on the compute fabric
    nic_speed_gbps: int
    nic: NicSpec | None = None
    servers_per_rack: int = 4

    @property
    def servers(self) -> int:
        return self.gpus // self.gpus_per_server


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
    scale_up: ScaleUpRequest | None = None
    pools: tuple[PoolRequest, ...] = ()  # other kinds of servers sharing the compute spines

    @property
    def servers(self) -> int:
        return self.gpus // self.gpus_per_server

    @property
    def gpus_total(self) -> int:
        """Every pool's GPUs, the first pool's (`gpus`) and the others' (`pools`)."""
        return self.gpus + sum(pool.gpus for pool in self.pools)

    @property
    def servers_total(self) -> int:
        return self.servers + sum(pool.servers for pool in self.pools)

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
    if request.scale_up is not None:  # only then: older requests keep their exact JSON
        out.update(_scale_up_to_dict(request.scale_up))
    if request.pools:  # likewise
        out["pools"] = [_pool_to_dict(pool) for pool in request.pools]
    return out


def _pool_to_dict(pool: PoolRequest) -> dict[str, object]:
    return {
        "gpus": pool.gpus,
        "gpus_per_server": pool.gpus_per_server,
        "rails": pool.rails,
        "nic_speed": pool.nic_speed_gbps,
        **({"nic": pool.nic.sku} if pool.nic is not None else {}),
        "servers_per_rack": pool.servers_per_rack,
    }


def _scale_up_to_dict(scale_up: ScaleUpRequest) -> dict[str, object]:
    return {
        **({"system": scale_up.system} if scale_up.system else {}),
        "trays_per_rack": scale_up.trays_per_rack,
        "active_trays_per_rack": scale_up.active_trays_per_rack,
        "nvlink_switch_trays": scale_up.nvlink_switch_trays,
        "tray_power_w": scale_up.tray_power_w,
        "rack_power_kw": scale_up.rack_power_kw,
        "cooling": scale_up.cooling.value,
    }


def planned_products(request: DesignRequest) -> tuple[str, ...]:
    """SKUs in the request whose lifecycle is still `planned`."""
    skus: set[str] = set()
    for choice in (request.leaf, request.spine, request.core):
        if choice is not None and choice.model.lifecycle == Lifecycle.PLANNED:
            skus.add(choice.model.label)
    for nic in (request.nic, *(pool.nic for pool in request.pools)):
        if nic is not None and nic.lifecycle == Lifecycle.PLANNED:
            skus.add(nic.sku)
    return tuple(sorted(skus))
