"""Reads from the catalog: the engine snapshot, price maps, compatibility and self-checks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, cast

from django.conf import settings
from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.models import (
    CABLE_MEDIA_FOR_CATEGORY,
    SELLABLE_LIFECYCLES,
    SPEC_FOR_CATEGORY,
    CableKind,
    CableSpec,
    Category,
    ContractPrice,
    MediaChoices,
    MediaRule,
    PortBreakout,
    PortGroup,
    Price,
    PriceList,
    Product,
    breakout_error,
)
from catalog.snapshot import finish, money
from engine import catalog as engine
from engine.catalog import ACCEPTS as ENGINE_ACCEPTS
from engine.catalog import CatalogSnapshot, FormFactor

# --- Querysets ------------------------------------------------------------------------


def product_queryset() -> QuerySet[Product]:
    """Products with everything a page or the snapshot reads, in a fixed number of queries."""
    return Product.objects.select_related(
        "vendor",
        "nic_spec",
        "transceiver_spec",
        "cable_spec",
        "switch_spec",
        "service_spec",
        "server_spec",
        "patch_panel_spec",
    ).prefetch_related(
        "transceiver_spec__reaches",
        Prefetch(
            "switch_spec__port_groups",
            queryset=PortGroup.objects.order_by("position", "id").prefetch_related(
                Prefetch("breakouts", queryset=PortBreakout.objects.order_by("ways", "speed_gbps"))
            ),
        ),
    )


def sellable_products() -> QuerySet[Product]:
    return product_queryset().filter(lifecycle__in=SELLABLE_LIFECYCLES)


# --- Engine snapshot ------------------------------------------------------------------------


@dataclass(frozen=True)
class SnapshotPricing:
    """The default price list's amounts by SKU and its currency (None: no default list)."""

    prices: dict[str, Decimal]
    currency: str | None

    @classmethod
    def current(cls) -> SnapshotPricing:
        price_list = default_price_list()
        if price_list is None:
            return cls(prices={}, currency=None)
        return cls(prices=price_map(price_list), currency=price_list.currency)

    def cost(self, product: Product) -> Decimal | None:
        """The catalog cost, when it can be compared with the default list's prices."""
        if self.currency is not None and product.cost_currency != self.currency:
            return None
        return money(product.cost)


NO_PRICES = SnapshotPricing(prices={}, currency=None)


def _common(product: Product, pricing: SnapshotPricing) -> dict[str, Any]:
    return {
        "sku": product.sku,
        "name": product.name_en,
        "vendor": product.vendor.code,
        "lifecycle": engine.Lifecycle(product.lifecycle),
        "price": money(pricing.prices.get(product.sku)),
        "cost": pricing.cost(product),
        "own_brand": product.vendor.is_own_brand,
    }


def _opt(enum: type[Any], value: str) -> Any:
    return enum(value) if value else None


def nic_to_engine(product: Product, pricing: SnapshotPricing = NO_PRICES) -> engine.NicSpec:
    spec = product.nic_spec
    return engine.NicSpec(
        **_common(product, pricing),
        ports=spec.ports,
        speed_gbps=spec.speed_gbps,
        form_factor=FormFactor(spec.form_factor),
        pcie_gen=spec.pcie_gen,
        pcie_lanes=spec.pcie_lanes,
        rocev2=spec.rocev2,
        sriov_vfs=spec.sriov_vfs,
        power_w=float(spec.power_w),
    )


def switch_to_engine(product: Product, pricing: SnapshotPricing = NO_PRICES) -> engine.SwitchSpec:
    spec = product.switch_spec
    return engine.SwitchSpec(
        **_common(product, pricing),
        port_groups=tuple(
            engine.PortGroup(
                count=group.count,
                speed_gbps=group.speed_gbps,
                form_factor=FormFactor(group.form_factor),
                breakouts=tuple(
                    engine.Breakout(ways=b.ways, speed_gbps=b.speed_gbps)
                    for b in group.breakouts.all()
                ),
            )
            for group in spec.port_groups.all()
        ),
        switching_capacity_gbps=spec.switching_capacity_gbps,
        power_typical_w=float(spec.power_typical_w),
        power_max_w=float(spec.power_max_w),
        rack_units=spec.rack_units,
    )


