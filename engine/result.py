"""A sized design as typed, frozen data, and the one versioned JSON codec for it.

The engine's `Design` holds what sizing needs (shapes, media choices, run tables); a
`DesignResult` holds what is shown, exported, quoted and stored: every figure the API promises,
with the same names as its JSON keys. The API, the CLI (`size --format json`) and storage all
write `result_to_json(result)` and read `result_from_json(data)`, so a renamed field fails loudly
in one place instead of showing zeros on a page.

Schema history (bump `RESULT_SCHEMA` and teach `result_from_json` the old one when a field
changes meaning):
- 1: the format the API has always answered with. Rows stored before the codec carry no
  "schema" key and may lack fields the engine added later (maximum power, link ends, fibre
  lines, run distributions, translatable texts); those read as their defaults.
  `engine_version` (engine.version) came later in schema 1: the engine that sized the
  result. Rows stored before it have no such key and read as None (re-encoded without it).
  `scale_up` (issue 28: a rack-scale design's racks, trays and NVLink domain) came later still,
  present only for rack-scale designs: every other result's JSON is as it was. `pools`
  (issue 28: heterogeneous pools) likewise, present only when the request has them.

The same module encodes the engine's `CatalogSnapshot` (products with their prices), so that a
saved design keeps the catalog it was sized against (`snapshot_to_json`, `snapshot_from_json`).
Pure Python: no Django."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from engine.catalog import (
    CableSpec,
    CatalogSnapshot,
    MediaRule,
    NicSpec,
    PatchPanelSpec,
    SwitchSpec,
    TransceiverSpec,
)
from engine.codec import (
    ResultFormatError as ResultFormatError,  # raised by this module's readers, caught by callers
)
from engine.codec import (
    decode,
    decode_dataclass,
    encode,
    format_error,
    omit_none,
)
from engine.design import Design, LinkEnd, LinkGroup, PlaneDesign, TierDesign
from engine.pools import PoolSummary, pool_summaries
from engine.request import to_dict
from engine.scale_up import ScaleUpDesign
from engine.text import Text
from engine.version import ENGINE_VERSION

RESULT_SCHEMA = 1
SNAPSHOT_SCHEMA = 1


class UnknownResultSchema(ResultFormatError):
    """A design result written by a newer planner (or garbage in "schema")."""


# --- the design result ---------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class TierResult:
    role: str
    switch: str
    sku: str | None
    description: str = ""
    count: int
    ports_per_switch: int
    ports_used: int
    ports_free: int
    downlinks: int
    uplinks: int
    downlink_speed_gbps: int
    uplink_speed_gbps: int
    downlink_breakout: str
    uplink_breakout: str
    oversubscription_target: float | None
    oversubscription: float | None
    power_w: int  # per switch
    rack_units: int  # per switch

    @property
    def down_gbps(self) -> int:
        return self.downlinks * self.downlink_speed_gbps

    @property
    def up_gbps(self) -> int:
        return self.uplinks * self.uplink_speed_gbps


@dataclass(frozen=True, kw_only=True)
class LinkEndResult:
    role: str
    form_factor: str | None  # None: an inline NIC speed with no catalog NIC
    cages: int
    links_per_cage: int


@dataclass(frozen=True, kw_only=True)
class FibreLine:
    """Passive fibre beside a link group's modules: the run's cord or trunk, patch cords, panels."""

    kind: str  # patch_cord | trunk | splitter | patch_panel
    sku: str
    description: str
    quantity: int
    length_m: float | None = field(default=None, metadata=omit_none())
    ports_used: int | None = field(default=None, metadata=omit_none())  # panels only


@dataclass(frozen=True, kw_only=True)
class RunLinks:
    run_m: float
    links: int


@dataclass(frozen=True, kw_only=True)
class LinkResult:
    """A link group with both ends: `a` the lower tier, `b` the upper."""

    plane: str
    a: str
    b: str
    count: int  # links
    speed_gbps: int
    media: str
    length_m: float  # stock length sold
    cable_sku: str  # empty for a generic stand-in
    cable_description: str = ""  # stored results before the engine named it: the SKU is all
    cables: int
    links_per_cable: int
    transceiver_sku_a: str | None
    transceiver_sku_b: str | None
    transceivers: int
    transceivers_a: int = 0
    transceivers_b: int = 0
    end_a: LinkEndResult | None = None
    end_b: LinkEndResult | None = None
    fibre: tuple[FibreLine, ...] = ()
    runs_m: tuple[float, ...] = ()
    run_links: tuple[RunLinks, ...] = ()
    catalog_gap: bool = False


@dataclass(frozen=True, kw_only=True)
class GrowthResult:
    max_gpus_current_spines: int
    max_gpus_same_tiers: int
    free_server_slots: int


@dataclass(frozen=True, kw_only=True)
class LengthResult:
    a: str
    b: str
    length_m: float
    links: int


@dataclass(frozen=True, kw_only=True)
class RunDistribution:
    a: str
    b: str
    run_m: float
    links: int


@dataclass(frozen=True, kw_only=True)
class PlaneResult:
    name: str  # compute | storage | frontend | oob
    style: str
    tiers_count: int
    fabric_planes: int
    pods: int
    groups: int
    group_servers: int
    nic_speed_gbps: int
    tiers: tuple[TierResult, ...]
    bisection_gbps: int
    bandwidth_per_server_gbps: int
    bandwidth_per_gpu_gbps: float
    leaf_downlink_gbps: int
    leaf_uplink_gbps: int
    growth: GrowthResult
    lengths: tuple[LengthResult, ...] = ()
    run_distribution: tuple[RunDistribution, ...] = ()


@dataclass(frozen=True, kw_only=True)
class BomLineResult:
    sku: str  # empty for a generic part that stands in for a catalog gap
    description: str
    quantity: int
    power_w: int  # total for the line, typical
    power_max_w: int  # total for the line at maximum load
    rack_units: int
    plane: str
    tier: str  # leaf, spine, core, server, server-leaf, leaf-spine, ...
    category: str  # nic, switch, transceiver, cable, patch_panel
    catalog_gap: bool = False
    description_text: Text | None = field(default=None, metadata=omit_none())


@dataclass(frozen=True, kw_only=True)
class WarningResult:
    code: str
    message: str  # English
    action: str
    # Templates and values, to show the warning in the reader's language (planner.i18n).
    message_text: Text | None = None
    action_text: Text | None = None


@dataclass(frozen=True, kw_only=True)
class DesignResult:
    gpus: int
    gpus_per_server: int
    servers: int
    scalable_units: int
    racks: int
    fabric: str
    tiers: int
    switches: Mapping[str, int]  # switches by role ("leaf", "storage_leaf", ...)
    links: tuple[LinkResult, ...]
    links_total: int
    cables_total: int
    transceivers_total: int
    oversubscription: Mapping[str, float]  # achieved, by compute tier
    bisection_gbps: int
    bandwidth_per_gpu_gbps: float
    bandwidth_per_server_gbps: int
    growth: GrowthResult
    power_w: int
    power_max_w: int
    power_per_rack_w: int
    power_per_row_w: int = 0
    catalog_gaps: int = 0  # BOM lines that are generic stand-ins
    bom: tuple[BomLineResult, ...]
    warnings: tuple[WarningResult, ...]
    notes: tuple[str, ...] = ()  # trade-offs of an alternative, in English
    notes_text: tuple[Text, ...] = ()
    cost: Decimal | None = None  # in the price list's currency, when prices were given
    cost_estimated: bool = False
    unpriced_lines: int = 0
    label: str = ""  # what an alternative optimises: lowest_cost, most_resilient, most_growth
    # Every measure the alternative is best at among those offered, `label` first (one design
    # may be both the cheapest and the one that grows furthest). Absent before it was kept.
    labels: tuple[str, ...] = ()
    planes: tuple[PlaneResult, ...] = ()
    request: Mapping[str, Any] = field(default_factory=dict)  # the engine request, as JSON
    # The engine that sized it: a saved design is re-derived (cabling, racks) only by the same
    # one. None: stored before versions were kept (and left out of the JSON, as it was).
    engine_version: str | None = field(default=None, metadata=omit_none())
    # A rack-scale (NVL72-class) design's racks, trays, power and NVLink domain; absent (not
    # null) for servers, so a design of servers keeps its JSON byte for byte.
    scale_up: ScaleUpDesign | None = field(default=None, metadata=omit_none())
    # Other kinds of servers on the compute fabric (issue 28), each with a plane of its own
    # leaves and links; absent for a fabric of one kind, whose JSON stays as it was.
    pools: tuple[PoolSummary, ...] | None = field(default=None, metadata=omit_none())

    @property
    def gpus_total(self) -> int:
        """Every pool's GPUs: `gpus` and `servers` are the first pool's, which the training
        view sizes jobs on; the cluster is quoted and priced per all of them."""
        return self.gpus + sum(pool.gpus for pool in self.pools or ())

    @property
    def servers_total(self) -> int:
        return self.servers + sum(pool.servers for pool in self.pools or ())

    @property
    def racks_total(self) -> int:
        """Compute racks of every pool, each pool's in racks of its own."""
        return self.racks + sum(pool.racks for pool in self.pools or ())

    @property
    def compute(self) -> PlaneResult | None:
        return self.planes[0] if self.planes else None

    @property
    def scale_up_gpus(self) -> int:
        """GPUs one NVLink domain joins (a rack-scale rack's active GPUs, else a server's)."""
        return self.scale_up.domain_gpus if self.scale_up else self.gpus_per_server

    @property
    def switches_total(self) -> int:
        return sum(self.switches.values())

    @property
    def rack_units(self) -> int:
        return sum(line.rack_units for line in self.bom)

    def plane_links(self, plane: str) -> tuple[LinkResult, ...]:
        return tuple(link for link in self.links if link.plane == plane)


