"""Commercial terms of a revision: VAT per line kind (taken and shown in percent), the freight
line, payment milestones tied to the plan's phases, and default terms written from the lines
actually quoted."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import translation
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from core.vocabulary import phase_label
from quotes import pricing
from quotes.models import AuditAction, LineKind, QuoteLine, QuoteRevision
from quotes.selectors import SERVICES_PLANE
from quotes.services.descriptions import in_both
from quotes.services.errors import QuoteInvalid
from quotes.services.records import _require, audit_record
from quotes.services.revisions import _after_change, _edited_revision
from quotes.transitions import Action

HUNDRED = Decimal("100")
MAX_TAX_PERCENT = Decimal("99.99")

# The implementation plan's phases (core.vocabulary.PHASE_NAMES), in order.
PHASES = ("requirements", "design", "poc", "pilot", "full", "operations")
# What a payment can fall due on: completing a phase of the plan, or the customer's final
# acceptance (after the full deployment). Operations support is open-ended (the plan shows it
# with no end), so a payment "on completing" it would never fall due; it stays choosable for
# revisions that have it, and is never a default.
ACCEPTANCE = "acceptance"
MILESTONES = ("requirements", "design", "poc", "pilot", "full", ACCEPTANCE, "operations")
# 30 % when the design is confirmed (the order), 60 % on completing the full deployment
# (delivery), 10 % on the customer's final acceptance.
DEFAULT_MILESTONES: tuple[tuple[str, Decimal], ...] = (
    ("design", Decimal("30")),
    ("full", Decimal("60")),
    (ACCEPTANCE, Decimal("10")),
)


def milestone_label(key: str) -> str:
    """A milestone's name in the reader's language: a plan phase, or the final acceptance."""
    return _("Final acceptance") if key == ACCEPTANCE else phase_label(key)


def milestone_text(milestone: Mapping[str, Any]) -> str:
    """ "30% on completing Design", "10% on final acceptance", in the reader's language."""
    percent, key = milestone.get("percent"), str(milestone.get("phase") or "")
    if key == ACCEPTANCE:
        return _("%(percent)s%% on final acceptance") % {"percent": percent}
    return _("%(percent)s%% on completing %(phase)s") % {
        "percent": percent,
        "phase": phase_label(key),
    }


def milestones_shown(milestones: Iterable[Mapping[str, Any]] | None) -> list[dict[str, str]]:
    """What pages and documents list: each milestone's label, percent and sentence."""
    return [
        {
            "label": milestone_label(str(m.get("phase") or "")),
            "percent": str(m.get("percent")),
            "text": milestone_text(m),
        }
        for m in milestones or []
    ]


FREIGHT_PLANE = "freight"


def tax_rate_from_percent(value: Any, *, field: str) -> Decimal:
    """A VAT rate typed in percent (13 means 13 %) -> the fraction stored (0.13). Refused, naming
    `field`, outside 0 to 99.99 %."""
    try:
        percent = Decimal(str(value).strip().rstrip("%").strip())
    except (InvalidOperation, ValueError):
        raise QuoteInvalid(_("Enter the VAT rate as a percentage, e.g. 13."), field=field) from None
    if not percent.is_finite() or not Decimal("0") <= percent <= MAX_TAX_PERCENT:
        raise QuoteInvalid(
            _("A VAT rate is a percentage from 0 to 99.99 (13 means 13%%); %(value)s is not.")
            % {"value": value},
            field=field,
        )
    return (percent / HUNDRED).quantize(Decimal("0.0001"))


