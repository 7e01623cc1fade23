"""The bill of materials of a sized design: parts counted per plane and tier, in a stable order,
and their cost on a price list."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from engine.catalog import CatalogSnapshot, Product
from engine.design import (
    BomLine,
    PlaneDesign,
)
from engine.design_warnings import _switch_estimate
from engine.fabric import (
    ceil_div,
)
from engine.plane_models import PlaneModels
from engine.ports import parse_inline
from engine.text import Text, gettext_noop, text


@dataclass(kw_only=True)
class _BomEntry:
    sku: str
    description: str
    quantity: int
    power_each: float
    power_max_each: float
    rack_units_each: int
    category: str
    gap: Text | None = None


# "rack": the parts of a rack-scale system (engine.scale_up), after the network's.
_CATEGORY_ORDER = {"nic": 0, "switch": 1, "transceiver": 2, "cable": 3, "patch_panel": 4, "rack": 5}
# Pools (engine.pools) follow the compute plane whose spines they share.
_PLANE_ORDER = {"compute": 0, "pool2": 0.2, "pool3": 0.3, "pool4": 0.4, "storage": 1, "frontend": 2,
                "oob": 3}  # fmt: skip


class _Bom:
    def __init__(self) -> None:
        self.lines: dict[tuple[str, str, str], _BomEntry] = {}

    def add(
        self,
        *,
        sku: str,
        description: str,
        quantity: int,
        power_each: float,
        rack_units_each: int,
        plane: str,
        tier: str,
        category: str,
        power_max_each: float | None = None,
        gap: Text | None = None,
    ) -> None:
        if quantity <= 0:
            return
        key = (plane, tier, sku or f"generic:{description}")
        entry = self.lines.get(key)
        if entry is not None:
            entry.quantity += quantity
        else:
            self.lines[key] = _BomEntry(
                sku=sku,
                description=description,
                quantity=quantity,
                power_each=power_each,
                power_max_each=power_each if power_max_each is None else power_max_each,
                rack_units_each=rack_units_each,
                category=category,
                gap=gap,
            )

    def part(
        self,
        part: Product,
        quantity: int,
        plane: str,
        tier: str,
        category: str,
        gaps: dict[str, Text],
    ) -> None:
        """A transceiver, cable or panel of a link group; a generic one is a catalog gap."""
        if quantity <= 0:
            return
        sku = part.sku
        key = (plane, tier, sku or f"generic:{part.name}")
        entry = self.lines.get(key)
        if entry is not None:  # the same part on another link group of the tier pair
            entry.quantity += quantity
            return
        power = float(getattr(part, "power_w", 0.0))
        self.lines[key] = _BomEntry(
            sku=sku,
            description=part.name,
            quantity=quantity,
            power_each=power,
            power_max_each=power,
            rack_units_each=int(getattr(part, "rack_units", 0)),
            category=category,
            gap=None if sku else gaps.get(part.name, Text(part.name)),
        )

    def build(self) -> tuple[BomLine, ...]:
        out = []
        for (plane, tier, _), entry in self.lines.items():
            out.append(
                BomLine(
                    sku=entry.sku,
                    description=entry.description,
                    quantity=entry.quantity,
                    power_w=round(entry.power_each * entry.quantity),
                    power_max_w=round(entry.power_max_each * entry.quantity),
                    rack_units=entry.rack_units_each * entry.quantity,
                    plane=plane,
                    tier=tier,
                    category=entry.category,
                    catalog_gap=entry.gap is not None,
                    description_text=entry.gap,
                )
            )
        out.sort(
            key=lambda b: (
                _PLANE_ORDER.get(b.plane, 9), _CATEGORY_ORDER[b.category], b.tier,
                b.catalog_gap, b.sku, b.description,
            )
        )  # fmt: skip
        return tuple(out)


def _bom_for_plane(
    bom: _Bom, plane: PlaneDesign, models: PlaneModels, servers: int, ports: int
) -> None:
    if models.nic is not None:
        bom.add(
            sku=models.nic.sku,
            description=models.nic.name,
            quantity=servers * ceil_div(ports, models.nic.ports),
            power_each=models.nic.power_w,
            rack_units_each=0,
            plane=plane.name,
            tier="server",
            category="nic",
        )
    model_of = {"leaf": models.leaf, "spine": models.spine, "core": models.core}
    for tier in plane.tiers:
        inline = parse_inline(tier.switch) if tier.sku is None else None
        bom.add(
            sku=tier.sku or "",
            description=tier.description,
            gap=None
            if inline is None
            else text(
                gettext_noop("Switch, %(ports)s x %(speed)sG (inline spec, not a catalog product)"),
                ports=inline[0],
                speed=inline[1],
            ),
            quantity=tier.count,
            power_each=tier.power_w,
            power_max_each=model_of[tier.role].power_max_w or tier.power_w,
            rack_units_each=tier.rack_units,
            plane=plane.name,
            tier=tier.role,
            category="switch",
        )
    for group in plane.links:
        choice = group.choice
        assert choice is not None
        pair = f"{group.a}-{group.b}"
        gaps = dict(choice.gaps)
        if choice.transceiver_b is not None:  # the lower tier's end
            bom.part(choice.transceiver_b, group.transceivers_a, plane.name, pair,
                     "transceiver", gaps)  # fmt: skip
        if choice.transceiver_a is not None:
            bom.part(choice.transceiver_a, group.transceivers_b, plane.name, pair,
                     "transceiver", gaps)  # fmt: skip
        bom.part(choice.cable, group.cables, plane.name, pair, "cable", gaps)
        if choice.cord is not None and group.cords:
            bom.part(choice.cord, group.cords, plane.name, pair, "cable", gaps)
        if choice.panel is not None and group.panels:
            bom.part(choice.panel, group.panels, plane.name, pair, "patch_panel", gaps)


def bom_cost(
    planes: tuple[PlaneDesign, ...],
    bom: tuple[BomLine, ...],
    catalog: CatalogSnapshot,
    prices: Mapping[str, Decimal],
) -> tuple[Decimal, bool, int]:
    """(total, whether a switch price is estimated, lines with no price) of a bill of materials:
    list prices, inline switch specs estimated from the catalog's switches of their class. The
    one pricing the search ranks by, so every page that compares designs agrees with it."""
    total, estimated, unpriced = Decimal(0), False, 0
    for line in bom:
        price = prices.get(line.sku) if line.sku else None
        if price is None and line.category == "switch":
            plane = next(p for p in planes if p.name == line.plane)
            tier = plane.tier(line.tier)
            price = _switch_estimate(tier.switch, catalog, prices) if tier else None
            estimated = estimated or price is not None
        if price is None:
            unpriced += 1
            continue
        total += price * line.quantity
    return total, estimated, unpriced
