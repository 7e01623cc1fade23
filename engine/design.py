"""The result of sizing: a frozen tree that the serializer, the cabling plan, the graph checks and
the topology drawing all read. Counts only; individual links and cables are never materialised
here (see `cabling.iter_cabling` for the per-cable view)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, NamedTuple

from engine.catalog import FormFactor, MediaKind
from engine.request import DesignRequest
from engine.text import Text

if TYPE_CHECKING:
    from engine.media import MediaChoice
    from engine.scale_up import ScaleUpDesign


@dataclass(frozen=True, kw_only=True)
class LeafGroup:
    """`count` identical leaf groups (a scalable unit, a rack, or one leaf of packed endpoints)."""

    count: int
    servers: int  # endpoints (servers, or ports for packed planes) in one group
    leaves: int  # leaves in one group
    downlinks_per_leaf: int  # server-facing links actually used on each leaf


@dataclass(frozen=True, kw_only=True)
class PlaneShape:
    """The arithmetic skeleton of one plane's fabric; enough to rebuild any link deterministically.

    Leaves are numbered group by group; group `g` belongs to pod `g // groups_per_pod`. Spine `j`
    of a pod connects to every leaf of the pod with `leaf_spine_links` links; core `c` belongs to
    core group `c // cores_per_group`, which serves spine `j = c // cores_per_group` of every pod
    with `spine_core_links` links."""

    plane: str
    style: str  # rail | rail-plane | tor | packed
    fabric_planes: int  # identical, disconnected copies (rail-plane: one per rail group)
    tiers: int  # 1, 2 or 3
    nic_speed_gbps: int
    ports_per_server: int  # per fabric plane
    links_per_server_per_leaf: int
    servers: int  # servers (or endpoints for packed planes) attached to each fabric plane
    group_servers: int  # servers in a full leaf group
    leaf_groups: tuple[LeafGroup, ...]
    leaf_downlinks: int  # design value (a full group's leaf)
    leaf_uplinks: int
    uplink_speed_gbps: int
    groups_per_pod: int
    pods: int
    spines_per_pod: int
    leaf_spine_links: int
    spine_downlinks: int
    spine_uplinks: int
    core_speed_gbps: int
    cores_per_group: int
    spine_core_links: int
    extra_endpoints: int = 0  # storage nodes' or switches' management ports in packed planes
    # Heterogeneous pools (issue 28, engine.pools). On the compute plane: the ports of its top
    # tier (spines on two tiers, cores on three) the pools take after its own, cage-aligned.
    # On a pool's plane: whose top tier it shares (on two tiers its leaves uplink to those
    # spines; on three its pods' spines to those cores), where its links start on it, and
    # where its racks stand (its first server, in its own servers per rack, after the racks
    # before it; on two tiers its spines stand by the middle of the first `span_servers`).
    pool_top_downlinks: int = 0
    spine_plane: str = ""
    spine_port_offset: int = 0
    first_server: int = 0
    span_servers: int = 0

    @property
    def groups(self) -> int:
        return sum(group.count for group in self.leaf_groups)

    @property
    def leaves(self) -> int:
        """Leaves per fabric plane."""
        return sum(group.count * group.leaves for group in self.leaf_groups)

    @property
    def leaves_per_group(self) -> int:
        return self.leaf_groups[0].leaves

    @property
    def spines(self) -> int:
        return self.pods * self.spines_per_pod if self.tiers >= 2 else 0

    @property
    def cores(self) -> int:
        return self.spines_per_pod * self.cores_per_group if self.tiers == 3 else 0

    @property
    def shares_spines(self) -> bool:
        """A pool's plane whose leaves uplink to another plane's spines (two tiers)."""
        return bool(self.spine_plane) and self.tiers == 2

    @property
    def shares_cores(self) -> bool:
        """A pool's plane whose pods' spines uplink to another plane's cores (three tiers)."""
        return bool(self.spine_plane) and self.tiers == 3


@dataclass(frozen=True, kw_only=True)
class TierDesign:
    plane: str
    role: str  # leaf | spine | core
    switch: str  # SKU or inline spec label
    sku: str | None
    description: str
    count: int
    physical_ports: int
    ports_used: int  # physical, on the busiest switch of the tier
    ports_free: int
    downlinks: int  # logical, per switch
    uplinks: int
    downlink_speed_gbps: int
    uplink_speed_gbps: int
    downlink_breakout: str  # "" when native, e.g. "2x400G"
    uplink_breakout: str
    oversubscription_target: float | None
    oversubscription: float | None  # achieved downlink:uplink bandwidth; None without uplinks
    power_w: int  # per switch
    rack_units: int  # per switch


