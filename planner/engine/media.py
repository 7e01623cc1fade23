"""Cable runs from rack geometry, and the media, cable and optics that carry each run.

Lengths are computed per rack position and rail, never per server, so their cost does not grow
with cluster size. Media follow the catalog's reach rules in the order of `MEDIA_PREFERENCE`."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import NamedTuple

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
from planner.engine.ports import SwitchModel, per_model, ways
from planner.engine.request import Layout, LeafPlacement, MediaPolicy
from planner.engine.text import Text, gettext_noop, text

RACK_HEIGHT_M = 2.0  # usable cabling height of a 42U rack
RACK_EXIT_M = 1.0  # from a port up to the overhead tray (and down again at the far end)
ROW_PITCH_M = 2.4  # 1.2 m rack depth + 1.2 m aisle between rows
NETWORK_ROW_RUN_M = 5.0  # between racks of the same network row
CORE_RUN_M = 15.0  # spine to core, both in the network area
LENGTH_STEP_M = 0.1


class PortEnd(NamedTuple):
    """One end of a link. A named tuple, not a dataclass: it keys the media selector's cache on
    every look-up, and a tuple hashes in C."""

    form_factor: FormFactor | None  # None: unknown (inline NIC speed without a NIC SKU)
    native_gbps: int
    ways: int  # logical links per physical port at this end


@per_model
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


def rail_run_m(layout: Layout, group_servers: int, server: int, rail: int) -> float:
    """Run from server `server` of a scalable unit to the leaf of `rail` (rail fabrics)."""
    spr, per_row = layout.servers_per_rack, layout.racks_per_row
    rack, slot = divmod(server, spr)
    row, pos = divmod(rack, per_row)
    if layout.leaf_placement == LeafPlacement.TOR:
        # Rail leaves are spread over the unit's racks, one rail per rack in turn.
        leaf_rack = rail % math.ceil(group_servers / spr)
        if leaf_rack == rack:
            return _round(_vertical(slot, spr) + layout.cable_slack_m)
        leaf_row, leaf_pos = divmod(leaf_rack, per_row)
        length = (
            abs(leaf_pos - pos) * layout.rack_width_m
            + abs(leaf_row - row) * ROW_PITCH_M
            + 2 * RACK_EXIT_M
        )
        return _round(length + layout.cable_slack_m)
    offset = _leaf_row_offset(layout.leaf_placement, layout, pos, row)
    return _round(offset + 2 * RACK_EXIT_M + layout.cable_slack_m)


def rack_run_m(layout: Layout, pos: int, slot: int, in_rack_leaf: bool) -> float:
    """Run from the server in `slot` of a rack at row position `pos` to its leaf (ToR fabrics,
    single switches and packed planes)."""
    if in_rack_leaf:
        return _round(_vertical(slot, layout.servers_per_rack) + layout.cable_slack_m)
    placement = layout.leaf_placement
    if placement == LeafPlacement.TOR:
        placement = LeafPlacement.MOR  # one switch for many racks cannot sit in all of them
    offset = _leaf_row_offset(placement, layout, pos, 0)
    return _round(offset + 2 * RACK_EXIT_M + layout.cable_slack_m)


def extra_run_m(layout: Layout) -> float:
    """Storage nodes and switch management ports: from a neighbouring network/storage rack."""
    return _round(NETWORK_ROW_RUN_M + 2 * RACK_EXIT_M + layout.cable_slack_m)


def in_rack_leaf(shape: PlaneShape, layout: Layout) -> bool:
    single_switch = shape.tiers == 1 and shape.style != "tor"
    return layout.leaf_placement == LeafPlacement.TOR and not single_switch


def rail_style(shape: PlaneShape) -> bool:
    return shape.style in ("rail", "rail-plane") and shape.tiers > 1


def server_leaf_lengths(shape: PlaneShape, layout: Layout) -> Counter[float]:
    """Links per cable run (metres, before rounding to stock) between servers and leaves."""
    spr = layout.servers_per_rack
    per_row = layout.racks_per_row
    runs: Counter[float] = Counter()
    ports = shape.ports_per_server * shape.fabric_planes
    if rail_style(shape):
        raise ValueError("rail fabrics are counted per cage: use rail_server_cages")
    # Servers fill racks row by row; count racks per row position instead of visiting them.
    if shape.style == "packed":
        per_server = shape.ports_per_server
        servers = (shape.servers - shape.extra_endpoints) // max(per_server, 1)
    else:
        per_server, servers = ports, shape.servers
    full_racks, last = divmod(servers, spr)
    rack_counts: Counter[tuple[int, int]] = Counter()  # (position in row, servers in rack)
    for pos in range(min(per_row, full_racks)):
        rack_counts[(pos, spr)] += full_racks // per_row + (1 if pos < full_racks % per_row else 0)
    if last:
        rack_counts[(full_racks % per_row, last)] += 1
    inside = in_rack_leaf(shape, layout)
    for (pos, in_rack), racks in sorted(rack_counts.items()):
        for slot in range(in_rack):
            runs[rack_run_m(layout, pos, slot, inside)] += racks * per_server
    if shape.extra_endpoints:
        runs[extra_run_m(layout)] += shape.extra_endpoints
    return runs


def cage_run_m(layout: Layout, group_servers: int, cage: int, ways: int, rail: int) -> float:
    """The run of a cage's longest lane: a breakout cable serving `ways` neighbouring servers of
    a rail is cut for the farthest one."""
    last = min(group_servers, (cage + 1) * ways)
    return max(rail_run_m(layout, group_servers, s, rail) for s in range(cage * ways, last))


def rail_server_cages(shape: PlaneShape, layout: Layout, ways: int) -> Counter[tuple[float, int]]:
    """Leaf cages facing servers in rail fabrics, by (run, lanes used): a cage of a k-way
    breakout serves k neighbouring servers of one rail."""
    cages: Counter[tuple[float, int]] = Counter()
    rails = shape.ports_per_server * shape.fabric_planes
    for group in shape.leaf_groups:
        for unit, count in _unit_cages(layout, group.servers, ways, rails):
            cages[unit] += count * group.count
    return cages


@lru_cache(maxsize=1024)
def _unit_cages(
    layout: Layout, servers: int, ways: int, rails: int
) -> tuple[tuple[tuple[float, int], int], ...]:
    """The server-facing cages of one scalable unit of `servers`, over all its rails, by (run,
    lanes used). Pure geometry of one unit, so it is computed once per layout and unit size."""
    cages: Counter[tuple[float, int]] = Counter()
    spr = layout.servers_per_rack
    if layout.leaf_placement == LeafPlacement.TOR:
        # Rail leaves sit in the unit's racks in turn, so each rail has its own runs.
        for cage in range(math.ceil(servers / ways)):
            lanes = min(ways, servers - cage * ways)
            for rail in range(rails):
                cages[(cage_run_m(layout, servers, cage, ways, rail), lanes)] += 1
        return tuple(cages.items())
    # Off-rack leaves: the run depends on the rack only, the same for every rail.
    by_rack = [
        rail_run_m(layout, servers, rack * spr, 0) for rack in range(math.ceil(servers / spr))
    ]
    for cage in range(math.ceil(servers / ways)):
        first = cage * ways
        lanes = min(ways, servers - first)
        low, high = first // spr, (first + lanes - 1) // spr
        run = by_rack[low] if low == high else max(by_rack[low : high + 1])
        cages[(run, lanes)] += rails
    return tuple(cages.items())


def leaf_spine_run_m(shape: PlaneShape, layout: Layout, group_servers: int, leaf: int) -> float:
    placement = layout.leaf_placement
    if placement == LeafPlacement.NETWORK_RACK:
        return _round(NETWORK_ROW_RUN_M + 2 * RACK_EXIT_M + layout.cable_slack_m)
    if placement == LeafPlacement.TOR:
        rack = 0
        if shape.style in ("rail", "rail-plane"):
            rack = leaf % math.ceil(group_servers / layout.servers_per_rack)
        row, pos = divmod(rack, layout.racks_per_row)
        offset = pos * layout.rack_width_m + row * ROW_PITCH_M
    elif placement == LeafPlacement.MOR:
        offset = (layout.racks_per_row - 1) / 2 * layout.rack_width_m
    else:
        offset = layout.racks_per_row * layout.rack_width_m
    return _round(layout.spine_row_distance_m + offset + 2 * RACK_EXIT_M + layout.cable_slack_m)


def spine_core_run_m(layout: Layout) -> float:
    return _round(CORE_RUN_M + 2 * RACK_EXIT_M + layout.cable_slack_m)


def leaf_spine_lengths(shape: PlaneShape, layout: Layout) -> Counter[float]:
    """Links per cable run between leaves and spines (all fabric planes)."""
    runs: Counter[float] = Counter()
    per_leaf = shape.leaf_uplinks * shape.fabric_planes
    rail_racks = layout.leaf_placement == LeafPlacement.TOR and shape.style in (
        "rail",
        "rail-plane",
    )
    for group in shape.leaf_groups:
        if not rail_racks:  # every leaf of the unit sits at the same distance from the spines
            run = leaf_spine_run_m(shape, layout, group.servers, 0)
            runs[run] += group.count * group.leaves * per_leaf
            continue
        for leaf in range(group.leaves):
            run = leaf_spine_run_m(shape, layout, group.servers, leaf)
            runs[run] += group.count * per_leaf
    return runs


def spine_core_lengths(shape: PlaneShape, layout: Layout) -> Counter[float]:
    links = shape.spines * shape.spine_uplinks * shape.fabric_planes
    return Counter({spine_core_run_m(layout): links})


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

    @cached_property
    def group_key(self) -> tuple[object, ...]:
        """What makes links one group in the design: same media, stock length, cable and
        optics. Cached: the selector hands out the same choice for every run it fits."""
        return (
            self.media,
            self.length_m,
            self.cable.sku,
            self.transceiver_a.sku if self.transceiver_a else None,
            self.transceiver_b.sku if self.transceiver_b else None,
        )


def _reach(media: MediaKind, rule: MediaRule) -> Text:
    return text(
        gettext_noop("%(media)s reaches %(reach)s m"),
        media=media.value.upper(),
        reach=float(rule.max_reach_m),
    )


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
        # Cables by (media, speed, breakout ways), shortest first, so a look-up scans few items.
        self.cables: dict[tuple[MediaKind, int, int], list[CableSpec]] = {}
        for cable in sorted(catalog.cables, key=lambda c: (c.length_m, c.sku)):
            self.cables.setdefault((cable.media, cable.speed_gbps, cable.breakout_ways), []).append(
                cable
            )

    def choose(
        self,
        link: str,
        speed_gbps: int,
        length_m: float,
        a: PortEnd,
        b: PortEnd,
        shared: bool = True,
    ) -> MediaChoice:
        """`shared`: whether the links of one cage may share a cable (breakout or twin cable);
        only when every lane of a cage goes to the same place or is counted per cage."""
        key = (speed_gbps, length_m, a, b, shared)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        limits: list[Text] = []
        for media in _allowed(self.policy, speed_gbps):
            rule = self.rules.get((speed_gbps, media))
            if media in (MediaKind.MMF, MediaKind.SMF):
                choice = self._optics(media, speed_gbps, length_m, a, b, rule, limits)
            else:
                choice = self._cable(media, speed_gbps, length_m, a, b, rule, limits, shared)
            if choice is not None:
                self.cache[key] = choice
                return choice
        if not limits:
            limits.append(text(gettext_noop("the catalog has no media rule for this speed")))
        raise MediaUnavailable(
            text(
                gettext_noop(
                    "No %(policy)s media for the %(link)s links of %(length)s m at %(speed)sG: "
                    "%(detail)s."
                ),
                policy=self.policy.value,
                link=link,
                length=float(length_m),
                speed=speed_gbps,
                detail=tuple(limits),
            )
        )

    def _cable(
        self,
        media: MediaKind,
        speed: int,
        length: float,
        a: PortEnd,
        b: PortEnd,
        rule: MediaRule | None,
        limits: list[Text],
        shared: bool,
    ) -> MediaChoice | None:
        if rule is None:
            return None
        if rule.max_reach_m < length:
            limits.append(_reach(media, rule))
            return None
        if media == MediaKind.UTP:
            if {a.form_factor, b.form_factor} - {FormFactor.RJ45, None}:
                # A patch cord needs an RJ45 jack at both ends; SFP cages take DAC or optics.
                limits.append(text(gettext_noop("UTP needs RJ45 ports at both ends")))
                return None
            # Twisted pair is rated by category, not by link speed: a Cat6A cord (10GBASE-T)
            # also carries 1000BASE-T, so any cord rated at the link speed or above will do.
            cord = self._shortest(
                lambda c: (
                    c.media == MediaKind.UTP and c.speed_gbps >= speed and c.breakout_ways == 1
                ),
                length,
            )
            if cord is not None:
                return MediaChoice(
                    media=media, length_m=cord.length_m, cable=cord, links_per_cable=1
                )
            limits.append(
                text(
                    gettext_noop(
                        "no UTP cable rated %(speed)sG or more of %(length)s m or more in the "
                        "catalog"
                    ),
                    speed=speed,
                    length=float(length),
                )
            )
            return None
        # A cable whose fat end carries several links (a breakout splitter, or a twin-port
        # cable between two broken-out cages) counts once for all of them.
        shapes: list[tuple[int, int, int]] = []  # (cable speed, cable breakout ways, links)
        if shared and a.ways > 1 and b.ways == a.ways:
            shapes.append((speed * a.ways, 1, a.ways))
        elif shared and a.ways > 1 and b.ways == 1:
            shapes.append((speed * a.ways, a.ways, a.ways))
        shapes.append((speed, 1, 1))
        for cable_speed, cable_ways, links in shapes:
            cable = next(
                (
                    c
                    for c in self.cables.get((media, cable_speed, cable_ways), ())
                    if c.length_m >= length - 1e-9
                ),
                None,
            )
            if cable is not None:
                return MediaChoice(
                    media=media, length_m=cable.length_m, cable=cable, links_per_cable=links
                )
        limits.append(
            text(
                gettext_noop(
                    "no %(speed)sG %(media)s cable of %(length)s m or more in the catalog"
                ),
                speed=speed,
                media=media.value.upper(),
                length=float(length),
            )
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
        limits: list[Text],
    ) -> MediaChoice | None:
        if rule is not None and rule.max_reach_m < length:
            limits.append(_reach(media, rule))
            return None
        mod_a = self._module(media, speed, a, length)
        mod_b = self._module(media, speed, b, length)
        if mod_a is None or mod_b is None:
            limits.append(
                text(
                    gettext_noop("no %(speed)sG %(media)s transceiver reaching %(length)s m"),
                    speed=speed,
                    media=media.value.upper(),
                    length=float(length),
                )
            )
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
                text(
                    gettext_noop(
                        "no %(media)s %(connector)s fibre of %(length)s m or more in the catalog"
                    ),
                    media=media.value.upper(),
                    connector=connector.value,
                    length=float(length),
                )
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


_SELECTORS: dict[tuple[int, MediaPolicy], MediaSelector] = {}
_SELECTORS_MAX = 16


def selector_for(catalog: CatalogSnapshot, policy: MediaPolicy) -> MediaSelector:
    """A media selector shared by requests on the same snapshot: choices depend only on the
    snapshot (immutable) and the link, so they can be reused across designs. Keyed by identity
    because hashing a whole catalog would cost more than it saves."""
    key = (id(catalog), policy)
    selector = _SELECTORS.get(key)
    if selector is None or selector.catalog is not catalog:
        if len(_SELECTORS) >= _SELECTORS_MAX:
            _SELECTORS.pop(next(iter(_SELECTORS)))
        selector = MediaSelector(catalog, policy)
        _SELECTORS[key] = selector
    return selector
