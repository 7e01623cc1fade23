"""The media, cable and optics that carry each run (the runs' lengths: `engine.geometry`).

Media follow the catalog's reach rules in the order of `MEDIA_PREFERENCE`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import NamedTuple

from engine import generic
from engine.assemblies import PortEnd as PortEnd  # one end of a link, as callers name it
from engine.assemblies import _assembly_fit, _assembly_shape
from engine.catalog import (
    COPPER_MEDIA,
    MEDIA_PREFERENCE,
    OPTICAL_MEDIA,
    CableKind,
    CableSpec,
    CatalogSnapshot,
    Connector,
    FibreType,
    FormFactor,
    MediaKind,
    MediaRule,
    PatchPanelSpec,
    Product,
    TransceiverSpec,
    accepts,
)
from engine.choice import MediaChoice as MediaChoice  # as callers name it
from engine.choice import unit_cost
from engine.errors import MediaUnavailable
from engine.lanes import cage_for, lanes_refusal, link_lanes, optics_refusal
from engine.ports import SwitchModel, per_model, ways
from engine.request import MediaPolicy
from engine.splitters import port_standard, split_choice, split_modules, split_stand_in
from engine.text import Text, gettext_noop, text


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


def _reach(media: MediaKind, rule: MediaRule) -> Text:
    return text(
        gettext_noop("%(media)s reaches %(reach)s m"),
        media=media.value.upper(),
        reach=float(rule.max_reach_m),
    )


_POLICY_MEDIA: dict[MediaPolicy, frozenset[MediaKind]] = {
    MediaPolicy.AUTO: frozenset(MediaKind),
    MediaPolicy.COPPER: COPPER_MEDIA,
    MediaPolicy.OPTICAL: OPTICAL_MEDIA,
    MediaPolicy.MMF: frozenset({MediaKind.MMF}),
    MediaPolicy.SMF: frozenset({MediaKind.SMF}),
}


def _allowed(policy: MediaPolicy, speed_gbps: int) -> tuple[MediaKind, ...]:
    order = MEDIA_PREFERENCE
    if speed_gbps <= 10:
        # Management links at 1G/10G run on twisted pair when the catalog sells it.
        order = (MediaKind.UTP, *order)
    allowed = _POLICY_MEDIA[policy]
    if policy in (MediaPolicy.MMF, MediaPolicy.SMF, MediaPolicy.OPTICAL):
        allowed = allowed | {MediaKind.UTP} if speed_gbps <= 1 else allowed
    return tuple(m for m in order if m in allowed)


def _cheapest(parts: Iterable[CableSpec]) -> CableSpec | None:
    """The part with the lowest known unit cost, the shortest on a tie (unpriced ones last)."""
    ranked = sorted(
        parts,
        key=lambda part: (
            (0, unit_cost(part)) if unit_cost(part) is not None else (1, Decimal(0)),
            part.length_m,
            part.sku,
        ),
    )
    return ranked[0] if ranked else None


class _Candidate(NamedTuple):
    rank: tuple[object, ...]
    choice: MediaChoice


class MediaSelector:
    """Per-snapshot cache of media decisions, keyed by link type and run length.

    Among the media that fit both cages and reach, the cheapest per link wins, counting every
    part the link needs (the assembly's share, the modules at both ends, the fibre, and for
    structured runs the patch cords and panel ports); power breaks ties, then the documented
    order. The seller's own brand wins when it costs at most `own_brand_margin` more. When the
    catalog sells nothing that fits, a generic part stands in (a catalog gap)."""

    def __init__(self, catalog: CatalogSnapshot, policy: MediaPolicy) -> None:
        self.catalog = catalog
        self.policy = policy
        self.rules: dict[tuple[int, MediaKind], MediaRule] = {
            (rule.speed_gbps, rule.media): rule for rule in catalog.media_rules
        }
        self.cache: dict[tuple[object, ...], MediaChoice] = {}
        self.assemblies: dict[MediaKind, list[CableSpec]] = {}
        self.fibres: list[CableSpec] = []
        self.splitters: list[CableSpec] = []
        for cable in sorted(catalog.cables, key=lambda c: (c.length_m, c.sku)):
            if cable.kind == CableKind.SPLITTER:
                self.splitters.append(cable)
            elif cable.media in (MediaKind.MMF, MediaKind.SMF):
                self.fibres.append(cable)
            else:
                self.assemblies.setdefault(cable.media, []).append(cable)
        self.longest_cord: dict[tuple[Connector | None, FibreType | None], float] = {}
        for fibre in self.fibres:
            if fibre.kind != CableKind.TRUNK:
                key = (fibre.connector, fibre.fibre_type)
                self.longest_cord[key] = max(self.longest_cord.get(key, 0.0), fibre.length_m)

    # -- reach ---------------------------------------------------------------------------------

    def reach_m(self, media: MediaKind, speed: int) -> float:
        rule = self.rules.get((speed, media))
        return rule.max_reach_m if rule is not None else generic.default_reach_m(media, speed)

    def _copper_cap(self, speed: int, length: float, allowed: tuple[MediaKind, ...]) -> float:
        """When a passive DAC reaches a run, no assembly may be longer than the DAC stock that
        would serve it: a 2.1 m in-rack run never becomes a 10 m AOC (a missing 3 m DAC is a
        gap, or optics with a stock fibre cord). Past DAC reach, each media's shortest stock
        that reaches is fair (AOC 10 m for 5 m)."""
        caps = []
        for media in (MediaKind.DAC,):
            if media not in allowed:
                continue
            rule = self.rules.get((speed, media))
            if rule is None or rule.max_reach_m < length - 1e-9:
                continue
            stock = [s for s in rule.stock_lengths_m if s >= length - 1e-9]
            caps.append(min(stock) if stock else rule.max_reach_m)
        return max(caps) if caps else math.inf

    # -- choice --------------------------------------------------------------------------------

    def choose(
        self,
        link: str,
        speed_gbps: int,
        length_m: float,
        a: PortEnd,
        b: PortEnd,
        shared: bool = True,
    ) -> MediaChoice:
        """`shared`: whether all lanes of a broken-out cage at `a` go to one cage at `b`, so one
        straight cable may carry them."""
        key = (speed_gbps, length_m, a, b, shared)
        cached = self.cache.get(key)
        if cached is None:
            cached = self.cache[key] = self._choose(link, speed_gbps, length_m, a, b, shared)
        return cached

    def _choose(
        self, link: str, speed: int, length: float, a: PortEnd, b: PortEnd, shared: bool
    ) -> MediaChoice:
        allowed = _allowed(self.policy, speed)
        cap = self._copper_cap(speed, length, allowed)
        limits: list[Text] = []
        found: list[_Candidate] = []
        for order, media in enumerate(allowed):
            # A cage broken out carries its links on a cable of the cage's speed (2 x 50G on a
            # 100G AOC): that speed's rule covers it when the link speed has none.
            rule = self.rules.get((speed, media)) or self.rules.get(
                (speed * max(a.ways, b.ways), media)
            )
            if rule is not None and rule.max_reach_m < length - 1e-9:
                limits.append(_reach(media, rule))
                continue
            if rule is None and media not in (MediaKind.MMF, MediaKind.SMF):
                continue  # copper and AOC are sold per speed: no rule, nothing sold
            if media in (MediaKind.MMF, MediaKind.SMF):
                options = self._optics(media, speed, length, a, b)
                if not options:  # no module pair for these two cages reaches
                    limits.append(
                        text(
                            gettext_noop(
                                "no %(speed)sG %(media)s transceiver reaching %(length)s m"
                            ),
                            speed=speed,
                            media=media.value.upper(),
                            length=float(length),
                        )
                    )
            else:
                options = self._assemblies(media, speed, length, a, b, shared)
            for choice in options:
                if choice.transceiver_a is None and choice.length_m > cap + 1e-9:
                    continue  # an overlong assembly; a fibre cord of stock length is fine
                found.append(self._ranked(choice, order))
        complete = [c for c in found if not c.choice.catalog_gap]
        if complete:
            return self._best(complete)
        gap = self._gap(speed, length, a, b, shared, allowed, limits)
        if gap is not None:
            return gap
        raise MediaUnavailable(
            text(
                gettext_noop(
                    "No %(policy)s media for the %(link)s links of %(length)s m at %(speed)sG: "
                    "%(detail)s."
                ),
                policy=self.policy.value,
                link=link,
                length=float(length),
                speed=speed,
                detail=tuple(limits) or (text(gettext_noop("no media reaches that far")),),
            )
        )

    def _ranked(self, choice: MediaChoice, order: int) -> _Candidate:
        cost = choice.cost_per_link
        parts = (choice.cable, choice.transceiver_a, choice.transceiver_b)
        own = any(p is not None and p.own_brand for p in parts)
        rank = (
            cost is None,
            cost if cost is not None else Decimal(0),
            round(choice.power_per_link_w, 3),
            order,
            choice.length_m,
            choice.group_key,
            own,
        )
        return _Candidate(rank, choice)

    def _best(self, candidates: list[_Candidate]) -> MediaChoice:
        candidates.sort(key=lambda c: c.rank[:-1])
        best = candidates[0]
        cost = best.choice.cost_per_link
        if cost is not None and not best.rank[-1]:
            limit = cost * (1 + Decimal(str(self.catalog.own_brand_margin)))
            for candidate in candidates:
                own_cost = candidate.choice.cost_per_link
                if candidate.rank[-1] and own_cost is not None and own_cost <= limit:
                    return candidate.choice
        return best.choice

    # -- assemblies (DAC, AEC, AOC, twisted pair) ---------------------------------------------

    def _assemblies(
        self, media: MediaKind, speed: int, length: float, a: PortEnd, b: PortEnd, shared: bool
    ) -> list[MediaChoice]:
        out = []
        for cable in self.assemblies.get(media, ()):
            if cable.length_m < length - 1e-9:
                continue
            links = _assembly_fit(cable, speed, a, b, shared)
            if links:
                out.append(self._assembly_choice(media, cable, links))
        # Only the shortest stock of each assembly shape: a longer one of the same shape is
        # never the better buy, and the cap on length is applied to what remains.
        shortest: dict[tuple[object, ...], MediaChoice] = {}
        for choice in out:
            c = choice.cable
            shape = (c.end_a, c.end_b, c.speed_gbps, c.breakout_ways, c.vendor)
            if shape not in shortest:
                shortest[shape] = choice
        return list(shortest.values())

    def _assembly_choice(
        self,
        media: MediaKind,
        cable: CableSpec,
        links: int,
        gaps: tuple[tuple[str, Text], ...] = (),
    ) -> MediaChoice:
        price = unit_cost(cable)
        return MediaChoice(
            media=media,
            length_m=cable.length_m,
            cable=cable,
            links_per_cable=links,
            gaps=gaps,
            cost_per_link=None if price is None else price / links,
            power_per_link_w=cable.power_w / links,
        )

    # -- optics --------------------------------------------------------------------------------

    def _modules(
        self, media: MediaKind, speed: int, end: PortEnd, length: float
    ) -> list[tuple[TransceiverSpec, int]]:
        """Modules that fit the cage at `end` and serve its links: one link per module in a
        native cage, all `ways` links in a broken-out cage (a twin-port module)."""
        out = []
        for module in self.catalog.transceivers:
            if module.media != media or not accepts(end.form_factor, module.form_factor):
                continue
            if not any(reach.reach_m >= length - 1e-9 for reach in module.reaches):
                continue
            if module.speed_gbps != speed * end.ways or module.links_per_module != end.ways:
                continue
            out.append((module, end.ways))
        return out

    def _optics(
        self, media: MediaKind, speed: int, length: float, a: PortEnd, b: PortEnd
    ) -> list[MediaChoice]:
        out = []
        for mod_a, serves_a in self._modules(media, speed, a, length):
            for mod_b, serves_b in self._modules(media, speed, b, length):
                choice = self._pair(media, speed, length, mod_a, serves_a, mod_b, serves_b, ())
                if choice is not None:
                    out.append(choice)
        # A broken-out cage facing single-link cages: a parallel module split over a splitter.
        for fat, far, fat_is_a in self._split_pairs(media, speed, length, a, b):
            choice = split_choice(self.splitters, media, length, fat, far, fat_is_a)
            if choice is not None:
                out.append(choice)
        return out

    def _split_pairs(
        self, media: MediaKind, speed: int, length: float, a: PortEnd, b: PortEnd
    ) -> Iterator[tuple[tuple[TransceiverSpec, int, int], TransceiverSpec, bool]]:
        """Catalog modules that could meet over a splitter: (the parallel module, the links it
        serves, the ways each port splits), a far module, and whether the parallel one is `a`."""
        for fat, thin, fat_is_a in ((a, b, True), (b, a, False)):
            if fat.ways < 2 or thin.ways != 1:
                continue
            for module, split in split_modules(self.catalog.transceivers, media, speed, fat):
                for far, _ in self._modules(media, speed, thin, length):
                    yield (module, fat.ways, split), far, fat_is_a

    def _split_stand_in(
        self, media: MediaKind, speed: int, length: float, a: PortEnd, b: PortEnd
    ) -> MediaChoice | None:
        """The catalog's modules with a generic harness between them, the cheapest modules
        first; None when the catalog has no module pair that meets over a splitter."""
        stock = self._stock(media, length)
        found = [
            choice
            for fat, far, fat_is_a in self._split_pairs(media, speed, length, a, b)
            if (choice := split_stand_in(media, length, stock, fat, far, fat_is_a)) is not None
        ]
        return min(found, key=_modules_cost, default=None)

    def _pair(
        self,
        media: MediaKind,
        speed: int,
        length: float,
        mod_a: TransceiverSpec,
        serves_a: int,
        mod_b: TransceiverSpec,
        serves_b: int,
        gaps: tuple[tuple[str, Text], ...],
        generic_fibre: bool = False,
    ) -> MediaChoice | None:
        if port_standard(mod_a) != port_standard(mod_b):
            return None
        if mod_a.connector != mod_b.connector:
            return None
        fibre_types = {r.fibre_type for r in mod_a.reaches if r.reach_m >= length - 1e-9} & {
            r.fibre_type for r in mod_b.reaches if r.reach_m >= length - 1e-9
        }
        if not fibre_types:
            return None
        run = self._fibre_run(media, mod_a.connector, fibre_types, length, generic_fibre)
        if run is None:
            return None
        fibre, cord, panel, fibre_gaps = run
        if panel is not None and not self._panels_fit(mod_a, mod_b, panel, length):
            if not generic_fibre:
                return None
            # The catalog's panels lose too much for this channel: a generic low-loss one.
            assert fibre.fibre_type is not None
            panel, name = generic.patch_panel(mod_a.connector, fibre.fibre_type)
            fibre_gaps += ((str(name), name),)
            if not self._panels_fit(mod_a, mod_b, panel, length):
                return None
        gaps = gaps + fibre_gaps
        parts: list[tuple[Product, Decimal]] = [
            (mod_a, Decimal(1) / serves_a),
            (mod_b, Decimal(1) / serves_b),
            (fibre, Decimal(1)),
        ]
        if cord is not None and panel is not None:
            parts += [(cord, Decimal(2)), (panel, Decimal(2) / panel.ports)]
        cost: Decimal | None = Decimal(0)
        for part, share in parts:
            price = unit_cost(part)
            if price is None or cost is None:
                cost = None
            else:
                cost += price * share
        return MediaChoice(
            media=media,
            length_m=fibre.length_m,
            cable=fibre,
            links_per_cable=1,
            transceiver_a=mod_a,
            transceiver_b=mod_b,
            links_per_transceiver_a=serves_a,
            links_per_transceiver_b=serves_b,
            cord=cord,
            panel=panel,
            gaps=gaps,
            cost_per_link=cost,
            power_per_link_w=mod_a.power_w / serves_a + mod_b.power_w / serves_b,
        )

    def _fibre_run(
        self,
        media: MediaKind,
        connector: Connector,
        fibre_types: set[FibreType],
        length: float,
        generic_only: bool,
    ) -> (
        tuple[CableSpec, CableSpec | None, PatchPanelSpec | None, tuple[tuple[str, Text], ...]]
        | None
    ):
        """The fibre of one link: a patch cord from module to module when one is long enough,
        else structured cabling (a trunk between two patch panels, a cord at each end)."""
        fits = [
            f
            for f in self.fibres
            if f.media == media and f.connector == connector and f.fibre_type in fibre_types
        ]
        if not generic_only:
            # A fibre sold without a kind is a point-to-point cord.
            cords = [f for f in fits if f.kind != CableKind.TRUNK]
            # Point to point when a cord reaches (NVIDIA's MFP7E10 / MFP7E30 to 50 and 100 m,
            # as its SuperPOD BOMs run leaf to spine): the cheapest that does.
            direct = _cheapest(f for f in cords if f.length_m >= length - 1e-9)
            if direct is not None:
                return direct, None, None, ()
            # The cheapest trunk that reaches, not the first listed (trunks of one length come
            # from several vendors); the cheapest cord of the structured length likewise.
            trunk = _cheapest(
                f for f in fits if f.kind == CableKind.TRUNK and f.length_m >= length - 1e-9
            )
            if trunk is not None:
                cord = _cheapest(f for f in cords if f.length_m >= STRUCTURED_CORD_M - 1e-9)
                cord = cord or (cords[-1] if cords else None)
                panel = self._panel(connector, trunk.fibre_type)
                gaps: tuple[tuple[str, Text], ...] = ()
                assert trunk.fibre_type is not None
                if cord is None:
                    cord, name = generic.fibre(
                        media, trunk.fibre_type, connector, CableKind.PATCH_CORD,
                        STRUCTURED_CORD_M,
                    )  # fmt: skip
                    gaps += ((str(name), name),)
                if panel is None:
                    panel, name = generic.patch_panel(connector, trunk.fibre_type)
                    gaps += ((str(name), name),)
                return trunk, cord, panel, gaps
            return None
        fibre_type = min(fibre_types, key=generic.FIBRE_PREFERENCE.index)
        stock = self._stock(media, length)
        limit = self.longest_cord.get((connector, fibre_type), 0.0)
        if stock <= max(limit, 0.0) or stock <= STRUCTURED_FROM_M:
            cord, name = generic.fibre(media, fibre_type, connector, CableKind.PATCH_CORD, stock)
            return cord, None, None, ((str(name), name),)
        trunk, trunk_name = generic.fibre(media, fibre_type, connector, CableKind.TRUNK, stock)
        gaps = ((str(trunk_name), trunk_name),)
        cords = [f for f in fits if f.kind == CableKind.PATCH_CORD and f.fibre_type == fibre_type]
        cord = next((f for f in cords if f.length_m >= STRUCTURED_CORD_M - 1e-9), None)
        if cord is None:
            cord, name = generic.fibre(
                media, fibre_type, connector, CableKind.PATCH_CORD, STRUCTURED_CORD_M
            )
            gaps += ((str(name), name),)
        panel = self._panel(connector, fibre_type)
        if panel is None:
            panel, name = generic.patch_panel(connector, fibre_type)
            gaps += ((str(name), name),)
        return trunk, cord, panel, gaps

    def _panels_fit(
        self, mod_a: TransceiverSpec, mod_b: TransceiverSpec, panel: PatchPanelSpec, length: float
    ) -> bool:
        """Whether the two mated pairs of a structured run fit the channel's connector budget.

        NVIDIA's NDR/XDR-class reaches (MPO-12/APC modules) already include two patch panels
        (ports-cages-and-plugs.md). IEEE multimode channels allow about 1.5 dB of connector
        loss in all, single-mode DR/FR about 3 dB; the modules' own mated pairs take about 0.2 dB
        each, so the two panels get the rest."""
        if mod_a.connector == Connector.MPO12_APC and mod_b.connector == Connector.MPO12_APC:
            return True
        budget = CONNECTOR_BUDGET_DB[mod_a.media] - 2 * MODULE_PAIR_DB
        return 2 * panel.insertion_loss_db <= budget + 1e-9

    def _panel(self, connector: Connector, fibre_type: FibreType | None) -> PatchPanelSpec | None:
        panels = [
            p
            for p in self.catalog.patch_panels
            if p.connector == connector and p.fibre_type in (None, fibre_type)
        ]
        return min(panels, key=lambda p: (unit_cost(p) or Decimal(0)) / p.ports, default=None)

    def _stock(self, media: MediaKind, length: float) -> float:
        """The stock length for a generic part: the shortest the catalog's rules list that
        reaches, else the run rounded up to whole metres (to 10 m past 30 m)."""
        rules = [r for r in self.catalog.media_rules if r.media == media]
        stock = sorted({s for r in rules for s in r.stock_lengths_m if s >= length - 1e-9})
        if stock:
            return stock[0]
        step = 10.0 if length > 30 else 1.0
        return max(step, math.ceil(length / step - 1e-9) * step)

    # -- catalog gaps --------------------------------------------------------------------------

    def _gap(
        self,
        speed: int,
        length: float,
        a: PortEnd,
        b: PortEnd,
        shared: bool,
        allowed: tuple[MediaKind, ...],
        limits: list[Text],
    ) -> MediaChoice | None:
        """A generic stand-in of the first media, in the documented order, that reaches and
        can join these two cages; catalog parts are kept where they fit (one end's module).
        A copper or AOC breakout whose legs' lanes the far cages cannot take is made by nobody
        (engine.lanes), so none stands in; optics can, their modules convert lanes (a 400G-DR4
        breaks out to 100G-DR modules in QSFP28 cages)."""
        refusal = lanes_refusal(speed, a, b)
        ruled = {media for (rule_speed, media) in self.rules if rule_speed == speed}
        if not ruled & set(allowed):
            ruled = set()  # the policy asks for a media the rules do not cover: generic it is
        # Media the rules name at this speed first; single-mode optics exist at every speed, so
        # they stand in last when nothing ruled reaches (a 200G run past multimode's 100 m).
        order = [m for m in allowed if not ruled or m in ruled]
        if MediaKind.SMF in allowed and MediaKind.SMF not in order:
            order.append(MediaKind.SMF)
        # Optics of each media that can join the cages, by how many parts stand in: a 100G leg of
        # a 400G cage on catalog DR modules with only the harness to price beats multimode SR1
        # modules nobody in the catalog sells at either end (issue 26: prefer what is priced).
        optics_found: list[tuple[int, int, MediaChoice]] = []
        for index, media in enumerate(order):
            if optics_found and media not in (MediaKind.MMF, MediaKind.SMF):
                continue  # an optical stand-in came first in the documented order
            if self.reach_m(media, speed) < length - 1e-9:
                continue
            if media == MediaKind.UTP:
                if {a.form_factor, b.form_factor} - {FormFactor.RJ45, None}:
                    continue
                ff_a = ff_b = FormFactor.RJ45
                cable, name = generic.assembly(
                    media, speed, ff_a, ff_b, 1, self._stock(media, length)
                )
                return self._assembly_choice(media, cable, 1, ((str(name), name),))
            if media in (MediaKind.MMF, MediaKind.SMF):
                optical = optics_refusal(speed, a, b)
                if optical is not None:
                    if optical not in limits:
                        limits.append(optical)
                    continue
                choice = self._generic_optics(media, speed, length, a, b)
                if choice is not None:
                    optics_found.append((len(choice.gaps), index, choice))
                continue
            shape = _assembly_shape(speed, a, b, shared)
            if shape is None:
                continue
            if refusal is not None:
                if refusal not in limits:
                    limits.append(refusal)
                continue
            cable_speed, ways, links, flipped = shape
            ff_a = cage_for(a, b, speed)
            ff_b = cage_for(b, a, speed)
            if flipped:
                ff_a, ff_b = ff_b, ff_a
            if ways == 1 and ff_a == FormFactor.OSFP and b.form_factor and b.form_factor != ff_a:
                pass  # an OSFP-to-QSFP assembly: made for that pair, sold by some vendors
            cable, name = generic.assembly(
                media, cable_speed, ff_a, ff_b, ways, self._stock(media, length)
            )
            return self._assembly_choice(media, cable, links, ((str(name), name),))
        if optics_found:
            return min(optics_found, key=lambda found: found[:2])[2]
        return None

    def _generic_optics(
        self, media: MediaKind, speed: int, length: float, a: PortEnd, b: PortEnd
    ) -> MediaChoice | None:
        split = self._split_stand_in(media, speed, length, a, b)
        if split is not None:
            return split
        ends = []
        gaps: tuple[tuple[str, Text], ...] = ()
        lanes = link_lanes(speed, a, b)
        link_standard, _ = generic.standard(media, speed, length, lanes)
        for end in (a, b):
            wanted = link_standard.upper().replace("BASE", "")
            catalog = sorted(
                (
                    m
                    for m, _ in self._modules(media, speed, end, length)
                    if port_standard(m).startswith(wanted[: len(f"{speed}G-")])
                ),
                # The link's own standard first: a catalog 100G-DR meets a stand-in 4 x 100G-DR
                # breakout; a CWDM4 listed before it would make both ends stand-ins.
                key=lambda m: port_standard(m) != wanted,
            )
            if catalog:
                ends.append(catalog[0])
                continue
            cage = cage_for(end, b if end is a else a, speed)
            spec, name = generic.module(media, speed, cage, end.ways, length, lanes)
            ends.append(spec)
            gaps += ((str(name), name),)
        mod_a, mod_b = ends
        if mod_a.connector != mod_b.connector or port_standard(mod_a) != port_standard(mod_b):
            # The catalog's module at one end does not pair with the usual standard: both generic.
            cage_a = cage_for(a, b, speed)
            cage_b = cage_for(b, a, speed)
            mod_a, name_a = generic.module(media, speed, cage_a, a.ways, length, lanes)
            mod_b, name_b = generic.module(media, speed, cage_b, b.ways, length, lanes)
            gaps = ((str(name_a), name_a), (str(name_b), name_b))
        generic_fibre = True
        choice = self._pair(media, speed, length, mod_a, a.ways, mod_b, b.ways, gaps, False)
        if choice is not None:
            return choice
        return self._pair(media, speed, length, mod_a, a.ways, mod_b, b.ways, gaps, generic_fibre)


def _modules_cost(choice: MediaChoice) -> tuple[Decimal, str]:
    """The modules' known price per link, for ranking choices whose fibre has none."""
    total = Decimal(0)
    for module, serves in (
        (choice.transceiver_a, choice.links_per_transceiver_a),
        (choice.transceiver_b, choice.links_per_transceiver_b),
    ):
        price = unit_cost(module) if module is not None else None
        total += price / serves if price is not None else Decimal(0)
    return total, str(choice.group_key)


# Connector loss a channel allows in all (IEEE 802.3 multimode SR channels about 1.5 dB;
# single-mode DR/FR about 3 dB), and what the modules' own mated pairs take of it.
CONNECTOR_BUDGET_DB = {MediaKind.MMF: 1.5, MediaKind.SMF: 3.0}
MODULE_PAIR_DB = 0.2

STRUCTURED_CORD_M = 3.0  # module to the patch panel in the same rack
STRUCTURED_FROM_M = 10.0  # generic fibre: runs beyond this go through patch panels


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
