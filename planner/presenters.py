"""A stored design result as pages and documents show it: in the reader's language, with its
tiers, planes and parts named in words and its lines priced. Everything reads the typed result
(`engine.result.DesignResult`) by attribute, so a renamed field fails here, loudly,
instead of showing zeros. Shared by the design pages (planner.views) and the PDFs (quotes.pdf)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.vocabulary import category_label, fabric_label, plane_label, role_label, tier_label
from engine.generic import DEFAULT_FORM_FACTOR
from engine.ports import inline_description, inline_description_of, parse_inline
from engine.result import (
    BomLineResult,
    DesignResult,
    LinkEndResult,
    LinkResult,
    PlaneResult,
    TierResult,
)
from engine.text import Text
from planner.i18n import (
    ShownWarning,
    localized_notes,
    localized_warnings,
    plan_labels,
    translated,
)
from planner.plan import ImplementationPlan, build_plan
from planner.selectors import product_names as catalog_names
from planner.svg import gantt_svg

# --- names in words ----------------------------------------------------------------------------


def role_labels() -> dict[str, str]:
    """Tier and plane names for the drawings (`planner.svg.lengths_svg`)."""
    roles = ("server", "endpoint", "storage", "leaf", "spine", "core")
    planes = ("compute", "pool2", "pool3", "pool4", "storage", "frontend", "oob")
    return {
        **{f"role_{role}": role_label(role) for role in roles},
        **{f"plane_{plane}": plane_label(plane) for plane in planes},
    }


def topology_labels() -> dict[str, str]:
    return {
        "title": _("Network topology"),
        "server": _("Servers"),
        "storage": _("Storage nodes"),
        "leaf": _("Leaf"),
        "spine": _("Spine"),
        "core": _("Core"),
        "compute": _("Compute plane"),
        "frontend": _("Frontend plane"),
        "oob": _("Out-of-band plane"),
        **{pool: plane_label(pool) for pool in ("pool2", "pool3", "pool4")},
        "shared": _("shared with the compute fabric"),
        "storage_plane": _("Storage plane"),
        "links": _("links"),
        "switches": _("switches"),
        "servers": _("servers"),
        "one_server": _("server"),
        "endpoint": _("Endpoints"),
        "group": _("SU"),
        "pod": _("pod"),
        "more": _("more"),
        "planes": _("identical planes"),
        "per_server": _("GPUs each"),
        "ports_used": _("ports used"),
    }


# --- the result with its names ---------------------------------------------------------------
#
# Templates read `result.gpus`, `plane.label`, `tier.role_label`: these wrappers add the words
# and pass every other attribute through to the typed result.


class _SwitchNames:
    """The catalog's names of a result's switches in the reader's language, read once and only
    when a template asks for a tier's description (the design page never does)."""

    def __init__(self, result: DesignResult) -> None:
        self._result = result
        self._names: dict[str, str] | None = None

    def get(self, sku: str) -> str | None:
        if self._names is None:
            skus = {tier.sku for plane in self._result.planes for tier in plane.tiers if tier.sku}
            self._names = catalog_names(skus)
        return self._names.get(sku)


@dataclass(frozen=True)
class ShownTier:
    tier: TierResult
    plane: str
    plane_label: str
    role_label: str
    names: _SwitchNames | None = None

    @property
    def description(self) -> str:
        """The switch in the reader's language: the catalog's name, or an inline spec's text
        (the result keeps the English it was sized with)."""
        tier = self.tier
        if tier.sku:
            name = self.names.get(tier.sku) if self.names is not None else None
            return name or tier.description
        inline = parse_inline(tier.switch)
        if inline is not None:
            return translated(inline_description(*inline))
        return generic_name(tier.description)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.tier, name)


@dataclass(frozen=True)
class ShownPlane:
    plane: PlaneResult
    label: str
    tiers: tuple[ShownTier, ...]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.plane, name)


@dataclass(frozen=True)
class ShownResult:
    value: DesignResult
    fabric_label: str
    warnings: tuple[ShownWarning, ...]
    notes: tuple[str, ...]
    planes: tuple[ShownPlane, ...]

    @property
    def growth_rows(self) -> list[GrowthRow]:
        """The growth room in words that fit the design's tiers (`growth_rows`)."""
        return growth_rows(self.value)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.value, name)