def milestones_checked(milestones: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Payment milestones as stored: each a plan phase (once) and a positive percentage; the
    percentages sum to exactly 100. Refused in words otherwise (field `payment_milestones`)."""
    field = "payment_milestones"
    checked: list[dict[str, str]] = []
    seen: set[str] = set()
    for milestone in milestones:
        phase = str(milestone.get("phase") or "")
        if phase not in MILESTONES:
            raise QuoteInvalid(
                _("%(phase)s is not a phase of the implementation plan.") % {"phase": phase or "?"},
                field=field,
            )
        if phase in seen:
            raise QuoteInvalid(
                _("%(phase)s has two payment milestones; give it one.")
                % {"phase": milestone_label(phase)},
                field=field,
            )
        seen.add(phase)
        try:
            percent = Decimal(str(milestone.get("percent")).strip().rstrip("%").strip())
        except (InvalidOperation, ValueError):
            percent = Decimal("-1")
        if not percent.is_finite() or not Decimal("0") < percent <= HUNDRED:
            raise QuoteInvalid(
                _("The payment due at %(phase)s is a percentage above 0 and at most 100.")
                % {"phase": milestone_label(phase)},
                field=field,
            )
        checked.append({"phase": phase, "percent": format(percent.normalize(), "f")})
    if not checked:
        raise QuoteInvalid(_("Give at least one payment milestone."), field=field)
    total = sum((Decimal(m["percent"]) for m in checked), Decimal("0"))
    if total != HUNDRED:
        raise QuoteInvalid(
            _("The payment milestones sum to %(total)s%%; they must sum to 100%%.")
            % {"total": format(total.normalize(), "f")},
            field=field,
        )
    checked.sort(key=lambda m: MILESTONES.index(m["phase"]))
    return checked


def default_milestones() -> list[dict[str, str]]:
    return [{"phase": phase, "percent": str(percent)} for phase, percent in DEFAULT_MILESTONES]


def default_terms(
    *, kinds_and_tiers: Iterable[tuple[str, str, str]], milestones: Sequence[Mapping[str, str]]
) -> str:
    """Terms in the active language, written from what the revision quotes: `kinds_and_tiers`
    is (kind, tier, sku) per line. Installation, freight and support are said included exactly
    when the quote has such lines."""
    lines = list(kinds_and_tiers)
    installation = any(
        kind == LineKind.SERVICE and sku == pricing.SERVICE_INSTALL_DAY for kind, _t, sku in lines
    )
    freight = any(kind == LineKind.FREIGHT for kind, _t, _s in lines)
    support = any(kind == LineKind.SERVICE and tier == "support" for kind, tier, _s in lines)
    chinese = (get_language() or "").startswith("zh")
    separator = "；" if chinese else "; "  # a full-width semicolon between Chinese clauses
    parts = [
        _("Installation and tuning are included as listed.")
        if installation
        else _("Installation is not included."),
        _("Freight is included as listed.") if freight else _("Freight is not included."),
        _("Delivery 4-6 weeks after order for in-stock items."),
        _("Payment: %(milestones)s.")
        % {"milestones": separator.join(milestone_text(m) for m in milestones)},
        _("Warranty: 1 year (hardware); support as listed.")
        if support
        else _("Warranty: 1 year (hardware)."),
    ]
    # Chinese sentences end in "。" and follow one another without a space.
    return ("" if chinese else " ").join(str(part) for part in parts)


def revision_default_terms(revision: QuoteRevision, *, language: str) -> str:
    rows = revision.lines.values_list("kind", "tier", "sku")
    with translation.override(language):
        return default_terms(
            kinds_and_tiers=list(rows),
            milestones=revision.payment_milestones or default_milestones(),
        )


def written_terms(
    *, kinds_and_tiers: Iterable[tuple[str, str, str]], milestones: Sequence[Mapping[str, str]]
) -> dict[str, str]:
    """The default terms written once in each language (`QuoteRevision.terms_written`)."""
    rows = list(kinds_and_tiers)
    written: dict[str, str] = {}
    for language in ("en", "zh-hans"):
        with translation.override(language):
            written[language] = default_terms(kinds_and_tiers=rows, milestones=milestones)
    return written


def revision_write_terms(revision: QuoteRevision, *, language: str) -> None:
    """Set (not save) `revision`'s terms to the default ones: stored in `language` (the
    customer's) and kept in both languages so each reader reads their own."""
    written = written_terms(
        kinds_and_tiers=list(revision.lines.values_list("kind", "tier", "sku")),
        milestones=revision.payment_milestones or default_milestones(),
    )
    revision.terms_written = written
    revision.terms = written["zh-hans" if language.lower().startswith("zh") else "en"]


def revision_commercial_update(
    *,
    user: User,
    revision: QuoteRevision,
    goods_tax_percent: Any = None,
    services_tax_percent: Any = None,
    freight_tax_percent: Any = None,
    payment_milestones: Iterable[Mapping[str, Any]] | None = None,
    terms: str | None = None,
    validity_days: int | None = None,
    regenerate_terms: bool = False,
    expected_version: int | None = None,
) -> QuoteRevision:
    """Change a revision's VAT rates (in percent), payment milestones, terms or validity. Every
    value is checked before anything is written: a bad one changes nothing. `expected_version`:
    the revision's version the change was made from (a stale one: VersionConflict)."""
    _require(user, Action.EDIT)
    rates = {
        "tax_rate": (goods_tax_percent, "goods_tax_percent"),
        "services_tax_rate": (services_tax_percent, "services_tax_percent"),
        "freight_tax_rate": (freight_tax_percent, "freight_tax_percent"),
    }
    new_rates = {
        name: tax_rate_from_percent(value, field=field)
        for name, (value, field) in rates.items()
        if value is not None and str(value).strip() != ""
    }
    milestones = milestones_checked(payment_milestones) if payment_milestones is not None else None
    if validity_days is not None and validity_days < 1:
        raise QuoteInvalid(_("A quote is valid for at least one day."), field="validity_days")
    with transaction.atomic():
        revision = _edited_revision(revision, expected_version=expected_version)
        before = _commercial_state(revision)
        for name, rate in new_rates.items():
            setattr(revision, name, rate)
        if milestones is not None:
            revision.payment_milestones = milestones
        if validity_days is not None:
            revision.validity_days = validity_days
        # The form shows the written terms in its reader's language: sent back unchanged, they
        # are not an edit, and the terms stay readable in both languages.
        if terms is not None and terms not in (revision.terms_written or {}).values():
            revision.terms = terms
        revision.save()
        if regenerate_terms:
            revision_write_terms(revision, language=revision.quote.customer.preferred_language)
            revision.save(update_fields=["terms", "terms_written", "updated_at"])
        _after_change(revision)
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            before=before,
            after=_commercial_state(revision),
        )
    return revision