@dataclass(frozen=True, kw_only=True)
class LinkEnd:
    """One side of a link group: the cages it plugs into and how many links each carries (2 in
    an 800G cage running 2x400G)."""

    role: str
    form_factor: FormFactor | None  # None: an inline NIC speed with no catalog NIC
    cages: int
    links_per_cage: int


@dataclass(frozen=True, kw_only=True)
class LinkGroup:
    """Identical links between two tiers: three separate counts, because a breakout cable or a
    twin-port module carries several links. `a` is the lower tier, `b` the upper; a generic
    stand-in part (no catalog item fits) has an empty SKU and makes the group a catalog gap."""

    plane: str
    a: str  # lower tier: server, storage, leaf, spine
    b: str
    links: int
    speed_gbps: int
    media: MediaKind
    length_m: float  # stock length sold
    cable_sku: str
    cables: int
    links_per_cable: int
    transceiver_sku_a: str | None = None
    transceiver_sku_b: str | None = None
    transceivers: int = 0
    links_per_transceiver_a: int = 1
    links_per_transceiver_b: int = 1
    end_a: LinkEnd | None = None
    end_b: LinkEnd | None = None
    transceivers_a: int = 0
    transceivers_b: int = 0
    cord_sku: str | None = None  # structured cabling: a patch cord at each end of the trunk
    cords: int = 0
    panel_sku: str | None = None
    panel_ports: int = 0  # one at each end of every trunk
    panels: int = 0
    catalog_gap: bool = False
    runs_m: tuple[float, ...] = ()  # the computed runs (before stock rounding) it carries
    run_links: tuple[tuple[float, int], ...] = ()  # links per computed run: the distribution
    shared: bool = True  # all lanes of a broken-out upper cage go to one lower cage
    choice: MediaChoice | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True)
class LengthBin:
    a: str
    b: str
    length_m: float
    links: int


class RunMedia(NamedTuple):
    """Which link group carries links whose computed run is `run_m` (before stock rounding) into
    cages of `form_factor` run `ways` ways at the upper end, so the cabling plan gives each cable
    the same media as the counts. A named tuple: a design holds one per distinct run."""

    a: str
    b: str
    run_m: float
    link_index: int  # into PlaneDesign.links
    form_factor: FormFactor | None = None
    ways: int = 1
    lower_form_factor: FormFactor | None = None
    lower_ways: int = 1


class DownPart(NamedTuple):
    """Consecutive server-facing links of a leaf on one port group: `links` links in cages of
    `form_factor` run `ways` ways, numbered from physical port `first_port` (0-based)."""

    form_factor: FormFactor | None
    ways: int
    links: int
    first_port: int


@dataclass(frozen=True, kw_only=True)
class BomLine:
    sku: str  # empty for a generic part that stands in for a catalog gap
    description: str
    quantity: int
    power_w: int  # total for the line
    rack_units: int  # total for the line
    plane: str
    tier: str  # leaf, spine, core, server, server-leaf, leaf-spine, ...
    category: str  # nic, switch, transceiver, cable, patch_panel
    catalog_gap: bool = False
    description_text: Text | None = None  # for a generic part, translatable
    power_max_w: int = 0  # total for the line at maximum load


@dataclass(frozen=True, kw_only=True)
class DesignWarning:
    """Something the sales engineer should check, and what to do about it; both translatable."""

    code: str
    message_text: Text
    action_text: Text

    @property
    def message(self) -> str:
        return str(self.message_text)

    @property
    def action(self) -> str:
        return str(self.action_text)


@dataclass(frozen=True, kw_only=True)
class Growth:
    """How far the design grows: with the switches it has, and with its tier count."""

    max_gpus_current_spines: int  # add leaves (and SUs) only, keep the top tier as built
    max_gpus_same_tiers: int  # add spines/cores of the same model, no new tier
    free_server_slots: int  # servers that fit on free leaf ports of partial groups today