def shown_planes(result: DesignResult) -> tuple[ShownPlane, ...]:
    names = _SwitchNames(result)
    return tuple(
        ShownPlane(
            plane=plane,
            label=plane_label(plane.name),
            tiers=tuple(
                ShownTier(
                    tier=tier,
                    plane=plane.name,
                    plane_label=plane_label(plane.name),
                    role_label=role_label(tier.role),
                    names=names,
                )
                for tier in plane.tiers
            ),
        )
        for plane in result.planes
    )


def shown_result(result: DesignResult, leave_out: Collection[str] = ()) -> ShownResult:
    """The result with its fabric, planes and tiers named in words and its warnings that still
    hold (`planner.i18n.current_warnings`; `leave_out`: codes a document leaves out) and notes in
    the active language."""
    return ShownResult(
        value=result,
        fabric_label=fabric_label(result.fabric),
        warnings=localized_warnings(result, leave_out),
        notes=localized_notes(result),
        planes=shown_planes(result),
    )


def tier_rows(result: DesignResult) -> list[ShownTier]:
    return [tier for plane in shown_planes(result) for tier in plane.tiers]


# --- parts -----------------------------------------------------------------------------------


def gap_texts(result: DesignResult) -> dict[str, Text]:
    """The generic parts of a design (catalog gaps), by the English name the engine gave them,
    with their translatable texts: links and cabling rows name a generic part in English only."""
    texts: dict[str, Text] = {}
    for line in result.bom:
        if line.catalog_gap and line.description_text is not None:
            texts.setdefault(line.description, line.description_text)
    return texts


def generic_name(description: str, gaps: Mapping[str, Text] | None = None) -> str:
    """A generic part's English name (as the engine's spares and growth parts carry it) in the
    reader's language: from the design's gap texts (`gap_texts`) when given, or an inline
    switch's text; else as it is."""
    text = (gaps or {}).get(description) or inline_description_of(description)
    return translated(text) if text is not None else description


def spare_names(spares: Sequence[Any], result: DesignResult | None) -> list[tuple[Any, str]]:
    """Each recommended spare (`engine.failures.SpareLine`: the engine names a catalog
    part by its SKU, a generic one by its English name) with its name in the reader's language:
    the catalog's name, a generic part's text from the design's result, an inline switch's."""
    names = catalog_names(spare.sku for spare in spares if spare.sku)
    generic = any(not spare.sku for spare in spares)
    gaps = gap_texts(result) if result is not None and generic else {}  # decoded when needed
    return [
        (
            spare,
            names.get(spare.sku, spare.description)
            if spare.sku
            else generic_name(spare.description, gaps),
        )
        for spare in spares
    ]


def part_name(sku: str | None, name: str, gaps: Mapping[str, Text]) -> str:
    """A part as the reader names it: its SKU, or a generic part's name in their language."""
    if sku:
        return sku
    text = gaps.get(name)
    return translated(text) if text is not None else name


def product_names(result: DesignResult) -> dict[str, str]:
    """The catalog's names of a design's products in the reader's language (the result keeps
    the English names it was sized with); products since removed keep those."""
    skus = {line.sku for line in result.bom if line.sku}
    for link in result.links:
        skus.update(line.sku for line in link.fibre if line.sku)
    return catalog_names(skus)


@dataclass(frozen=True)
class BomRow:
    """A BOM line as pages and documents show it: its description in the reader's language and,
    on the design page, its unit price and amount (None: no price)."""

    line: BomLineResult
    description: str
    plane_label: str
    tier_label: str
    unit_price: Decimal | None = None
    amount: Decimal | None = None
    # A generic part nobody has priced yet: what the design page and draft documents mark.
    to_be_priced: bool = False

    @property
    def sku(self) -> str:
        return self.line.sku

    @property
    def quantity(self) -> int:
        return self.line.quantity

    @property
    def power_w(self) -> int:
        return self.line.power_w

    @property
    def power_max_w(self) -> int:
        return self.line.power_max_w

    @property
    def rack_units(self) -> int:
        return self.line.rack_units

    @property
    def catalog_gap(self) -> bool:
        return self.line.catalog_gap

    @property
    def category(self) -> str:
        return self.line.category

    @property
    def plane(self) -> str:
        return self.line.plane

    @property
    def tier(self) -> str:
        return self.line.tier


