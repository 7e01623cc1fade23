"""Cable runs from rack geometry, and the media, cable and optics that carry each run.

Lengths are computed per rack position and rail, never per server, so their cost does not grow
with cluster size. Media follow the catalog's reach rules in the order of `MEDIA_PREFERENCE`."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from planner.engine.catalog import (
    COPPER_MEDIA,
    MEDIA_PREFERENCE,
    OPTICAL_MEDIA,
    CableSpec,
    CatalogSnapshot,
    FormFactor,
    MediaKind,
    MediaRule,
    TransceiverSpec,
)
from planner.engine.design import PlaneShape
from planner.engine.errors import MediaUnavailable
from planner.engine.ports import SwitchModel, ways
from planner.engine.request import Layout, LeafPlacement, MediaPolicy

RACK_HEIGHT_M = 2.0  # usable cabling height of a 42U rack
RACK_EXIT_M = 1.0  # from a port up to the overhead tray (and down again at the far end)
ROW_PITCH_M = 2.4  # 1.2 m rack depth + 1.2 m aisle between rows
NETWORK_ROW_RUN_M = 5.0  # between racks of the same network row
CORE_RUN_M = 15.0  # spine to core, both in the network area
LENGTH_STEP_M = 0.1


@dataclass(frozen=True, kw_only=True)
class PortEnd:
    form_factor: FormFactor | None  # None: unknown (inline NIC speed without a NIC SKU)
    native_gbps: int
    ways: int  # logical links per physical port at this end


def switch_end(model: SwitchModel, speed_gbps: int, fastest: bool) -> PortEnd:
    """The port group carrying `speed_gbps` links: downlinks sit on the slowest group that can,
    uplinks on the fastest (as `ports.leaf_capacity` allocates them)."""
    groups = sorted(model.port_groups, key=lambda g: g.speed_gbps, reverse=fastest)
    for group in groups:
        per_port = ways(group, speed_gbps)
        if per_port:
            return PortEnd(
                form_factor=group.form_factor, native_gbps=group.speed_gbps, ways=per_port
            )
    return PortEnd(form_factor=None, native_gbps=speed_gbps, ways=1)


def _round(length_m: float) -> float:
    return math.ceil(length_m / LENGTH_STEP_M - 1e-9) * LENGTH_STEP_M


def _vertical(slot: int, servers_per_rack: int) -> float:
    return (slot + 1) * RACK_HEIGHT_M / (servers_per_rack + 1)


def _leaf_row_offset(placement: LeafPlacement, layout: Layout, pos: int, row: int) -> float:
    """Horizontal run from rack (`row`, `pos`) to its leaf outside the rack."""
    width, per_row = layout.rack_width_m, layout.racks_per_row
    along_rows = row * ROW_PITCH_M
    if placement == LeafPlacement.MOR:
        return abs(pos - (per_row - 1) / 2) * width + along_rows
    if placement == LeafPlacement.EOR:
        return (per_row - pos) * width + along_rows
    # Dedicated network racks sit in the network row, beside the spines.
    return layout.spine_row_distance_m + pos * width + along_rows


def server_leaf_lengths(shape: PlaneShape, layout: Layout) -> Counter[float]:
    """Links per cable run (metres, before rounding to stock) between servers and leaves."""
    spr = layout.servers_per_rack
    per_row = layout.racks_per_row
    placement = layout.leaf_placement
    slack = layout.cable_slack_m
    runs: Counter[float] = Counter()
    ports = shape.ports_per_server * shape.fabric_planes
    if shape.style in ("rail", "rail-plane") and shape.tiers > 1:
        for group in shape.leaf_groups:
            racks = math.ceil(group.servers / spr)
            for server in range(group.servers):
                rack, slot = divmod(server, spr)
                row, pos = divmod(rack, per_row)
                for rail in range(ports):
                    if placement == LeafPlacement.TOR:
                        leaf_rack = rail % racks
                        if leaf_rack == rack:
                            length = _vertical(slot, spr)
                        else:
                            leaf_row, leaf_pos = divmod(leaf_rack, per_row)
                            length = (
                                abs(leaf_pos - pos) * layout.rack_width_m
                                + abs(leaf_row - row) * ROW_PITCH_M
                                + 2 * RACK_EXIT_M
                            )
                    else:
                        offset = _leaf_row_offset(placement, layout, pos, row)
                        length = offset + 2 * RACK_EXIT_M
                    runs[_round(length + slack)] += group.count
        return runs
    # ToR fabrics, single switches and packed planes: servers fill racks row by row; a leaf is
    # in the rack (tor) or at the row's middle/end or in the network row.
    servers = shape.servers - shape.extra_endpoints
    if shape.style == "packed":
        per_server = 1
        servers_ports = servers
        servers = math.ceil(servers_ports / max(shape.ports_per_server, 1))
        per_server = shape.ports_per_server
    else:
        per_server = ports
    full_racks, last = divmod(servers, spr)
    rack_counts: Counter[tuple[int, int]] = Counter()  # (position in row, servers in rack)
    for pos in range(min(per_row, full_racks)):
        rack_counts[(pos, spr)] += full_racks // per_row + (1 if pos < full_racks % per_row else 0)
    if last:
        rack_counts[(full_racks % per_row, last)] += 1
    single_switch = shape.tiers == 1 and shape.style != "tor"
    for (pos, in_rack), racks in sorted(rack_counts.items()):
        for slot in range(in_rack):
            if placement == LeafPlacement.TOR and not single_switch:
                length = _vertical(slot, spr)
            elif placement == LeafPlacement.TOR:
                length = _leaf_row_offset(LeafPlacement.MOR, layout, pos, 0) + 2 * RACK_EXIT_M
            else:
                length = _leaf_row_offset(placement, layout, pos, 0) + 2 * RACK_EXIT_M
            runs[_round(length + slack)] += racks * per_server
    if shape.extra_endpoints:
        runs[_round(NETWORK_ROW_RUN_M + 2 * RACK_EXIT_M + slack)] += shape.extra_endpoints
    return runs


def leaf_spine_lengths(shape: PlaneShape, layout: Layout) -> Counter[float]:
    """Links per cable run between leaves and spines (all fabric planes)."""
    runs: Counter[float] = Counter()
    slack = layout.cable_slack_m
    placement = layout.leaf_placement
    per_leaf = shape.leaf_uplinks * shape.fabric_planes
    if placement == LeafPlacement.NETWORK_RACK:
        runs[_round(NETWORK_ROW_RUN_M + 2 * RACK_EXIT_M + slack)] += shape.leaves * per_leaf
        return runs
    for group in shape.leaf_groups:
        for leaf in range(group.leaves):
            if placement == LeafPlacement.TOR:
                if shape.style in ("rail", "rail-plane"):
                    racks = math.ceil(group.servers / layout.servers_per_rack)
                    rack = leaf % racks
                else:
                    rack = 0
                row, pos = divmod(rack, layout.racks_per_row)
                offset = pos * layout.rack_width_m + row * ROW_PITCH_M
            elif placement == LeafPlacement.MOR:
                offset = (layout.racks_per_row - 1) / 2 * layout.rack_width_m
            else:
                offset = layout.racks_per_row * layout.rack_width_m
            length = layout.spine_row_distance_m + offset + 2 * RACK_EXIT_M + slack
            runs[_round(length)] += group.count * shape.leaf_uplinks
    if shape.fabric_planes > 1:
        runs = Counter({length: links * shape.fabric_planes for length, links in runs.items()})
    return runs


def spine_core_lengths(shape: PlaneShape, layout: Layout) -> Counter[float]:
    links = shape.spines * shape.spine_uplinks * shape.fabric_planes
    return Counter({_round(CORE_RUN_M + 2 * RACK_EXIT_M + layout.cable_slack_m): links})


# ---------------------------------------------------------------------------------------------
# Media selection


@dataclass(frozen=True, kw_only=True)
class MediaChoice:
    media: MediaKind
    length_m: float  # stock length
    cable: CableSpec
    links_per_cable: int
    transceiver_a: TransceiverSpec | None = None
    transceiver_b: TransceiverSpec | None = None
    links_per_transceiver_a: int = 1
    links_per_transceiver_b: int = 1


def _allowed(policy: MediaPolicy, speed_gbps: int) -> tuple[MediaKind, ...]:
    order = MEDIA_PREFERENCE
    if speed_gbps <= 10:
        # Management links at 1G/10G run on twisted pair when the catalog sells it.
        order = (MediaKind.UTP, *order)
    if policy == MediaPolicy.COPPER:
        return tuple(m for m in order if m in COPPER_MEDIA)
    if policy == MediaPolicy.OPTICAL:
        return tuple(m for m in order if m in OPTICAL_MEDIA)
    return order


class MediaSelector:
    """Per-request cache of media decisions, keyed by link type and run length."""

    def __init__(self, catalog: CatalogSnapshot, policy: MediaPolicy) -> None:
        self.catalog = catalog
        self.policy = policy
        self.rules: dict[tuple[int, MediaKind], MediaRule] = {
            (rule.speed_gbps, rule.media): rule for rule in catalog.media_rules
        }
        self.cache: dict[tuple[object, ...], MediaChoice] = {}

    def choose(
        self, link: str, speed_gbps: int, length_m: float, a: PortEnd, b: PortEnd
    ) -> MediaChoice:
        key = (speed_gbps, length_m, a, b)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        limits: list[str] = []
        for media in _allowed(self.policy, speed_gbps):
            rule = self.rules.get((speed_gbps, media))
            if media in (MediaKind.MMF, MediaKind.SMF):
                choice = self._optics(media, speed_gbps, length_m, a, b, rule, limits)
            else:
                choice = self._cable(media, speed_gbps, length_m, a, b, rule, limits)
            if choice is not None:
                self.cache[key] = choice
                return choice
        detail = "; ".join(limits) if limits else "the catalog has no media rule for this speed"
        raise MediaUnavailable(
            f"No {self.policy.value} media for the {link} links of {length_m:g} m at "
            f"{speed_gbps}G: {detail}."
        )

    def _cable(
        self,
        media: MediaKind,
        speed: int,
        length: float,
        a: PortEnd,
        b: PortEnd,
        rule: MediaRule | None,
        limits: list[str],
    ) -> MediaChoice | None:
        if rule is None:
            return None
        if rule.max_reach_m < length:
            limits.append(f"{media.value.upper()} reaches {rule.max_reach_m:g} m")
            return None
        # A cable whose fat end carries several links (a breakout splitter, or a twin-port
        # cable between two broken-out cages) counts once for all of them.
        shapes: list[tuple[int, int, int]] = []  # (cable speed, cable breakout ways, links)
        if a.ways > 1 and b.ways == a.ways:
            shapes.append((speed * a.ways, 1, a.ways))
        elif a.ways > 1 and b.ways == 1:
            shapes.append((speed * a.ways, a.ways, a.ways))
        shapes.append((speed, 1, 1))
        for cable_speed, cable_ways, links in shapes:
            cable = self._shortest(
                lambda c, cs=cable_speed, cw=cable_ways: (
                    c.media == media and c.speed_gbps == cs and c.breakout_ways == cw
                ),
                length,
            )
            if cable is not None:
                return MediaChoice(
                    media=media, length_m=cable.length_m, cable=cable, links_per_cable=links
                )
        limits.append(
            f"no {speed}G {media.value.upper()} cable of {length:g} m or more in the catalog"
        )
        return None

    def _shortest(self, match: object, length: float) -> CableSpec | None:
        assert callable(match)
        fits = [c for c in self.catalog.cables if match(c) and c.length_m >= length - 1e-9]
        return min(fits, key=lambda c: (c.length_m, c.sku), default=None)

    def _module(
        self, media: MediaKind, speed: int, end: PortEnd, length: float
    ) -> tuple[TransceiverSpec, int] | None:
        """The module for one end, and how many links it serves."""
        candidates: list[tuple[int, int, str, TransceiverSpec]] = []
        for module in self.catalog.transceivers:
            if module.media != media:
                continue
            if not any(reach.reach_m >= length for reach in module.reaches):
                continue
            serves = 0
            if end.ways > 1 and module.speed_gbps == speed * end.ways:
                serves = max(module.links_per_module, module.breakout_ways)
                if serves != end.ways:
                    serves = 0
            if not serves and module.speed_gbps == speed and module.links_per_module == 1:
                serves = 1
            if not serves:
                continue
            ff_penalty = 0 if end.form_factor in (None, module.form_factor) else 1
            candidates.append((ff_penalty, -serves, module.sku, module))
        if not candidates:
            return None
        best = min(candidates, key=lambda c: c[:3])
        return best[3], -best[1]

    def _optics(
        self,
        media: MediaKind,
        speed: int,
        length: float,
        a: PortEnd,
        b: PortEnd,
        rule: MediaRule | None,
        limits: list[str],
    ) -> MediaChoice | None:
        if rule is not None and rule.max_reach_m < length:
            limits.append(f"{media.value.upper()} reaches {rule.max_reach_m:g} m")
            return None
        mod_a = self._module(media, speed, a, length)
        mod_b = self._module(media, speed, b, length)
        if mod_a is None or mod_b is None:
            limits.append(f"no {speed}G {media.value.upper()} transceiver reaching {length:g} m")
            return None
        fibre_types = {
            reach.fibre_type
            for reach in (*mod_a[0].reaches, *mod_b[0].reaches)
            if reach.reach_m >= length
        }
        connector = mod_b[0].connector
        fibre = self._shortest(
            lambda c: (
                c.media == media
                and c.fibre_type in fibre_types
                and (c.connector in (None, connector))
            ),
            length,
        )
        if fibre is None:
            limits.append(
                f"no {media.value.upper()} {connector.value} fibre of {length:g} m or more in the "
                "catalog"
            )
            return None
        return MediaChoice(
            media=media,
            length_m=fibre.length_m,
            cable=fibre,
            links_per_cable=max(1, fibre.breakout_ways),
            transceiver_a=mod_a[0],
            transceiver_b=mod_b[0],
            links_per_transceiver_a=mod_a[1],
            links_per_transceiver_b=mod_b[1],
        )