@dataclass(frozen=True, kw_only=True)
class PlaneDesign:
    name: str  # compute | storage | frontend | oob
    style: str
    shape: PlaneShape
    tiers: tuple[TierDesign, ...]
    links: tuple[LinkGroup, ...]
    lengths: tuple[LengthBin, ...]
    bisection_gbps: int
    bandwidth_per_server_gbps: int
    bandwidth_per_gpu_gbps: float
    leaf_downlink_gbps: int
    leaf_uplink_gbps: int
    growth: Growth
    runs: tuple[RunMedia, ...] = ()
    # How a leaf with so many downlinks spreads them over its port groups, by downlink count.
    down_parts: tuple[tuple[int, tuple[DownPart, ...]], ...] = ()
    # The port groups of each switch-to-switch end (`wiring.port_parts`).
    leaf_up_parts: tuple[DownPart, ...] = ()
    spine_down_parts: tuple[DownPart, ...] = ()
    spine_up_parts: tuple[DownPart, ...] = ()
    core_down_parts: tuple[DownPart, ...] = ()

    def run_media(
        self,
        a: str,
        b: str,
        run_m: float,
        upper: DownPart | None = None,
        lower: DownPart | None = None,
    ) -> LinkGroup:
        """The group carrying links of a computed run between cages of these parts; where a
        cage's lanes share one group cut for the longest of their runs, that group."""
        fallback: tuple[float, int] | None = None
        for run in self.runs:
            if run.a != a or run.b != b or run.run_m < run_m - 1e-6:
                continue
            if upper is not None and (run.ways, run.form_factor) != (
                upper.ways,
                upper.form_factor,
            ):
                continue
            if lower is not None and (run.lower_ways, run.lower_form_factor) != (
                lower.ways,
                lower.form_factor,
            ):
                continue
            if abs(run.run_m - run_m) < 1e-6:
                return self.links[run.link_index]
            if fallback is None or run.run_m < fallback[0]:
                fallback = (run.run_m, run.link_index)
        if fallback is not None:
            return self.links[fallback[1]]
        raise KeyError((a, b, run_m, upper, lower))

    def leaf_parts(self, downlinks: int) -> tuple[DownPart, ...]:
        for count, parts in self.down_parts:
            if count == downlinks:
                return parts
        raise KeyError(downlinks)

    def tier(self, role: str) -> TierDesign | None:
        return next((tier for tier in self.tiers if tier.role == role), None)


@dataclass(frozen=True, kw_only=True)
class Design:
    request: DesignRequest
    gpus: int
    gpus_per_server: int
    servers: int
    scalable_units: int
    racks: int  # compute racks
    planes: tuple[PlaneDesign, ...]
    bom: tuple[BomLine, ...]
    power_w: int  # all network equipment, typical: NICs, switches without optics, optics, AEC/AOC
    power_per_rack_w: int  # network equipment in one full compute rack
    warnings: tuple[DesignWarning, ...]
    notes: tuple[Text, ...] = field(default=())  # trade-offs, for alternatives
    cost: Decimal | None = None  # in the price list's currency, when prices were given
    cost_estimated: bool = False  # inline switch specs priced from catalog switches of their class
    unpriced_lines: int = 0  # BOM lines with no price (generic parts): the cost leaves them out
    label: str = ""  # what an alternative optimises: lowest_cost, most_resilient, most_growth
    labels: tuple[
        str, ...
    ] = ()  # every measure it is best at among the alternatives (`label` first)
    power_max_w: int = 0  # the same at maximum load
    power_per_row_w: int = 0  # network equipment for one full row of compute racks
    # A rack-scale (NVL72-class) design's racks, trays and NVLink domain; None for servers.
    scale_up: ScaleUpDesign | None = None

    @property
    def scale_up_gpus(self) -> int:
        """GPUs one scale-up (NVLink) domain joins: a rack-scale rack's active GPUs, else one
        server's. What tensor and expert parallelism may span without the scale-out fabric."""
        return self.scale_up.domain_gpus if self.scale_up else self.gpus_per_server

    @property
    def gpus_total(self) -> int:
        """Every pool's GPUs (engine.pools): what the cluster is quoted and priced per."""
        return self.request.gpus_total

    @property
    def servers_total(self) -> int:
        return self.request.servers_total

    @property
    def compute(self) -> PlaneDesign:
        return self.planes[0]

    def plane(self, name: str) -> PlaneDesign | None:
        return next((plane for plane in self.planes if plane.name == name), None)

    @property
    def links_total(self) -> int:
        return sum(group.links for plane in self.planes for group in plane.links)

    @property
    def cables_total(self) -> int:
        return sum(group.cables for plane in self.planes for group in plane.links)

    @property
    def transceivers_total(self) -> int:
        return sum(group.transceivers for plane in self.planes for group in plane.links)
