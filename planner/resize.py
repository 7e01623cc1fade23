"""Re-sizing a saved design against today's catalog: what would change (`design_resize_preview`),
and the new version it saves (`design_resize`); the saved one never changes under its quotes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from engine.result import DesignResult
from planner.models import Design
from planner.selectors import current_catalog
from planner.services import (
    CatalogChangedSincePreview,
    DesignIsDraft,
    SizedDesign,
    _current_currency,
    catalog_prices,
    design_create,
    design_prices,
    design_size,
)


@dataclass(frozen=True)
class BomChange:
    """One part of the bill of materials, before (as saved) and after (sized today). Quantities
    are summed over planes and tiers; a generic part (no SKU) is named by its description.
    Prices are unit prices in the currency of their side; None: no price."""

    sku: str
    description: str
    quantity_before: int
    quantity_after: int
    unit_price_before: Decimal | None
    unit_price_after: Decimal | None

    @property
    def kind(self) -> str:
        if not self.quantity_before:
            return "added"
        if not self.quantity_after:
            return "removed"
        quantity = self.quantity_before != self.quantity_after
        repriced = self.unit_price_before != self.unit_price_after
        if quantity and repriced:
            return "quantity_repriced"
        return "quantity" if quantity else "repriced" if repriced else "unchanged"

    @property
    def amount_before(self) -> Decimal | None:
        if self.unit_price_before is None:
            return None if self.quantity_before else Decimal(0)
        return self.unit_price_before * self.quantity_before

    @property
    def amount_after(self) -> Decimal | None:
        if self.unit_price_after is None:
            return None if self.quantity_after else Decimal(0)
        return self.unit_price_after * self.quantity_after

    @property
    def amount_delta(self) -> Decimal | None:
        if self.amount_before is None or self.amount_after is None:
            return None
        return self.amount_after - self.amount_before


@dataclass(frozen=True)
class ResizePreview:
    """What re-sizing a saved design against today's catalog would change, before it is saved.
    Totals count priced lines only; `currency_*` are the default price list's at either time
    (when they differ, no money difference is given: yuan are never subtracted from dollars)."""

    design: Design
    sized: SizedDesign
    changes: tuple[BomChange, ...]  # changed lines only
    currency_before: str
    currency_after: str
    total_before: Decimal
    total_after: Decimal
    catalog_version_before: str
    catalog_version_after: str

    @property
    def same_currency(self) -> bool:
        return self.currency_before == self.currency_after

    @property
    def total_delta(self) -> Decimal | None:
        return self.total_after - self.total_before if self.same_currency else None

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def _bom_totals(result: DesignResult) -> dict[str, tuple[str, str, int]]:
    """Quantities by part: SKU, or the description of a generic part."""
    parts: dict[str, tuple[str, str, int]] = {}
    for line in result.bom:
        key = line.sku or f"generic:{line.description}"
        _sku, _description, quantity = parts.get(key, (line.sku, line.description, 0))
        parts[key] = (line.sku, line.description, quantity + line.quantity)
    return parts


def _priced_total(
    parts: Mapping[str, tuple[str, str, int]], prices: Mapping[str, Decimal]
) -> Decimal:
    return sum(
        (prices[sku] * quantity for sku, _d, quantity in parts.values() if sku in prices),
        Decimal(0),
    )


def design_resize_preview(*, design: Design) -> ResizePreview:
    """Size a saved design's request against today's catalog and compare the bill of materials
    with the saved one, line by line: parts added, removed, quantities changed, re-priced."""
    saved = design.typed_result
    if design.is_draft or saved is None:
        raise DesignIsDraft(_("Only a saved design can be re-sized; finish the draft first."))
    before_prices = design_prices(design=design)
    sized = design_size(request_data=design.request)
    after_prices = catalog_prices(sized.catalog)
    before = _bom_totals(saved)
    after = _bom_totals(sized.value)
    changes = []
    for key in dict.fromkeys([*before, *after]):
        sku, description, quantity_before = before.get(key, ("", "", 0))
        sku_after, description_after, quantity_after = after.get(key, ("", "", 0))
        sku = sku or sku_after
        change = BomChange(
            sku=sku,
            description=description or description_after,
            quantity_before=quantity_before,
            quantity_after=quantity_after,
            unit_price_before=before_prices.prices.get(sku) if sku else None,
            unit_price_after=after_prices.get(sku) if sku else None,
        )
        if change.kind != "unchanged":
            changes.append(change)
    return ResizePreview(
        design=design,
        sized=sized,
        changes=tuple(changes),
        currency_before=before_prices.currency,
        currency_after=_current_currency(),
        total_before=_priced_total(before, before_prices.prices),
        total_after=_priced_total(after, after_prices),
        catalog_version_before=design.catalog_version,
        catalog_version_after=sized.catalog.version,
    )


@transaction.atomic
def design_resize(
    *, design: Design, owner: User, previewed_catalog_version: str | None = None
) -> Design:
    """Save a new version of a saved design, sized against today's catalog. The old version
    stays as it was (quotes point at it); the new one is `copied_from` it, one version up.
    `previewed_catalog_version` is the catalog the user saw the changes against
    (`ResizePreview.catalog_version_after`): if it changed since, nothing is saved."""
    if design.is_draft or design.result is None:
        raise DesignIsDraft(_("Only a saved design can be re-sized; finish the draft first."))
    stale = previewed_catalog_version not in (None, current_catalog().version)
    if stale:
        raise CatalogChangedSincePreview(
            _("The catalog changed since these changes were shown; review them again.")
        )
    return design_create(
        owner=owner,
        name=design.name,
        request_data=design.request,
        scenario=design.scenario,
        customer=design.customer,
        copied_from=design,
        version=design.version + 1,
    )


# --- archive and delete -------------------------------------------------------------------------