def _to_be_priced(english: str, unpriced: Collection[str] | None) -> bool:
    """Whether a generic part (by the English name the engine gave it) still waits for a price:
    always on the design page (`unpriced` None: no quote prices it), else when the quote's line
    for it is still to be priced (`unpriced`: those lines' descriptions)."""
    return unpriced is None or english in unpriced


def bom_rows(
    bom: Sequence[BomLineResult],
    names: Mapping[str, str] | None = None,
    prices: Mapping[str, Decimal] | None = None,
    unpriced: Collection[str] | None = None,
) -> list[BomRow]:
    """BOM lines in the reader's language: a generic part's description from its text, a
    catalog product's from `names` (`product_names`); priced from `prices` when given. A generic
    part is marked to be priced unless `unpriced` (a quote's lines still to be priced, by their
    English description) leaves it out."""
    rows = []
    for line in bom:
        description = line.description
        if line.catalog_gap and line.description_text is not None:
            description = translated(line.description_text)
        elif names and line.sku in names:
            description = names[line.sku]
        price = prices.get(line.sku) if prices is not None and line.sku else None
        rows.append(
            BomRow(
                line=line,
                description=description,
                plane_label=plane_label(line.plane),
                tier_label=tier_label(line.tier),
                unit_price=price,
                amount=price * line.quantity if price is not None else None,
                to_be_priced=line.catalog_gap and _to_be_priced(line.description, unpriced),
            )
        )
    return rows


@dataclass(frozen=True)
class Estimate:
    """A list-price estimate of a bill of materials: priced lines summed, the rest named."""

    total: Decimal
    unpriced: tuple[str, ...]  # SKUs without a price (generic parts have no SKU: see lines)
    lines: tuple[BomRow, ...]


def estimate(
    result: DesignResult, prices: Mapping[str, Decimal], names: Mapping[str, str] | None = None
) -> Estimate:
    lines = bom_rows(result.bom, names, prices)
    return Estimate(
        total=sum((row.amount for row in lines if row.amount is not None), Decimal(0)),
        unpriced=tuple(
            dict.fromkeys(row.sku for row in lines if row.sku and row.unit_price is None)
        ),
        lines=tuple(lines),
    )


@dataclass(frozen=True)
class MediaShare:
    media: str
    links: int
    cables: int
    optics: int
    share: int  # percent of all links


def media_mix(result: DesignResult) -> list[MediaShare]:
    mix: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for link in result.links:
        entry = mix[link.media]
        entry[0] += link.count
        entry[1] += link.cables
        entry[2] += link.transceivers
    total = sum(entry[0] for entry in mix.values()) or 1
    return [
        MediaShare(
            media=media,
            links=links,
            cables=cables,
            optics=optics,
            share=round(100 * links / total),
        )
        for media, (links, cables, optics) in sorted(mix.items(), key=lambda item: -item[1][0])
    ]


@dataclass(frozen=True)
class PowerRow:
    plane: str
    plane_label: str
    category: str
    category_label: str
    quantity: int
    power_w: int
    power_max_w: int
    rack_units: int


def power_rows(result: DesignResult) -> list[PowerRow]:
    groups: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for line in result.bom:
        entry = groups[(line.plane, line.category)]
        entry[0] += line.quantity
        entry[1] += line.power_w
        entry[2] += line.power_max_w
        entry[3] += line.rack_units
    return [
        PowerRow(
            plane=plane,
            plane_label=plane_label(plane),
            category=category,
            category_label=category_label(category),
            quantity=quantity,
            power_w=power_w,
            power_max_w=power_max_w,
            rack_units=rack_units,
        )
        for (plane, category), (quantity, power_w, power_max_w, rack_units) in sorted(
            groups.items()
        )
    ]


# --- how each link group is built --------------------------------------------------------------