# --- from the engine's design --------------------------------------------------------------


def _role(plane: PlaneDesign, role: str) -> str:
    # The compute plane's roles are the bare names the API promises ({"leaf": 32, ...}).
    return role if plane.name == "compute" else f"{plane.name}_{role}"


def _tier(tier: TierDesign) -> TierResult:
    return TierResult(
        role=tier.role,
        switch=tier.switch,
        sku=tier.sku,
        description=tier.description,
        count=tier.count,
        ports_per_switch=tier.physical_ports,
        ports_used=tier.ports_used,
        ports_free=tier.ports_free,
        downlinks=tier.downlinks,
        uplinks=tier.uplinks,
        downlink_speed_gbps=tier.downlink_speed_gbps,
        uplink_speed_gbps=tier.uplink_speed_gbps,
        downlink_breakout=tier.downlink_breakout,
        uplink_breakout=tier.uplink_breakout,
        oversubscription_target=tier.oversubscription_target,
        oversubscription=tier.oversubscription,
        power_w=tier.power_w,
        rack_units=tier.rack_units,
    )


def _end(end: LinkEnd | None) -> LinkEndResult | None:
    if end is None:
        return None
    return LinkEndResult(
        role=end.role,
        form_factor=end.form_factor.value if end.form_factor else None,
        cages=end.cages,
        links_per_cage=end.links_per_cage,
    )