def _commercial_state(revision: QuoteRevision) -> dict[str, Any]:
    return {
        "goods_tax_percent": revision.tax_percent,
        "services_tax_percent": revision.services_tax_percent,
        "freight_tax_percent": revision.freight_tax_percent,
        "payment_milestones": revision.payment_milestones,
        "terms": revision.terms,
        # Terms the code wrote are kept in both languages for the trail's readers.
        **(
            {"terms_in": dict(revision.terms_written)}
            if revision.terms and revision.terms in (revision.terms_written or {}).values()
            else {}
        ),
        "validity_days": revision.validity_days,
    }


def revision_freight_set(
    *,
    user: User,
    revision: QuoteRevision,
    amount: Decimal | None,
    expected_version: int | None = None,
) -> QuoteLine | None:
    """The revision's one freight line at `amount` (in the quote's currency, VAT at the freight
    rate); None removes it. `expected_version`: the revision's version the change was made from
    (a stale one: VersionConflict)."""
    _require(user, Action.EDIT)
    if amount is not None and amount < 0:
        raise QuoteInvalid(_("Freight cannot be negative."), field="freight")
    with transaction.atomic():
        revision = _edited_revision(revision, expected_version=expected_version)
        line = revision.lines.filter(kind=LineKind.FREIGHT).first()
        before = str(line.override_unit_price) if line is not None else None
        if amount is None:
            if line is not None:
                line.delete()
            line = None
        else:
            if line is None:
                last = (
                    revision.lines.order_by("-position").values_list("position", flat=True).first()
                )
                line = QuoteLine(
                    revision=revision,
                    position=(last or 0) + 10,
                    kind=LineKind.FREIGHT,
                    plane=SERVICES_PLANE,
                    tier=FREIGHT_PLANE,
                    quantity=1,
                )
            else:
                line.version += 1  # its line form, if open, is stale now
            freight = in_both(lambda: _("Freight and insurance to the customer's site"))
            line.description, line.description_zh = freight.en, freight.zh
            line.override_unit_price = pricing.money(amount)
            line.save()
        _after_change(revision)
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.PRICE_OVERRIDE,
            actor=user,
            before={"freight": before},
            after={"freight": str(pricing.money(amount)) if amount is not None else None},
        )
    if line is not None:
        line.refresh_from_db()
    return line