def transceiver_to_engine(
    product: Product, pricing: SnapshotPricing = NO_PRICES
) -> engine.TransceiverSpec:
    spec = product.transceiver_spec
    return engine.TransceiverSpec(
        **_common(product, pricing),
        form_factor=FormFactor(spec.form_factor),
        speed_gbps=spec.speed_gbps,
        standard=spec.standard,
        media=engine.MediaKind(spec.media),
        connector=engine.Connector(spec.connector),
        reaches=tuple(
            engine.Reach(fibre_type=engine.FibreType(r.fibre_type), reach_m=float(r.reach_m))
            for r in sorted(spec.reaches.all(), key=lambda r: r.fibre_type)
        ),
        power_w=float(spec.power_w),
        links_per_module=spec.links_per_module,
        breakout_ways=spec.breakout_ways,
    )


def cable_to_engine(product: Product, pricing: SnapshotPricing = NO_PRICES) -> engine.CableSpec:
    spec = product.cable_spec
    return engine.CableSpec(
        **_common(product, pricing),
        media=engine.MediaKind(spec.media),
        end_a=_opt(FormFactor, spec.end_a),
        end_b=_opt(FormFactor, spec.end_b),
        speed_gbps=spec.speed_gbps,
        length_m=float(spec.length_m),
        breakout_ways=spec.breakout_ways,
        fibre_type=_opt(engine.FibreType, spec.fibre_type),
        connector=_opt(engine.Connector, spec.connector),
        strands=spec.strands,
        power_w=float(spec.power_w),
        kind=engine.CableKind(spec.kind),
        leg_connector=_opt(engine.Connector, spec.leg_connector),
    )


def patch_panel_to_engine(
    product: Product, pricing: SnapshotPricing = NO_PRICES
) -> engine.PatchPanelSpec:
    spec = product.patch_panel_spec
    return engine.PatchPanelSpec(
        **_common(product, pricing),
        connector=engine.Connector(spec.connector),
        ports=spec.ports,
        rack_units=spec.rack_units,
        insertion_loss_db=float(spec.insertion_loss_db),
        fibre_type=_opt(engine.FibreType, spec.fibre_type),
    )


def media_rule_to_engine(rule: MediaRule) -> engine.MediaRule:
    return engine.MediaRule(
        speed_gbps=rule.speed_gbps,
        media=engine.MediaKind(rule.media),
        max_reach_m=float(rule.max_reach_m),
        stock_lengths_m=tuple(float(length) for length in rule.stock_lengths),
    )


def catalog_snapshot() -> CatalogSnapshot:
    """The engine's view of the catalog: sellable (available and planned) products only, each with
    its unit price on the default price list, its cost and its vendor's own-brand flag."""
    nics, switches, transceivers, cables, patch_panels = [], [], [], [], []
    pricing = SnapshotPricing.current()
    for product in sellable_products():
        if product.spec is None:
            continue  # incomplete products are reported by catalog_problems(), never sized
        if product.category == Category.NIC:
            nics.append(nic_to_engine(product, pricing))
        elif product.category == Category.SWITCH:
            switches.append(switch_to_engine(product, pricing))
        elif product.category == Category.TRANSCEIVER:
            transceivers.append(transceiver_to_engine(product, pricing))
        elif product.category in CABLE_MEDIA_FOR_CATEGORY:
            cables.append(cable_to_engine(product, pricing))
        elif product.category == Category.PATCH_PANEL:
            patch_panels.append(patch_panel_to_engine(product, pricing))
    return finish(
        nics=nics,
        switches=switches,
        transceivers=transceivers,
        cables=cables,
        patch_panels=patch_panels,
        media_rules=[media_rule_to_engine(rule) for rule in MediaRule.objects.all()],
        own_brand_margin=settings.OWN_BRAND_MARGIN,
    )


# --- Prices ------------------------------------------------------------------------


def default_price_list() -> PriceList | None:
    return PriceList.objects.filter(is_default=True).first()


def price_map(price_list: PriceList | None = None) -> dict[str, Decimal]:
    """SKU -> list price on `price_list` (the default list when None), for ranking alternatives."""
    price_list = price_list or default_price_list()
    if price_list is None:
        return {}
    return dict(Price.objects.filter(price_list=price_list).values_list("product__sku", "amount"))


@dataclass(frozen=True)
class UnitPrice:
    amount: Decimal
    currency: str
    source: str  # "contract", "tier" or "list"
    is_sample: bool


