"""Build the engine's `CatalogSnapshot` from the seed file's plain data (pure: no Django, no DB).

`catalog.selectors.catalog_snapshot()` builds the same snapshot from the database; a test proves
the two are equal after `load_catalog`. Both sort the same way (products by SKU, media rules by
speed and media, reaches by fibre type, breakouts by ways, port groups in their listed order) and
both stamp the snapshot with `snapshot_version()`, a hash of its content, so that a saved design
can tell whether the catalog it was sized against has changed.

Every product carries its unit price on the default price list (`price`), its catalog cost
(`cost`, only when it is in the default list's currency, so that the engine never compares yuan
with dollars) and whether its vendor is the own brand (`own_brand`). Money is a Decimal with two
places on both sides, as the database stores it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any

from engine.catalog import (
    Breakout,
    CableKind,
    CableSpec,
    CatalogSnapshot,
    Connector,
    FibreType,
    FormFactor,
    Lifecycle,
    MediaKind,
    MediaRule,
    NicSpec,
    PatchPanelSpec,
    PortGroup,
    Reach,
    SwitchSpec,
    TransceiverSpec,
)
from engine.money import round_cents

SELLABLE = frozenset({Lifecycle.PLANNED, Lifecycle.AVAILABLE})
CABLE_CATEGORIES = frozenset({"copper_cable", "aoc", "fibre"})
PATCH_PANEL_CATEGORY = "patch_panel"
SEED_FORMAT = "ezmax-catalog/1"


def money(value: Any) -> Decimal | None:
    """A seed or database amount as the database keeps it (two places), or None."""
    if value is None or value == "":
        return None
    try:
        return round_cents(Decimal(str(value)))
    except InvalidOperation as exc:
        raise ValueError(f"not an amount: {value!r}") from exc


def snapshot_version(snapshot: CatalogSnapshot) -> str:
    """A short hash of everything the engine reads, prices and costs included: a saved design
    records the catalog and the prices it was sized and priced with."""
    content = repr(
        (
            snapshot.nics,
            snapshot.switches,
            snapshot.transceivers,
            snapshot.cables,
            snapshot.patch_panels,
            snapshot.media_rules,
            snapshot.own_brand_margin,
        )
    )
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()[:16]


def finish(
    *,
    nics: Iterable[NicSpec],
    switches: Iterable[SwitchSpec],
    transceivers: Iterable[TransceiverSpec],
    cables: Iterable[CableSpec],
    media_rules: Iterable[MediaRule],
    patch_panels: Iterable[PatchPanelSpec] = (),
    own_brand_margin: float = 0.05,
) -> CatalogSnapshot:
    """Sort every group the canonical way and stamp the version."""
    snapshot = CatalogSnapshot(
        own_brand_margin=own_brand_margin,
        nics=tuple(sorted(nics, key=lambda item: item.sku)),
        switches=tuple(sorted(switches, key=lambda item: item.sku)),
        transceivers=tuple(sorted(transceivers, key=lambda item: item.sku)),
        cables=tuple(sorted(cables, key=lambda item: item.sku)),
        patch_panels=tuple(sorted(patch_panels, key=lambda item: item.sku)),
        media_rules=tuple(
            sorted(media_rules, key=lambda rule: (rule.speed_gbps, rule.media.value))
        ),
    )
    return replace(snapshot, version=snapshot_version(snapshot))


def _optional(enum: type[Any], value: Any) -> Any:
    return enum(value) if value else None


@dataclass(frozen=True)
class Pricing:
    """What the seed says about money and brands, for `_common`: the default list's amounts by
    SKU, its currency, and the vendors marked own brand."""

    prices: Mapping[str, Decimal]
    currency: str | None
    own_brands: frozenset[str]

    @classmethod
    def from_seed(cls, data: Mapping[str, Any]) -> Pricing:
        default = next((pl for pl in data.get("price_lists", []) if pl.get("default")), None)
        prices: dict[str, Decimal] = {}
        for row in (default or {}).get("prices", []):
            amount = money(row.get("amount"))
            if amount is not None:
                prices[row["sku"]] = amount
        return cls(
            prices=prices,
            currency=default["currency"] if default else None,
            own_brands=frozenset(
                v["code"] for v in data.get("vendors", []) if v.get("own_brand", False)
            ),
        )

    def cost(self, amount: Any, currency: str | None) -> Decimal | None:
        """The cost when it can be compared with the default list's prices."""
        if self.currency is not None and currency != self.currency:
            return None
        return money(amount)


def _common(entry: Mapping[str, Any], pricing: Pricing) -> dict[str, Any]:
    cost = entry.get("cost") or {}
    return {
        "sku": entry["sku"],
        "name": entry["name"]["en"],
        "vendor": entry["vendor"],
        "lifecycle": Lifecycle(entry["lifecycle"]),
        "price": pricing.prices.get(entry["sku"]),
        "cost": pricing.cost(cost.get("amount"), cost.get("currency", "CNY")),
        "own_brand": entry["vendor"] in pricing.own_brands,
    }


