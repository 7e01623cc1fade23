"""A growth step of the quote's design as a quote revision: what to buy to grow from the size
quoted to the step's size (`engine.growth_steps`), from the catalog snapshot the design
was sized with. A sent, declined or expired revision is revised into a new draft first
(`quote_revise`, as the transition table allows); a revision still open takes the lines itself,
since the table refuses revising it ("change it instead of revising")."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.contrib.humanize.templatetags.humanize import intcomma
from django.db import transaction
from django.utils.translation import gettext as _

from engine.growth_steps import GrowthStep, growth_steps
from planner.i18n import translated
from planner.presenters import generic_name
from planner.services import catalog_prices
from quotes import transitions
from quotes.models import LineKind, Quote, QuoteLine, QuoteRevision
from quotes.services.descriptions import in_both
from quotes.services.errors import QuoteInvalid
from quotes.services.revisions import _edited_revision, quote_revise, revision_line_add
from quotes.services.spares import engine_gap_texts, revision_engine_design
from quotes.transitions import Action

GROWTH_PLANE = "growth"


@dataclass(frozen=True)
class GrowthQuoted:
    revision: QuoteRevision
    step: GrowthStep
    lines: tuple[QuoteLine, ...]
    skipped: tuple[str, ...]  # generic parts and parts the price list does not sell


def quote_growth_revise(
    *, user: User, quote: Quote, step: int, expected_version: int | None = None
) -> GrowthQuoted:
    """Put growth step `step` (its index in the design's growth plan) on a revision: its
    description as a note and its parts as lines. `expected_version`: the version of the
    revision changed in place it was asked from (a stale one: VersionConflict, nothing added);
    a new draft revised from a closed revision starts afresh."""
    current = quote.revisions.order_by("-number").first()
    if current is None:
        raise QuoteInvalid(_("The quote has no revision."))
    design, catalog = revision_engine_design(current)
    plan = growth_steps(design, catalog, catalog_prices(catalog))
    if not 0 <= step < len(plan.steps):
        raise QuoteInvalid(
            _("Step %(step)s is not one of the design's %(count)s growth steps.")
            % {"step": step + 1, "count": len(plan.steps)},
            field="step",
        )
    chosen = plan.steps[step]
    gaps = engine_gap_texts(design)
    with transaction.atomic():
        if transitions.allows(current.status, Action.REVISE):
            revision = quote_revise(user=user, quote=quote)
        else:
            revision = _edited_revision(current, expected_version=expected_version)
        # The note in both languages: the quote prints in either.
        note = in_both(
            lambda: (
                _("Growth from %(before)s to %(after)s GPUs: %(what)s")
                % {
                    "before": intcomma(chosen.gpus_before),
                    "after": intcomma(chosen.gpus_after),
                    "what": translated(chosen.description),
                }
            )
        )
        revision_line_add(
            user=user,
            revision=revision,
            kind=LineKind.NOTE,
            description=note.en,
            description_zh=note.zh,
            plane=GROWTH_PLANE,
            tier=chosen.kind,
        )
        added: list[QuoteLine] = []
        skipped: list[str] = []
        for part in chosen.parts:
            if not part.sku:
                skipped.append(generic_name(part.description, gaps))
                continue
            try:
                added.append(
                    revision_line_add(
                        user=user,
                        revision=revision,
                        sku=part.sku,
                        quantity=part.quantity,
                        plane=GROWTH_PLANE,
                        tier=chosen.kind,
                    )
                )
            except QuoteInvalid:
                skipped.append(part.sku)
    return GrowthQuoted(revision=revision, step=chosen, lines=tuple(added), skipped=tuple(skipped))


__all__ = ["GrowthQuoted", "quote_growth_revise"]