def unit_price(
    product: Product,
    *,
    quantity: int = 1,
    price_list: PriceList | None = None,
    customer: Any = None,
    day: date | None = None,
) -> UnitPrice | None:
    """The price of one unit: a valid contract price for the customer, else the best quantity tier,
    else the list price."""
    day = day or timezone.localdate()
    price_list = price_list or default_price_list()
    if customer is not None:
        contract = (
            ContractPrice.objects.filter(customer=customer, product=product, valid_from__lte=day)
            .filter(Q(valid_until__isnull=True) | Q(valid_until__gte=day))
            .filter(currency=price_list.currency if price_list else "CNY")
            .order_by("-valid_from")
            .first()
        )
        if contract:
            return UnitPrice(contract.amount, contract.currency, "contract", contract.is_sample)
    if price_list is None:
        return None
    price = Price.objects.filter(price_list=price_list, product=product).first()
    if price is None:
        return None
    tier = price.tiers.filter(min_quantity__lte=quantity).order_by("-min_quantity").first()
    if tier:
        return UnitPrice(tier.unit_price, price_list.currency, "tier", price.is_sample)
    return UnitPrice(price.amount, price_list.currency, "list", price.is_sample)


def list_price(product: Product, price_list: PriceList | None = None) -> Price | None:
    price_list = price_list or default_price_list()
    if price_list is None:
        return None
    return (
        Price.objects.select_related("price_list")
        .filter(price_list=price_list, product=product)
        .first()
    )


def margin(product: Product, price: Price | None) -> Decimal | None:
    """(list - cost) / list, when both exist in the same currency."""
    if price is None or product.cost is None or not price.amount:
        return None
    if price.price_list.currency != product.cost_currency:
        return None
    return ((price.amount - product.cost) / price.amount).quantize(Decimal("0.0001"))


# --- Compatibility ------------------------------------------------------------------------

# A cage accepts its own form factor and the older ones it is built to take (at their speed):
# the engine's table, so the catalog's compatibility lists and sizing never disagree.
CAGE_ACCEPTS: Mapping[str, frozenset[str]] = cast(Mapping[str, frozenset[str]], ENGINE_ACCEPTS)


@dataclass(frozen=True)
class Port:
    """A port (or breakout leg) a module or cable end plugs into."""

    form_factor: str
    speed_gbps: int


def plug_fits(plug_form_factor: str, plug_speed: int, port: Port) -> str | None:
    """Why a plug fits a port, or None. Same form factor: same speed. An older form factor in a
    newer cage (SFP+ in SFP28, QSFP28 in QSFP56/QSFP-DD) runs at the plug's lower speed."""
    if plug_form_factor not in CAGE_ACCEPTS.get(port.form_factor, frozenset()):
        return None
    if plug_form_factor == port.form_factor:
        if plug_speed == port.speed_gbps:
            return _("%(ff)s %(speed)sG") % {"ff": port.form_factor, "speed": port.speed_gbps}
        return None
    if plug_speed < port.speed_gbps:
        return _("%(plug)s in a %(ff)s cage, at %(speed)sG") % {
            "plug": plug_form_factor,
            "ff": port.form_factor,
            "speed": plug_speed,
        }
    return None


def utp_fits(spec: CableSpec, port: Port) -> str | None:
    if port.form_factor == FormFactor.RJ45 and port.speed_gbps <= spec.speed_gbps:
        return _("RJ45 %(speed)sG") % {"speed": port.speed_gbps}
    return None


@dataclass(frozen=True)
class Compatible:
    product: Product
    reason: str


def product_ports(product: Product) -> list[Port]:
    """The ports a NIC or switch offers (switch breakouts are shown as reasons, not ports)."""
    spec = product.spec
    if product.category == Category.NIC and spec is not None:
        return [Port(spec.form_factor, spec.speed_gbps)]  # type: ignore[attr-defined]
    if product.category == Category.SWITCH and spec is not None:
        return [Port(g.form_factor, g.speed_gbps) for g in spec.port_groups.all()]  # type: ignore[attr-defined]
    return []


def _switch_breakouts(product: Product) -> list[tuple[Port, int, int]]:
    """(port, ways, speed per way) for every breakout mode of a switch."""
    if product.category != Category.SWITCH or product.spec is None:
        return []
    return [
        (Port(g.form_factor, g.speed_gbps), b.ways, b.speed_gbps)
        for g in product.switch_spec.port_groups.all()
        for b in g.breakouts.all()
    ]


