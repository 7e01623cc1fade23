"""Recommended spares as optional lines of a quote revision. The spares list is the engine's
(`engine.failures.spares`: a share of every switch, module and cable installed, at least
one of each) for the design the quote froze, sized against the catalog snapshot the quote
pinned (else its design's), never today's catalog."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from engine.catalog import CatalogSnapshot
from engine.design import Design as EngineDesign
from engine.failures import spares
from engine.text import Text
from planner.frozen import FrozenDesignHasNoResult, frozen_engine_and_catalog
from planner.presenters import generic_name
from quotes import transitions
from quotes.models import QuoteLine, QuoteRevision
from quotes.services.errors import QuoteInvalid
from quotes.services.revisions import _edited_revision, revision_line_add
from quotes.transitions import Action

SPARES_TIER = "spares"


class QuoteHasNoDesign(QuoteInvalid):
    """The revision froze no sized design: there is nothing to derive spares or growth from."""

    code = "quote_has_no_design"


@dataclass(frozen=True)
class SparesAdded:
    lines: tuple[QuoteLine, ...]
    # Spares not added: generic parts (no SKU: the quote prices them by hand), parts the
    # revision's price list does not sell, and SKUs already on the revision as spares.
    skipped: tuple[str, ...]


def revision_engine_design(revision: QuoteRevision) -> tuple[EngineDesign, CatalogSnapshot]:
    """The engine's design the revision froze and the catalog it was sized with."""
    frozen = revision.frozen_design
    try:
        if frozen is None:
            raise FrozenDesignHasNoResult("no frozen design")
        return frozen_engine_and_catalog(frozen=frozen, design=revision.quote.design)
    except FrozenDesignHasNoResult:
        raise QuoteHasNoDesign(
            _("The quote's design has no sized result to derive this from.")
        ) from None


def engine_gap_texts(design: EngineDesign) -> dict[str, Text]:
    """The design's generic parts by their English name, with their texts to translate: spares
    and growth parts name a generic part in English only."""
    return {
        line.description: line.description_text
        for line in design.bom
        if line.catalog_gap and line.description_text is not None
    }


def revision_spares_add(
    *, user: User, revision: QuoteRevision, expected_version: int | None = None
) -> SparesAdded:
    """Add the design's recommended spares to an editable revision as optional lines, priced
    from the revision's price list like any line added by hand. `expected_version`: the
    revision's version the spares were asked from (a stale one: VersionConflict, none added)."""
    transitions.require(Action.EDIT, revision)
    design, _catalog = revision_engine_design(revision)
    recommended, _total = spares(design)
    gaps = engine_gap_texts(design)
    present = set(
        revision.lines.filter(tier=SPARES_TIER, is_optional=True).values_list("sku", flat=True)
    )
    added: list[QuoteLine] = []
    skipped: list[str] = []
    with transaction.atomic():
        # Checked once, for the whole set: each line added moves the version on.
        revision = _edited_revision(revision, expected_version=expected_version)
        for spare in recommended:
            if not spare.sku or spare.sku in present:
                skipped.append(spare.sku or generic_name(spare.description, gaps))
                continue
            try:
                line = revision_line_add(
                    user=user,
                    revision=revision,
                    sku=spare.sku,
                    quantity=spare.quantity,
                    is_optional=True,
                    plane="options",
                    tier=SPARES_TIER,
                )
            except QuoteInvalid:
                skipped.append(spare.sku)
                continue
            added.append(line)
    return SparesAdded(lines=tuple(added), skipped=tuple(skipped))


__all__ = [
    "QuoteHasNoDesign",
    "SparesAdded",
    "engine_gap_texts",
    "revision_engine_design",
    "revision_spares_add",
]