def _end_row(end: LinkEndResult | None, role: str, speed: int) -> dict[str, Any]:
    """One end of a link group: "Leaf · QSFP28 × 4 (4x25G)" = role, cage form factor, cages,
    and the links each cage carries when it is broken out."""
    if end is None:  # a result stored before the engine described its ends
        return {"role": role_label(role), "label": role_label(role), "cages": None}
    form = end.form_factor or _("NIC")
    per_cage = end.links_per_cage or 1
    name = role_label(end.role or role)
    label = f"{name} · {form} × {end.cages:,}"
    if per_cage > 1:
        label += f" ({per_cage}x{speed}G)"
    return {
        "role": name,
        "form_factor": form,
        "cages": end.cages,
        "links_per_cage": per_cage,
        "breakout": f"{per_cage}x{speed}G" if per_cage > 1 else "",
        "label": label,
    }


def _generic_module(
    link: LinkResult, end: LinkEndResult | None, bom: Sequence[BomLineResult]
) -> str:
    """The English name of the generic module at one end: the link keeps no name for it, the BOM
    does (one line per generic module of the tier pair; the module's speed and cage tell them
    apart). Empty when the BOM names none."""
    pair = f"{link.a}-{link.b}"
    candidates = [
        line.description
        for line in bom
        if line.catalog_gap
        and line.category == "transceiver"
        and line.plane == link.plane
        and line.tier == pair
    ]
    if end is not None:
        speed = link.speed_gbps * (end.links_per_cage or 1)
        default = DEFAULT_FORM_FACTOR.get(link.speed_gbps)
        form = end.form_factor or (default.value if default else "")
        prefix = f"{speed:,}G {form} "
        fitting = [name for name in candidates if name.startswith(prefix)]
        candidates = fitting or candidates
    return candidates[0] if candidates else ""


def _links_per_cable(n: int) -> str:
    if n <= 1:
        return ""
    return ngettext("%(n)s link per cable", "%(n)s links per cable", n) % {"n": n}


def _fibre_kind(kind: str) -> str:
    labels = {
        "patch_cord": _("Patch cord"),
        "trunk": _("Trunk"),
        "splitter": _("Breakout harness"),
        "patch_panel": _("Patch panel"),
    }
    return labels.get(kind, kind)


def link_rows(
    result: DesignResult,
    catalog_names: Mapping[str, str] | None = None,
    unpriced: Collection[str] | None = None,
) -> list[dict[str, Any]]:
    """How each link group is built, for the design page and the proposal: both ends, the cable
    or assembly, the modules at each end and the passive fibre. Each part says whether it is
    generic and whether it is still to be priced (`unpriced`: as `bom_rows`)."""
    gaps = gap_texts(result)
    names = {line.sku: line.description for line in result.bom if line.sku}
    for link in result.links:
        for part in link.fibre:
            if part.sku:
                names.setdefault(part.sku, part.description)
    names.update(catalog_names or {})
    rows = []
    for link in result.links:
        speed = link.speed_gbps
        ends = {"a": _end_row(link.end_a, link.a, speed), "b": _end_row(link.end_b, link.b, speed)}
        modules = _module_parts(link, ends, result.bom, names, gaps, unpriced)
        fibre = _fibre_parts(link, names, gaps, unpriced)
        cable = _cable_part(link, names, gaps, unpriced)
        rows.append(
            {
                "plane": link.plane,
                "plane_label": plane_label(link.plane),
                "a": role_label(link.a),
                "b": role_label(link.b),
                "speed_gbps": speed,
                "media": link.media,
                "length_m": link.length_m,
                "count": link.count,
                "end_a": ends["a"],
                "end_b": ends["b"],
                # Optical links: the fibre lines say it all (the run's fibre is the first).
                "cable": None if fibre else cable,
                "fibre": fibre,
                "modules": modules,
                "catalog_gap": link.catalog_gap,
                # Any of its parts still to be priced: what the note under the table is about.
                "to_be_priced": any(
                    part["to_be_priced"] for part in [*([] if fibre else [cable]), *fibre, *modules]
                ),
            }
        )
    return rows


