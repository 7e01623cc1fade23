"""The catalog as the engine sees it: plain, frozen data with no database behind it.

`catalog.snapshot` builds a `CatalogSnapshot` from the database (and from the seed file, for tests
without a database); the engine only ever reads these types."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum


class FormFactor(StrEnum):
    RJ45 = "RJ45"
    SFP_PLUS = "SFP+"
    SFP28 = "SFP28"
    SFP56 = "SFP56"
    QSFP28 = "QSFP28"
    QSFP56 = "QSFP56"
    QSFP112 = "QSFP112"
    QSFP_DD = "QSFP-DD"
    OSFP = "OSFP"


# What plugs each cage takes: the standards' backward compatibility (ports-cages-and-plugs.md).
# OSFP is not mechanically compatible with any QSFP plug, and no SFP plug fits a QSFP cage.
ACCEPTS: dict[FormFactor, frozenset[FormFactor]] = {
    FormFactor.RJ45: frozenset({FormFactor.RJ45}),
    FormFactor.SFP_PLUS: frozenset({FormFactor.SFP_PLUS}),
    FormFactor.SFP28: frozenset({FormFactor.SFP28, FormFactor.SFP_PLUS}),
    FormFactor.SFP56: frozenset({FormFactor.SFP56, FormFactor.SFP28, FormFactor.SFP_PLUS}),
    FormFactor.QSFP28: frozenset({FormFactor.QSFP28}),
    FormFactor.QSFP56: frozenset({FormFactor.QSFP56, FormFactor.QSFP28}),
    FormFactor.QSFP112: frozenset({FormFactor.QSFP112, FormFactor.QSFP56, FormFactor.QSFP28}),
    FormFactor.QSFP_DD: frozenset({FormFactor.QSFP_DD, FormFactor.QSFP56, FormFactor.QSFP28}),
    FormFactor.OSFP: frozenset({FormFactor.OSFP}),
}

# Speeds a cage runs natively, one link per cage, besides its own speed (an SFP28 cage runs an
# SFP+ plug at 10G; a QSFP56 cage a QSFP28 plug at 100G). Same table, "Native speeds" column.
NATIVE_SPEEDS_GBPS: dict[FormFactor, tuple[int, ...]] = {
    FormFactor.RJ45: (10, 1),
    FormFactor.SFP_PLUS: (10, 1),
    FormFactor.SFP28: (25, 10),
    FormFactor.SFP56: (50, 25, 10),
    FormFactor.QSFP28: (100, 40),
    FormFactor.QSFP56: (200, 100, 40),
    FormFactor.QSFP112: (400, 200, 100),
    FormFactor.QSFP_DD: (400,),
    FormFactor.OSFP: (800, 400),
}


def accepts(cage: FormFactor | None, plug: FormFactor | None) -> bool:
    """Whether `plug` fits `cage`; an unknown cage (an inline NIC speed) takes any plug."""
    if cage is None or plug is None:
        return cage is None
    return plug in ACCEPTS.get(cage, frozenset({cage}))


class Lifecycle(StrEnum):
    PLANNED = "planned"
    AVAILABLE = "available"
    END_OF_SALE = "end_of_sale"


class MediaKind(StrEnum):
    """How a link is carried. The order of `MEDIA_PREFERENCE` is the engine's default choice."""

    DAC = "dac"  # passive direct-attach copper
    AEC = "aec"  # active electrical (copper) cable
    AOC = "aoc"  # active optical cable, transceivers built in
    MMF = "mmf"  # multimode optics: two transceivers + multimode fibre (OM3/OM4/OM5)
    SMF = "smf"  # single-mode optics: two transceivers + single-mode fibre (OS2)
    UTP = "utp"  # twisted pair (RJ45), for 1G/10GBASE-T management links


MEDIA_PREFERENCE: tuple[MediaKind, ...] = (
    MediaKind.DAC,
    MediaKind.AEC,
    MediaKind.AOC,
    MediaKind.MMF,
    MediaKind.SMF,
)
COPPER_MEDIA = frozenset({MediaKind.DAC, MediaKind.AEC, MediaKind.UTP})
OPTICAL_MEDIA = frozenset({MediaKind.AOC, MediaKind.MMF, MediaKind.SMF})


class FibreType(StrEnum):
    OM3 = "OM3"
    OM4 = "OM4"
    OM5 = "OM5"
    OS2 = "OS2"


class Connector(StrEnum):
    LC = "LC"
    MPO12 = "MPO-12"  # UPC polish (100G/200G SR4)
    MPO12_APC = "MPO-12/APC"  # angled polish: NVIDIA NDR/XDR-class SR4 and DR4 modules
    MPO16 = "MPO-16"
    MPO24 = "MPO-24"


class CableKind(StrEnum):
    ASSEMBLY = "assembly"  # copper, AOC: plugs on both ends
    PATCH_CORD = "patch_cord"  # fibre from a module (or a patch panel port) to a patch panel
    TRUNK = "trunk"  # fibre between two patch panels
    # fibre from one parallel module to `breakout_ways` modules: one MPO at the module's end,
    # a leg of `leg_connector` to each far module (NVIDIA MFP7E20, an MPO-to-4 x LC harness)
    SPLITTER = "splitter"