def _fibre(group: LinkGroup) -> tuple[FibreLine, ...]:
    """The passive fibre a link group needs besides its modules: one cord per link, or for
    structured runs a trunk per link, a patch cord at each end and the panels they meet."""
    choice = group.choice
    if choice is None or group.media.value not in ("mmf", "smf"):
        return ()
    lines = [
        FibreLine(
            kind=choice.cable.kind.value,
            sku=choice.cable.sku,
            description=choice.cable.name,
            quantity=group.cables,
            length_m=choice.cable.length_m,
        )
    ]
    if choice.cord is not None and group.cords:
        lines.append(
            FibreLine(
                kind="patch_cord",
                sku=choice.cord.sku,
                description=choice.cord.name,
                quantity=group.cords,
                length_m=choice.cord.length_m,
            )
        )
    if choice.panel is not None and group.panels:
        lines.append(
            FibreLine(
                kind="patch_panel",
                sku=choice.panel.sku,
                description=choice.panel.name,
                quantity=group.panels,
                ports_used=group.panel_ports,
            )
        )
    return tuple(lines)


def _link(group: LinkGroup) -> LinkResult:
    return LinkResult(
        plane=group.plane,
        a=group.a,
        b=group.b,
        count=group.links,
        speed_gbps=group.speed_gbps,
        media=group.media.value,
        length_m=group.length_m,
        cable_sku=group.cable_sku,
        cable_description=group.choice.cable.name if group.choice else group.cable_sku,
        cables=group.cables,
        links_per_cable=group.links_per_cable,
        transceiver_sku_a=group.transceiver_sku_a,
        transceiver_sku_b=group.transceiver_sku_b,
        transceivers=group.transceivers,
        transceivers_a=group.transceivers_a,
        transceivers_b=group.transceivers_b,
        end_a=_end(group.end_a),
        end_b=_end(group.end_b),
        fibre=_fibre(group),
        runs_m=tuple(group.runs_m),
        run_links=tuple(RunLinks(run_m=run, links=links) for run, links in group.run_links),
        catalog_gap=group.catalog_gap,
    )