def _module_parts(
    link: LinkResult,
    ends: Mapping[str, dict[str, Any]],
    bom: Sequence[BomLineResult],
    names: Mapping[str, str],
    gaps: Mapping[str, Text],
    unpriced: Collection[str] | None,
) -> list[dict[str, Any]]:
    modules = []
    for side, sku, count, end in (
        ("a", link.transceiver_sku_a, link.transceivers_a, link.end_a),
        ("b", link.transceiver_sku_b, link.transceivers_b, link.end_b),
    ):
        if sku is None or not count:
            continue
        generic = "" if sku else _generic_module(link, end, bom)
        modules.append(
            {
                "end": ends[side]["role"],
                "name": sku or (part_name("", generic, gaps) if generic else _("Generic module")),
                "description": names.get(sku, "") if sku else "",
                "quantity": count,
                "generic": not sku,
                "to_be_priced": not sku and _to_be_priced(generic, unpriced),
            }
        )
    return modules


def _fibre_parts(
    link: LinkResult,
    names: Mapping[str, str],
    gaps: Mapping[str, Text],
    unpriced: Collection[str] | None,
) -> list[dict[str, Any]]:
    return [
        {
            "kind": line.kind,
            "kind_label": _fibre_kind(line.kind),
            "name": part_name(line.sku, line.description, gaps),
            "description": names.get(line.sku, "") if line.sku else "",
            "quantity": line.quantity,
            "note": _("%(n)s ports used") % {"n": f"{line.ports_used:,}"}
            if line.ports_used
            else "",
            "generic": not line.sku,
            "to_be_priced": not line.sku and _to_be_priced(line.description, unpriced),
        }
        for line in link.fibre
    ]


def _cable_part(
    link: LinkResult,
    names: Mapping[str, str],
    gaps: Mapping[str, Text],
    unpriced: Collection[str] | None,
) -> dict[str, Any]:
    cable_name = link.cable_description or link.cable_sku
    return {
        "name": part_name(link.cable_sku, cable_name, gaps),
        "description": names.get(link.cable_sku, cable_name) if link.cable_sku else "",
        "quantity": link.cables,
        "note": _links_per_cable(link.links_per_cable or 1),
        "generic": not link.cable_sku,
        "to_be_priced": not link.cable_sku and _to_be_priced(cable_name, unpriced),
    }


# --- growth and racks: one wording, one figure ---------------------------------------------------


@dataclass(frozen=True)
class GrowthRow:
    label: str
    gpus: int


def growth_rows(result: DesignResult) -> list[GrowthRow]:
    """The design's growth room in words that fit its tiers. `max_gpus_current_spines` keeps the
    top tier as built: the spines of two tiers, the cores of three, and on one tier the
    switches themselves (there are no spines to speak of); beyond one tier's ports a second tier
    is needed, so one tier has a single figure."""
    growth = result.growth
    if result.tiers <= 1:
        return [GrowthRow(_("Growth on the switches' free ports"), growth.max_gpus_current_spines)]
    top = (
        _("Growth without replacing spines")
        if result.tiers == 2
        else _("Growth without replacing cores")
    )
    return [
        GrowthRow(top, growth.max_gpus_current_spines),
        GrowthRow(_("Growth with the same number of tiers"), growth.max_gpus_same_tiers),
    ]


@dataclass(frozen=True)
class RackCount:
    """The racks of a design. `compute` is the stored result's (`DesignResult.racks`: the racks
    of GPU servers, what the design page, the API and the documents call its racks); `network`
    the racks the elevations add for switches that stand outside them (None: not placed)."""

    compute: int
    network: int | None = None

    @property
    def total(self) -> int | None:
        return None if self.network is None else self.compute + self.network


def rack_count(result: DesignResult, network_racks: int | None = None) -> RackCount:
    return RackCount(compute=result.racks_total, network=network_racks)


# --- the implementation plan -------------------------------------------------------------------


def result_plan(
    result: DesignResult, *, start: date, bom: Sequence[BomRow] | None = None
) -> ImplementationPlan:
    """The phased plan of a design: one scalable unit for the pilot, the BOM split by phase
    (`bom`: its lines in the reader's language; the stored English ones when None)."""
    compute = result.compute
    return build_plan(
        servers=max(1, result.servers_total),
        su_servers=(compute.group_servers if compute else 0) or max(1, result.servers),
        cables=result.cables_total,
        switches=result.switches_total,
        bom=result.bom if bom is None else bom,
        start=start,
    )


def gantt(result: DesignResult, *, start: date) -> tuple[ImplementationPlan, str]:
    plan = result_plan(result, start=start)
    labels = plan_labels()
    return plan, gantt_svg(plan, labels)