@dataclass(frozen=True, kw_only=True)
class Product:
    """What every sellable item has in common. `price` is the unit price on the active price
    list and `cost` the catalog's cost; media are chosen on the first of them that is known."""

    sku: str
    name: str
    vendor: str
    lifecycle: Lifecycle
    price: Decimal | None = None
    cost: Decimal | None = None
    own_brand: bool = False


@dataclass(frozen=True, kw_only=True)
class Breakout:
    """A port run as `ways` logical ports of `speed_gbps` each (e.g. 800G as 2 x 400G)."""

    ways: int
    speed_gbps: int


@dataclass(frozen=True, kw_only=True)
class PortGroup:
    count: int
    speed_gbps: int
    form_factor: FormFactor
    breakouts: tuple[Breakout, ...] = ()


@dataclass(frozen=True, kw_only=True)
class NicSpec(Product):
    ports: int
    speed_gbps: int
    form_factor: FormFactor
    pcie_gen: int
    pcie_lanes: int
    rocev2: bool
    sriov_vfs: int
    power_w: float


@dataclass(frozen=True, kw_only=True)
class SwitchSpec(Product):
    """`power_typical_w` and `power_max_w` are the switch without optics (datasheet); the modules
    it holds are counted on their own lines, so nothing is counted twice."""

    port_groups: tuple[PortGroup, ...]
    switching_capacity_gbps: int
    power_typical_w: float
    power_max_w: float
    rack_units: int


@dataclass(frozen=True, kw_only=True)
class Reach:
    fibre_type: FibreType
    reach_m: float


@dataclass(frozen=True, kw_only=True)
class TransceiverSpec(Product):
    form_factor: FormFactor
    speed_gbps: int  # per module (a twin-port 800G module serves two 400G links)
    standard: str  # e.g. "25GBASE-SR", "400GBASE-DR4"
    media: MediaKind  # MMF or SMF
    connector: Connector
    reaches: tuple[Reach, ...]
    power_w: float
    links_per_module: int = 1  # 2 for twin-port modules
    breakout_ways: int = 1  # e.g. a 400G DR4 used as 4 x 100G DR


@dataclass(frozen=True, kw_only=True)
class CableSpec(Product):
    """A physical assembly. For a breakout, `end_b` is one of `breakout_ways` identical legs.

    For copper and AOC, `speed_gbps` is the A end's speed; each leg carries speed/ways.
    For fibre (trunks, patch cords), `media` is MMF or SMF and the speed is 0 (passive glass)."""

    media: MediaKind
    end_a: FormFactor | None
    end_b: FormFactor | None
    speed_gbps: int
    length_m: float
    breakout_ways: int = 1
    fibre_type: FibreType | None = None
    connector: Connector | None = None
    strands: int = 0
    power_w: float = 0.0  # per cable (both ends), for AEC and AOC
    kind: CableKind = CableKind.ASSEMBLY
    leg_connector: Connector | None = None  # a splitter's legs; None: as `connector`


@dataclass(frozen=True, kw_only=True)
class PatchPanelSpec(Product):
    """A patch panel or MPO cassette: `ports` fibre ports of `connector` in `rack_units`, each
    mated pair costing `insertion_loss_db`."""

    connector: Connector
    ports: int
    rack_units: int
    insertion_loss_db: float
    fibre_type: FibreType | None = None


@dataclass(frozen=True, kw_only=True)
class MediaRule:
    """The longest link a media may carry at a speed, and the lengths sold for it."""

    speed_gbps: int
    media: MediaKind
    max_reach_m: float
    stock_lengths_m: tuple[float, ...] = ()


@dataclass(frozen=True, kw_only=True)
class CatalogSnapshot:
    nics: tuple[NicSpec, ...] = ()
    switches: tuple[SwitchSpec, ...] = ()
    transceivers: tuple[TransceiverSpec, ...] = ()
    cables: tuple[CableSpec, ...] = ()
    media_rules: tuple[MediaRule, ...] = ()
    patch_panels: tuple[PatchPanelSpec, ...] = ()
    # The seller's own brand is chosen when it costs at most this much more per link.
    own_brand_margin: float = 0.05
    # Which price list / revision this snapshot came from, for reproducibility of saved designs.
    version: str = field(default="")

    def by_sku(self) -> dict[str, Product]:
        """Every product by SKU. Computed once per snapshot (snapshots are immutable); callers
        must not change the mapping."""
        cached = self.__dict__.get("_by_sku")
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        items: dict[str, Product] = {}
        for group in (
            self.nics,
            self.switches,
            self.transceivers,
            self.cables,
            self.patch_panels,
        ):
            for item in group:
                items[item.sku] = item
        self.__dict__["_by_sku"] = items  # a memo, not a field: equality and hash ignore it
        return items
