"""How one link of a group is carried: the choice the media selector makes (`engine.media`)
and the splitter optics build (`engine.splitters`)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property

from engine.catalog import CableSpec, MediaKind, PatchPanelSpec, Product, TransceiverSpec
from engine.text import Text


@dataclass(frozen=True, kw_only=True)
class MediaChoice:
    """How one link of a group is carried. End `a` is the upper tier's cage (the fat end of a
    breakout), end `b` the lower tier's. Generic stand-ins (catalog gaps) have an empty SKU and
    their names in `gaps`."""

    media: MediaKind
    length_m: float  # stock length of the cable, or of the run's fibre
    cable: CableSpec  # the assembly, or the run's fibre (patch cord, or trunk when structured)
    links_per_cable: int
    transceiver_a: TransceiverSpec | None = None
    transceiver_b: TransceiverSpec | None = None
    links_per_transceiver_a: int = 1
    links_per_transceiver_b: int = 1
    # Structured cabling: a patch cord at each end of the trunk and a panel port at each end.
    cord: CableSpec | None = None
    panel: PatchPanelSpec | None = None
    gaps: tuple[tuple[str, Text], ...] = ()
    cost_per_link: Decimal | None = None
    power_per_link_w: float = 0.0

    @property
    def catalog_gap(self) -> bool:
        return bool(self.gaps)

    @cached_property
    def group_key(self) -> tuple[object, ...]:
        """What makes links one group in the design: same media, stock length, parts. Cached:
        the selector hands out the same choice for every run it fits."""
        return (
            self.media,
            self.length_m,
            _key(self.cable),
            _key(self.transceiver_a),
            _key(self.transceiver_b),
            _key(self.cord),
            _key(self.panel),
        )


def _key(part: Product | None) -> str | None:
    if part is None:
        return None
    return part.sku or f"generic:{part.name}"


def unit_cost(part: Product) -> Decimal | None:
    """The price on the active list, else the catalog's cost; None when neither is known."""
    return part.price if part.price is not None else part.cost