def _nic(entry: Mapping[str, Any], pricing: Pricing) -> NicSpec:
    spec = entry["spec"]
    return NicSpec(
        **_common(entry, pricing),
        ports=int(spec["ports"]),
        speed_gbps=int(spec["speed_gbps"]),
        form_factor=FormFactor(spec["form_factor"]),
        pcie_gen=int(spec["pcie_gen"]),
        pcie_lanes=int(spec["pcie_lanes"]),
        rocev2=bool(spec["rocev2"]),
        sriov_vfs=int(spec["sriov_vfs"]),
        power_w=float(spec["power_w"]),
    )


def _switch(entry: Mapping[str, Any], pricing: Pricing) -> SwitchSpec:
    spec = entry["spec"]
    groups = tuple(
        PortGroup(
            count=int(group["count"]),
            speed_gbps=int(group["speed_gbps"]),
            form_factor=FormFactor(group["form_factor"]),
            breakouts=tuple(
                sorted(
                    (
                        Breakout(ways=int(b["ways"]), speed_gbps=int(b["speed_gbps"]))
                        for b in group.get("breakouts", [])
                    ),
                    key=lambda b: (b.ways, b.speed_gbps),
                )
            ),
        )
        for group in spec["port_groups"]
    )
    return SwitchSpec(
        **_common(entry, pricing),
        port_groups=groups,
        switching_capacity_gbps=int(spec["switching_capacity_gbps"]),
        power_typical_w=float(spec["power_typical_w"]),
        power_max_w=float(spec["power_max_w"]),
        rack_units=int(spec["rack_units"]),
    )


def _transceiver(entry: Mapping[str, Any], pricing: Pricing) -> TransceiverSpec:
    spec = entry["spec"]
    reaches = tuple(
        Reach(fibre_type=FibreType(fibre), reach_m=float(reach))
        for fibre, reach in sorted(spec["reaches"].items())
    )
    return TransceiverSpec(
        **_common(entry, pricing),
        form_factor=FormFactor(spec["form_factor"]),
        speed_gbps=int(spec["speed_gbps"]),
        standard=spec["standard"],
        media=MediaKind(spec["media"]),
        connector=Connector(spec["connector"]),
        reaches=reaches,
        power_w=float(spec["power_w"]),
        links_per_module=int(spec.get("links_per_module", 1)),
        breakout_ways=int(spec.get("breakout_ways", 1)),
    )


def _cable(entry: Mapping[str, Any], pricing: Pricing) -> CableSpec:
    spec = entry["spec"]
    return CableSpec(
        **_common(entry, pricing),
        media=MediaKind(spec["media"]),
        end_a=_optional(FormFactor, spec.get("end_a")),
        end_b=_optional(FormFactor, spec.get("end_b")),
        speed_gbps=int(spec.get("speed_gbps", 0)),
        length_m=float(spec["length_m"]),
        breakout_ways=int(spec.get("breakout_ways", 1)),
        fibre_type=_optional(FibreType, spec.get("fibre_type")),
        connector=_optional(Connector, spec.get("connector")),
        strands=int(spec.get("strands", 0)),
        power_w=float(spec.get("power_w", 0)),
        kind=CableKind(spec.get("kind") or CableKind.ASSEMBLY.value),
        leg_connector=_optional(Connector, spec.get("leg_connector")),
    )


def _patch_panel(entry: Mapping[str, Any], pricing: Pricing) -> PatchPanelSpec:
    spec = entry["spec"]
    return PatchPanelSpec(
        **_common(entry, pricing),
        connector=Connector(spec["connector"]),
        ports=int(spec["ports"]),
        rack_units=int(spec["rack_units"]),
        insertion_loss_db=float(spec["insertion_loss_db"]),
        fibre_type=_optional(FibreType, spec.get("fibre_type")),
    )


def _media_rule(entry: Mapping[str, Any]) -> MediaRule:
    return MediaRule(
        speed_gbps=int(entry["speed_gbps"]),
        media=MediaKind(entry["media"]),
        max_reach_m=float(entry["max_reach_m"]),
        stock_lengths_m=tuple(float(length) for length in entry.get("stock_lengths_m", [])),
    )


def snapshot_from_seed(data: Mapping[str, Any]) -> CatalogSnapshot:
    """The snapshot the seed file describes: sellable (planned or available) products only."""
    nics: list[NicSpec] = []
    switches: list[SwitchSpec] = []
    transceivers: list[TransceiverSpec] = []
    cables: list[CableSpec] = []
    patch_panels: list[PatchPanelSpec] = []
    pricing = Pricing.from_seed(data)
    for entry in data.get("products", []):
        if Lifecycle(entry["lifecycle"]) not in SELLABLE:
            continue
        category = entry["category"]
        if category == "nic":
            nics.append(_nic(entry, pricing))
        elif category == "switch":
            switches.append(_switch(entry, pricing))
        elif category == "transceiver":
            transceivers.append(_transceiver(entry, pricing))
        elif category in CABLE_CATEGORIES:
            cables.append(_cable(entry, pricing))
        elif category == PATCH_PANEL_CATEGORY:
            patch_panels.append(_patch_panel(entry, pricing))
    return finish(
        nics=nics,
        switches=switches,
        transceivers=transceivers,
        cables=cables,
        patch_panels=patch_panels,
        media_rules=[_media_rule(rule) for rule in data.get("media_rules", [])],
    )