def _cable_fits_port(spec: CableSpec, port: Port) -> str | None:
    if spec.media == MediaChoices.UTP:
        return utp_fits(spec, port)
    reason = plug_fits(spec.end_a, spec.speed_gbps, port)
    if reason:
        return _("end A: %(reason)s") % {"reason": reason}
    reason = plug_fits(spec.end_b, spec.leg_speed_gbps, port)
    if reason:
        if spec.breakout_ways > 1:
            return _("breakout leg: %(reason)s") % {"reason": reason}
        return _("end B: %(reason)s") % {"reason": reason}
    return None


def _fibre_fits_transceiver(fibre: CableSpec, transceiver: Any) -> str | None:
    """A fibre fits a module of its connector; a splitter's legs also fit modules of the leg
    connector (an MPO-12 to 4 x LC harness takes four 100G-DR modules)."""
    leg = fibre.kind == CableKind.SPLITTER and fibre.leg_connector == transceiver.connector
    if (fibre.connector != transceiver.connector and not leg) or (fibre.media != transceiver.media):
        return None
    reaches = {r.fibre_type: r.reach_m for r in transceiver.reaches.all()}
    if fibre.fibre_type not in reaches:
        return None
    if fibre.length_m > reaches[fibre.fibre_type]:
        return None
    reason = _("%(connector)s %(fibre)s, within %(reach)s m") % {
        "connector": transceiver.connector,
        "fibre": fibre.fibre_type,
        "reach": format(reaches[fibre.fibre_type].normalize(), "f"),
    }
    return _("breakout leg: %(reason)s") % {"reason": reason} if leg else reason


def _fibre_fits_panel(fibre: CableSpec, panel: Any) -> str | None:
    """A panel takes fibre with its connector (and its fibre type, for a cassette built for one)."""
    if fibre.connector != panel.connector:
        return None
    if panel.fibre_type and fibre.fibre_type != panel.fibre_type:
        return None
    return _("%(connector)s port, %(loss)s dB per mated pair") % {
        "connector": panel.connector,
        "loss": format(panel.insertion_loss_db.normalize(), "f"),
    }


def compatible_items(
    product: Product, candidates: Iterable[Product] | None = None
) -> list[Compatible]:
    """What plugs into, or is plugged by, `product`, each with the reason it fits.

    NIC/switch -> transceivers and cables for its ports (and switch breakout cables); transceiver ->
    NICs/switches it fits and fibre for its connector; cable -> NICs/switches either end fits;
    fibre -> transceivers with its connector, media and a reach at least its length, and patch
    panels for its connector; patch panel -> fibre for its connector."""
    pool = list(candidates) if candidates is not None else list(sellable_products())
    pool = [p for p in pool if p.pk != product.pk and p.spec is not None]
    found: list[Compatible] = []
    spec = product.spec
    if spec is None:
        return found

    if product.category in (Category.NIC, Category.SWITCH):
        found = _port_owner_fits(product, pool)
    elif product.category == Category.TRANSCEIVER:
        found = _transceiver_fits(product, pool)
    elif product.category in (Category.COPPER_CABLE, Category.AOC):
        found = _cable_fits(product, pool)
    elif product.category == Category.FIBRE:
        found = _fibre_fits(product, pool)
    elif product.category == Category.PATCH_PANEL:
        found = _panel_fits(product, pool)

    found.sort(key=lambda item: (item.product.category, item.product.sku))
    return found


def _port_owner_fits(product: Product, pool: list[Product]) -> list[Compatible]:
    """A NIC's or switch's transceivers and cables (a switch's breakout cables too)."""
    ports = product_ports(product)
    breakouts = _switch_breakouts(product)
    found: list[Compatible] = []
    for other in pool:
        reason: str | None = None
        if other.category == Category.TRANSCEIVER:
            t = other.transceiver_spec
            reason = next(
                (r for p in ports if (r := plug_fits(t.form_factor, t.speed_gbps, p))), None
            )
        elif other.category in (Category.COPPER_CABLE, Category.AOC):
            c = other.cable_spec
            if c.breakout_ways > 1:
                reason = _breakout_fits(c, breakouts)
            if reason is None:
                reason = next((r for p in ports if (r := _cable_fits_port(c, p))), None)
        if reason:
            found.append(Compatible(other, reason))
    return found