def _growth(plane: PlaneDesign) -> GrowthResult:
    return GrowthResult(
        max_gpus_current_spines=plane.growth.max_gpus_current_spines,
        max_gpus_same_tiers=plane.growth.max_gpus_same_tiers,
        free_server_slots=plane.growth.free_server_slots,
    )


def _run_distribution(plane: PlaneDesign) -> tuple[RunDistribution, ...]:
    # The computed runs before rounding to stock: where the racks stand, link by link.
    links: dict[tuple[str, str, float], int] = {}
    for group in plane.links:
        for run, count in group.run_links:
            key = (group.a, group.b, round(run, 1))
            links[key] = links.get(key, 0) + count
    return tuple(
        RunDistribution(a=a, b=b, run_m=run, links=count)
        for (a, b, run), count in sorted(links.items())
    )


def _plane(plane: PlaneDesign) -> PlaneResult:
    shape = plane.shape
    return PlaneResult(
        name=plane.name,
        style=plane.style,
        tiers_count=shape.tiers,
        fabric_planes=shape.fabric_planes,
        pods=shape.pods if shape.tiers == 3 else 0,
        groups=shape.groups,
        group_servers=shape.group_servers,
        nic_speed_gbps=shape.nic_speed_gbps,
        tiers=tuple(_tier(tier) for tier in plane.tiers),
        bisection_gbps=plane.bisection_gbps,
        bandwidth_per_server_gbps=plane.bandwidth_per_server_gbps,
        bandwidth_per_gpu_gbps=plane.bandwidth_per_gpu_gbps,
        leaf_downlink_gbps=plane.leaf_downlink_gbps,
        leaf_uplink_gbps=plane.leaf_uplink_gbps,
        growth=_growth(plane),
        lengths=tuple(
            LengthResult(a=b.a, b=b.b, length_m=b.length_m, links=b.links) for b in plane.lengths
        ),
        run_distribution=_run_distribution(plane),
    )


def design_result(design: Design) -> DesignResult:
    """What a sized design shows and stores, from the engine's design."""
    compute = design.compute
    switches: dict[str, int] = {}
    for plane in design.planes:
        for tier in plane.tiers:
            switches[_role(plane, tier.role)] = tier.count
    return DesignResult(
        gpus=design.gpus,
        gpus_per_server=design.gpus_per_server,
        servers=design.servers,
        scalable_units=design.scalable_units,
        racks=design.racks,
        fabric=compute.style,
        tiers=compute.shape.tiers,
        switches=switches,
        links=tuple(_link(group) for plane in design.planes for group in plane.links),
        links_total=design.links_total,
        cables_total=design.cables_total,
        transceivers_total=design.transceivers_total,
        oversubscription={
            tier.role: float(tier.oversubscription)
            for tier in compute.tiers
            if tier.oversubscription is not None
        },
        bisection_gbps=compute.bisection_gbps,
        bandwidth_per_gpu_gbps=compute.bandwidth_per_gpu_gbps,
        bandwidth_per_server_gbps=compute.bandwidth_per_server_gbps,
        growth=_growth(compute),
        power_w=design.power_w,
        power_max_w=design.power_max_w,
        power_per_rack_w=design.power_per_rack_w,
        power_per_row_w=design.power_per_row_w,
        catalog_gaps=sum(1 for line in design.bom if line.catalog_gap),
        bom=tuple(
            BomLineResult(
                sku=line.sku,
                description=line.description,
                quantity=line.quantity,
                power_w=line.power_w,
                power_max_w=line.power_max_w,
                rack_units=line.rack_units,
                plane=line.plane,
                tier=line.tier,
                category=line.category,
                catalog_gap=line.catalog_gap,
                description_text=line.description_text,
            )
            for line in design.bom
        ),
        warnings=tuple(
            WarningResult(
                code=w.code,
                message=w.message,
                action=w.action,
                message_text=w.message_text,
                action_text=w.action_text,
            )
            for w in design.warnings
        ),
        notes=tuple(str(note) for note in design.notes),
        notes_text=tuple(design.notes),
        cost=design.cost,
        cost_estimated=design.cost_estimated,
        unpriced_lines=design.unpriced_lines,
        label=design.label,
        labels=design.labels,
        planes=tuple(_plane(plane) for plane in design.planes),
        request=to_dict(design.request),
        engine_version=ENGINE_VERSION,
        scale_up=design.scale_up,
        pools=pool_summaries(design.request),
    )


# --- the design result's JSON ----------------------------------------------------------------


