"""Revisions and their lines: editing a revision that has not been sent (lines, discounts,
terms), and revising a sent, declined or expired one into a new draft."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from quotes import pricing, transitions
from quotes.models import (
    AuditAction,
    LineKind,
    Quote,
    QuoteLine,
    QuoteRevision,
    QuoteStatus,
)
from quotes.services.descriptions import Descriptions, catalog_description, typed
from quotes.services.errors import QuoteInvalid
from quotes.services.prices import _frozen_fields, _reprice, _sellable_item, _unpriced_lines
from quotes.services.records import _lock, _require, _set_status, audit_record
from quotes.transitions import Action


def _ensure_editable(revision: QuoteRevision) -> None:
    transitions.require(Action.EDIT, revision)


def _after_change(revision: QuoteRevision, *, user: User, what: str) -> None:
    """Reprice; a change to a submitted or approved revision sends it back for approval (or to
    draft when no approval is needed any more, or when a line is left to be priced)."""
    _reprice(revision)
    if revision.status in (QuoteStatus.APPROVED, QuoteStatus.PENDING_APPROVAL):
        if _unpriced_lines(revision):
            new = QuoteStatus.DRAFT  # nothing to approve until every line has a price
        else:
            new = QuoteStatus.PENDING_APPROVAL if revision.approval_reasons else QuoteStatus.DRAFT
        was_approved = revision.approved_at is not None
        revision.approved_by = None
        revision.approved_at = None
        if new != revision.status or was_approved:
            _set_status(
                revision,
                new,
                actor=user,
                note={"reason": what, "approval_cleared": was_approved},
                fields=("approved_by", "approved_at"),
            )


def _check_discount(value: Decimal) -> Decimal:
    if not Decimal("0") <= value <= Decimal("100"):
        raise QuoteInvalid(_("A discount is between 0 and 100%."), field="discount_percent")
    return value.quantize(pricing.CENT)


_UNSET: Any = object()


def _line_state(line: QuoteLine) -> dict[str, Any]:
    return {
        "line": line.pk,
        "sku": line.sku,
        "quantity": line.quantity,
        "discount_percent": line.discount_percent,
        "override_unit_price": line.override_unit_price,
        "description": line.description,
        "description_zh": line.description_zh,
        "is_optional": line.is_optional,
        "unit_price": line.unit_price,
    }


def _recorded(*states: dict[str, Any]) -> list[dict[str, Any]]:
    """Line states as the audit trail shows them: one description, in the actor's language (the
    other language's when only that one changed, so every change shows), under the one key the
    trail names ("description")."""
    ours, theirs = ("description", "description_zh")
    if (get_language() or "en").lower().startswith("zh"):
        ours, theirs = theirs, ours
    if (
        len(states) == 2
        and states[0][ours] == states[1][ours]
        and states[0][theirs] != states[1][theirs]
    ):
        ours, theirs = theirs, ours
    shown = []
    for state in states:
        text = state[ours] or state[theirs]
        # Both texts ride along under `description_in`: the trail shows its reader's language.
        both = {"en": state["description"] or text, "zh-hans": state["description_zh"] or text}
        shown.append(
            {
                **{k: v for k, v in state.items() if k != "description_zh"},
                "description": text,
                "description_in": both,
            }
        )
    return shown


def revision_line_update(
    *,
    user: User,
    line: QuoteLine,
    quantity: int | None = None,
    discount_percent: Decimal | None = None,
    override_unit_price: Decimal | None = _UNSET,
    description: str | None = None,
    is_optional: bool | None = None,
    sku: str | None = None,
    description_en: str | None = None,
    description_zh: str | None = None,
) -> QuoteLine:
    """Change a line. `override_unit_price=None` clears an override; leaving it out keeps it.

    `description` is a text typed by hand, in a language we do not know: it becomes the line's
    description in both languages. `description_en` and `description_zh` change one language
    each (given with `description`, they win for their language).

    A line to be priced (a catalog gap: no SKU) is priced with `override_unit_price`, a unit
    price in the quote's currency, or replaced with a catalog product by `sku`: the line then
    takes the product's name (unless `description` is given), kind and frozen prices, and loses
    any override not given in the same call. Any product or service line may change its SKU so."""
    _require(user, Action.EDIT)
    with transaction.atomic():
        revision = _lock(line.revision)
        _ensure_editable(revision)
        line = QuoteLine.objects.get(pk=line.pk, revision=revision)
        before = _line_state(line)
        if sku is not None and sku.strip() != line.sku:
            if line.kind == LineKind.NOTE:
                raise QuoteInvalid(_("A note has no SKU."), field="sku")
            item = _sellable_item(revision, sku.strip())
            line.sku = item.sku
            line.kind = LineKind.SERVICE if item.category == "service" else LineKind.PRODUCT
            for name, value in catalog_description(item.sku, default=item.name).fields().items():
                setattr(line, name, value)
            for name, value in _frozen_fields(item).items():
                setattr(line, name, value)
            if override_unit_price is _UNSET:
                line.override_unit_price = None  # it priced what the line was
        if quantity is not None:
            if line.kind != LineKind.NOTE and quantity < 1:
                raise QuoteInvalid(
                    _("The quantity is at least 1; delete the line instead."), field="quantity"
                )
            line.quantity = quantity
        if discount_percent is not None:
            line.discount_percent = _check_discount(discount_percent)
        if override_unit_price is not _UNSET:
            if override_unit_price is not None and override_unit_price < 0:
                raise QuoteInvalid(_("A price cannot be negative."), field="override_unit_price")
            line.override_unit_price = (
                pricing.money(override_unit_price) if override_unit_price is not None else None
            )
        if description is not None:
            line.description, line.description_zh = description, description
        if description_en is not None:
            line.description = description_en
        if description_zh is not None:
            line.description_zh = description_zh
        if is_optional is not None:
            line.is_optional = is_optional
        line.save()
        _after_change(revision, user=user, what="line changed")
        line.refresh_from_db()
        after = _line_state(line)
        if before != after:
            recorded_before, recorded_after = _recorded(before, after)
            override_changed = before["override_unit_price"] != after["override_unit_price"]
            audit_record(
                quote=revision.quote,
                revision=revision,
                action=AuditAction.PRICE_OVERRIDE if override_changed else AuditAction.LINE_CHANGED,
                actor=user,
                before=recorded_before,
                after=recorded_after,
            )
    return line


def revision_discount_apply(
    *, user: User, revision: QuoteRevision, discount_percent: Decimal
) -> QuoteRevision:
    """The same discount on every product line without a price override (services keep theirs)."""
    _require(user, Action.EDIT)
    discount = _check_discount(discount_percent)
    with transaction.atomic():
        revision = _lock(revision)
        _ensure_editable(revision)
        lines = list(revision.lines.filter(kind=LineKind.PRODUCT, override_unit_price__isnull=True))
        before = {str(line.pk): line.discount_percent for line in lines}
        for line in lines:
            line.discount_percent = discount
        QuoteLine.objects.bulk_update(lines, ["discount_percent"])
        _after_change(revision, user=user, what="discount changed")
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            before={"discount_percent": before},
            after={
                "discount_percent": dict.fromkeys(before, discount),
                "total": revision.total,
            },
        )
    return revision


def _descriptions(description: str, description_zh: str | None) -> Descriptions:
    if description_zh is None:
        return typed(description)
    return Descriptions(en=description, zh=description_zh.strip())


def revision_line_add(
    *,
    user: User,
    revision: QuoteRevision,
    kind: str = LineKind.PRODUCT,
    sku: str = "",
    description: str = "",
    quantity: int = 1,
    is_optional: bool = False,
    plane: str = "",
    tier: str = "",
    description_zh: str | None = None,
) -> QuoteLine:
    """Add a product, service or note line; products and services are priced from the revision's
    price list and the customer's contract prices, as of today.

    A product or service without `description` is described by the catalog's names in both
    languages. A `description` typed by hand is stored as both languages' text, unless
    `description_zh` is given: then `description` is the English text and that the Chinese."""
    _require(user, Action.EDIT)
    with transaction.atomic():
        revision = _lock(revision)
        _ensure_editable(revision)
        last = revision.lines.order_by("-position").values_list("position", flat=True).first()
        fields: dict[str, Any] = {
            "revision": revision,
            "position": (last or 0) + 10,
            "kind": kind,
            "plane": plane or ("options" if is_optional else "other"),
            "tier": tier,
            "is_optional": is_optional,
        }
        if kind == LineKind.NOTE:
            if not description.strip():
                raise QuoteInvalid(_("A note needs its text."), field="description")
            fields.update(
                _descriptions(description.strip(), description_zh).fields(),
                quantity=0,
                is_optional=False,
            )
        else:
            if quantity < 1:
                raise QuoteInvalid(_("The quantity is at least 1."), field="quantity")
            item = _sellable_item(revision, sku)
            names = (
                _descriptions(description, description_zh)
                if description
                else catalog_description(item.sku, default=item.name)
            )
            fields.update(
                names.fields(),
                sku=sku,
                quantity=quantity,
                kind=LineKind.SERVICE if item.category == "service" else LineKind.PRODUCT,
                **_frozen_fields(item),
            )
        line = QuoteLine.objects.create(**fields)
        _after_change(revision, user=user, what="line added")
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            after=_recorded(_line_state(line))[0],
        )
    return line


def revision_line_delete(*, user: User, line: QuoteLine) -> None:
    _require(user, Action.EDIT)
    with transaction.atomic():
        revision = _lock(line.revision)
        _ensure_editable(revision)
        before = _recorded(_line_state(line))[0]
        QuoteLine.objects.filter(pk=line.pk, revision=revision).delete()
        _after_change(revision, user=user, what="line deleted")
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            before=before,
        )


def revision_terms_update(
    *,
    user: User,
    revision: QuoteRevision,
    terms: str | None = None,
    validity_days: int | None = None,
    tax_rate: Decimal | None = None,
) -> QuoteRevision:
    _require(user, Action.EDIT)
    with transaction.atomic():
        revision = _lock(revision)
        _ensure_editable(revision)
        before = {
            "terms": revision.terms,
            "validity_days": revision.validity_days,
            "tax_rate": revision.tax_rate,
        }
        if terms is not None:
            revision.terms = terms
        if validity_days is not None:
            if validity_days < 1:
                raise QuoteInvalid(
                    _("A quote is valid for at least one day."), field="validity_days"
                )
            revision.validity_days = validity_days
        if tax_rate is not None:
            if not Decimal("0") <= tax_rate < Decimal("1"):
                raise QuoteInvalid(
                    _("The tax rate is a fraction, e.g. 0.13 for 13%."), field="tax_rate"
                )
            revision.tax_rate = tax_rate
        revision.save()
        _after_change(revision, user=user, what="terms changed")
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            before=before,
            after={
                "terms": revision.terms,
                "validity_days": revision.validity_days,
                "tax_rate": revision.tax_rate,
            },
        )
    return revision


def quote_revise(*, user: User, quote: Quote) -> QuoteRevision:
    """Copy the latest revision (sent, declined or expired) into a new draft revision, with the
    same frozen prices, discounts, terms and design snapshot."""
    _require(user, Action.REVISE)
    with transaction.atomic():
        quote = Quote.objects.select_for_update().get(pk=quote.pk)
        current = quote.revisions.order_by("-number").first()
        assert current is not None
        transitions.require(Action.REVISE, current)
        copy_fields = (
            "design_snapshot",
            "price_list_code",
            "price_list_currency",
            "prices_are_samples",
            "currency",
            "exchange_rate",
            "tax_rate",
            "services_tax_rate",
            "freight_tax_rate",
            "payment_milestones",
            "terms",
            "terms_written",
            "validity_days",
            "support_years",
        )
        new = QuoteRevision.objects.create(
            quote=quote,
            number=current.number + 1,
            created_by=user,
            **{name: getattr(current, name) for name in copy_fields},
        )
        line_fields = (
            "position", "kind", "plane", "tier", "sku", "description", "description_zh",
            "quantity", "is_optional", "frozen_list_price", "frozen_tiers", "frozen_contract_price",
            "frozen_unit_cost", "discount_percent", "override_unit_price",
        )  # fmt: skip
        QuoteLine.objects.bulk_create(
            QuoteLine(revision=new, **{name: getattr(line, name) for name in line_fields})
            for line in current.lines.order_by("position", "id")
        )
        _reprice(new)
        audit_record(
            quote=quote,
            revision=new,
            action=AuditAction.CREATED,
            actor=user,
            before={"revision": current.label, "status": current.status},
            after={"revision": new.label, "status": new.status},
        )
    return new