def _breakout_fits(c: CableSpec, breakouts: list[tuple[Port, int, int]]) -> str | None:
    """The first of a switch's breakout modes a breakout cable fits, as a reason."""
    for port, ways, speed in breakouts:
        if (
            c.breakout_ways == ways
            and c.leg_speed_gbps == speed
            and plug_fits(c.end_a, c.speed_gbps, port)
        ):
            return _("%(ff)s port broken out %(ways)s x %(speed)sG") % {
                "ff": port.form_factor,
                "ways": ways,
                "speed": speed,
            }
    return None


def _transceiver_fits(product: Product, pool: list[Product]) -> list[Compatible]:
    t = product.transceiver_spec
    found: list[Compatible] = []
    for other in pool:
        reason = None
        if other.category in (Category.NIC, Category.SWITCH):
            reason = next(
                (
                    r
                    for p in product_ports(other)
                    if (r := plug_fits(t.form_factor, t.speed_gbps, p))
                ),
                None,
            )
        elif other.category == Category.FIBRE:
            reason = _fibre_fits_transceiver(other.cable_spec, t)
        if reason:
            found.append(Compatible(other, reason))
    return found


def _cable_fits(product: Product, pool: list[Product]) -> list[Compatible]:
    c = product.cable_spec
    found: list[Compatible] = []
    for other in pool:
        if other.category in (Category.NIC, Category.SWITCH):
            reason = next((r for p in product_ports(other) if (r := _cable_fits_port(c, p))), None)
            if reason:
                found.append(Compatible(other, reason))
    return found


def _fibre_fits(product: Product, pool: list[Product]) -> list[Compatible]:
    c = product.cable_spec
    found: list[Compatible] = []
    for other in pool:
        reason = None
        if other.category == Category.TRANSCEIVER:
            reason = _fibre_fits_transceiver(c, other.transceiver_spec)
        elif other.category == Category.PATCH_PANEL:
            reason = _fibre_fits_panel(c, other.patch_panel_spec)
        if reason:
            found.append(Compatible(other, reason))
    return found


def _panel_fits(product: Product, pool: list[Product]) -> list[Compatible]:
    panel = product.patch_panel_spec
    found: list[Compatible] = []
    for other in pool:
        if other.category == Category.FIBRE:
            reason = _fibre_fits_panel(other.cable_spec, panel)
            if reason:
                found.append(Compatible(other, reason))
    return found


# --- Self-checks ----------------------------------------------------------------------------------


def catalog_problems(products: Iterable[Product] | None = None) -> list[str]:
    """Everything that would make the catalog unusable for sizing or quoting, one line per problem:
    missing or incomplete specs, cable ends that are not form factors, breakouts that do not
    divide their port, sellable products without a list price on the default list."""
    problems: list[str] = []
    items = list(products) if products is not None else list(product_queryset())
    prices = price_map()
    valid_form_factors = {ff.value for ff in FormFactor}
    for product in items:
        spec = product.spec
        if spec is None:
            problems.append(f"{product.sku}: no {SPEC_FOR_CATEGORY[product.category]}")
            continue
        if product.category == Category.TRANSCEIVER and not product.transceiver_spec.reaches.all():
            problems.append(f"{product.sku}: no reach")
        if product.category == Category.SWITCH:
            groups = list(product.switch_spec.port_groups.all())
            if not groups:
                problems.append(f"{product.sku}: no port groups")
            for group in groups:
                for breakout in group.breakouts.all():
                    message = breakout_error(group.speed_gbps, breakout.ways, breakout.speed_gbps)
                    if message:
                        problems.append(f"{product.sku}: {group}: {message}")
        if product.category in CABLE_MEDIA_FOR_CATEGORY:
            cable = product.cable_spec
            if not cable.is_fibre:
                for end in (cable.end_a, cable.end_b):
                    if end not in valid_form_factors:
                        problems.append(f"{product.sku}: cable end {end!r} is not a form factor")
        if (
            product.lifecycle in SELLABLE_LIFECYCLES
            and product.category != Category.CUSTOMER_SUPPLIED
            and prices
            and product.sku not in prices
        ):
            problems.append(f"{product.sku}: no list price on the default price list")
    return problems