def result_to_json(result: DesignResult) -> dict[str, Any]:
    """The JSON the API answers with, the CLI prints and a saved design stores."""
    data: dict[str, Any] = encode(result)
    # Warnings keep the API's shape: English text plus both texts under "text".
    data["warnings"] = [
        {
            "code": w.code,
            "message": w.message,
            "action": w.action,
            **(
                {"text": {"message": w.message_text.as_dict(), "action": w.action_text.as_dict()}}
                if w.message_text is not None and w.action_text is not None
                else {}
            ),
        }
        for w in result.warnings
    ]
    data["schema"] = RESULT_SCHEMA
    return data


def _legacy_bom_line(line: Any) -> Any:
    # Stored before the engine kept maxima: the typical figure is the best there is.
    if isinstance(line, dict) and "power_max_w" not in line:
        return {**line, "power_max_w": line.get("power_w", 0)}
    return line


def _warning(data: Any, path: str) -> WarningResult:
    if not isinstance(data, dict):
        raise format_error(path, "a warning object", data)
    texts = data.get("text")
    message_text = action_text = None
    if isinstance(texts, dict):
        message_text = decode(Text, texts.get("message"), f"{path}.text.message")
        action_text = decode(Text, texts.get("action"), f"{path}.text.action")
    return WarningResult(
        code=decode(str, data.get("code"), f"{path}.code"),
        message=decode(str, data.get("message"), f"{path}.message"),
        action=decode(str, data.get("action", ""), f"{path}.action"),
        message_text=message_text,
        action_text=action_text,
    )


def result_from_json(data: Mapping[str, Any]) -> DesignResult:
    """A stored or received design result. Raises `UnknownResultSchema` for a version this code
    does not know and `ResultFormatError` for anything else it cannot read."""
    if not isinstance(data, Mapping):
        raise format_error("result", "an object", data)
    schema = data.get("schema", RESULT_SCHEMA)
    if schema != RESULT_SCHEMA or isinstance(schema, bool):
        raise UnknownResultSchema(
            f"design result schema {schema!r}: this planner reads schema {RESULT_SCHEMA}"
        )
    # Warnings are read on their own (below): their texts sit under "text", not in fields.
    body = {key: value for key, value in data.items() if key != "schema"} | {"warnings": []}
    if isinstance(body.get("bom"), list):
        body["bom"] = [_legacy_bom_line(line) for line in body["bom"]]
    body.setdefault("power_max_w", body.get("power_w", 0))
    if "catalog_gaps" not in body and isinstance(body.get("bom"), list):
        body["catalog_gaps"] = sum(
            1 for line in body["bom"] if isinstance(line, dict) and line.get("catalog_gap")
        )
    result: DesignResult = decode_dataclass(DesignResult, body, "result")
    warnings = data.get("warnings", [])
    if not isinstance(warnings, list):
        raise format_error("result.warnings", "a list", warnings)
    return dataclasses.replace(
        result,
        warnings=tuple(_warning(w, f"result.warnings[{i}]") for i, w in enumerate(warnings)),
    )


# --- the catalog snapshot a design was sized with --------------------------------------------


_SNAPSHOT_GROUPS: tuple[tuple[str, type], ...] = (
    ("nics", NicSpec),
    ("switches", SwitchSpec),
    ("transceivers", TransceiverSpec),
    ("cables", CableSpec),
    ("patch_panels", PatchPanelSpec),
    ("media_rules", MediaRule),
)


def snapshot_to_json(snapshot: CatalogSnapshot) -> dict[str, Any]:
    """Every product the engine could pick, with its price and cost, as JSON."""
    data: dict[str, Any] = encode(snapshot)
    data["schema"] = SNAPSHOT_SCHEMA
    return data


def snapshot_from_json(data: Mapping[str, Any]) -> CatalogSnapshot:
    schema = data.get("schema") if isinstance(data, Mapping) else None
    if schema != SNAPSHOT_SCHEMA:
        raise UnknownResultSchema(
            f"catalog snapshot schema {schema!r}: this planner reads schema {SNAPSHOT_SCHEMA}"
        )
    body = {key: value for key, value in data.items() if key != "schema"}
    snapshot: CatalogSnapshot = decode_dataclass(CatalogSnapshot, body, "snapshot")
    return snapshot


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_sha256(data: Any) -> str:
    """The address of a stored snapshot: the same content is stored once."""
    return hashlib.sha256(canonical_json(data).encode()).hexdigest()
