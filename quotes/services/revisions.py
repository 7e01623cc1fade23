"""Revisions and their lines: editing a revision that has not been sent (lines, discounts,
terms), and revising a sent, declined or expired one into a new draft."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from engine.money import CENT
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
from quotes.services.errors import QuoteInvalid, VersionConflict
from quotes.services.prices import _frozen_fields, _reprice, _sellable_item
from quotes.services.records import (
    _lock,
    _require,
    _require_permission,
    _set_status,
    audit_record,
)
from quotes.transitions import Action


def _ensure_editable(revision: QuoteRevision) -> None:
    transitions.require(Action.EDIT, revision)


def _edited_revision(revision: QuoteRevision, *, expected_version: int | None) -> QuoteRevision:
    """The revision re-read under its row lock, editable, at `expected_version` (None: whatever
    it is) and with its version bumped: every edit of a revision or of one of its lines goes
    through here, so two saves made from the same page or GET cannot both land (the second is
    refused, nothing silently overwritten). The lock orders concurrent edits; the bump is undone
    with the transaction if the edit is refused further on."""
    revision = _lock(revision)
    _ensure_editable(revision)
    if expected_version is not None and expected_version != revision.version:
        raise VersionConflict(
            _(
                "Someone else changed %(label)s since you opened it: reload the page to see "
                "their change; nothing was saved."
            )
            % {"label": revision.label}
        )
    revision.version += 1  # under the lock: no other transaction reads the old value meanwhile
    revision.save(update_fields=["version", "updated_at"])
    return revision


def _edited_line(
    line: QuoteLine, *, expected_version: int | None
) -> tuple[QuoteRevision, QuoteLine]:
    """The line's revision as `_edited_revision` gives it (a line's change changes the
    revision's totals, so the revision's version moves too), and the line re-read under its own
    row lock, at `expected_version` (None: whatever it is), its version bumped in memory (saved
    with the edit)."""
    revision = _edited_revision(line.revision, expected_version=None)
    current = QuoteLine.objects.select_for_update().filter(pk=line.pk, revision=revision).first()
    if current is None:
        raise VersionConflict(
            _(
                "Someone else deleted this line since you opened it: reload the page; nothing "
                "was saved."
            )
        )
    if expected_version is not None and expected_version != current.version:
        raise VersionConflict(
            _(
                "Someone else changed this line since you opened it: reload the page to see "
                "their change; nothing was saved."
            )
        )
    current.version += 1
    return revision, current


def _after_change(revision: QuoteRevision) -> None:
    """Reprice after an edit. Only a draft is edited (`_edited_revision`): a submitted revision
    is frozen, so no edit ever has an approval to clear (issue 24)."""
    _reprice(revision)


def _check_discount(value: Decimal) -> Decimal:
    if not Decimal("0") <= value <= Decimal("100"):
        raise QuoteInvalid(_("A discount is between 0 and 100%."), field="discount_percent")
    return value.quantize(CENT)


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


def _check_unit_cost(user: User, override_unit_cost: Decimal | None) -> None:
    if override_unit_cost is not _UNSET and override_unit_cost is not None:
        _require_permission(user, "quotes.view_margin")  # a cost is margin information
        if override_unit_cost < 0:
            raise QuoteInvalid(_("A cost cannot be negative."), field="override_unit_cost")


def _replace_sku(
    revision: QuoteRevision, line: QuoteLine, sku: str, *, clear_price: bool, clear_cost: bool
) -> None:
    """The line becomes the catalog's `sku`: its kind, name and frozen prices; `clear_price`,
    `clear_cost`: drop the overrides the call does not give anew."""
    if line.kind == LineKind.NOTE:
        raise QuoteInvalid(_("A note has no SKU."), field="sku")
    item = _sellable_item(revision, sku)
    line.sku = item.sku
    line.kind = LineKind.SERVICE if item.category == "service" else LineKind.PRODUCT
    for name, value in catalog_description(item.sku, default=item.name).fields().items():
        setattr(line, name, value)
    for name, value in _frozen_fields(item).items():
        setattr(line, name, value)
    if clear_price:
        line.override_unit_price = None  # it priced what the line was
    if clear_cost:
        line.override_unit_cost = None  # the catalog's cost applies now


def _set_amounts(
    line: QuoteLine,
    *,
    quantity: int | None,
    discount_percent: Decimal | None,
    override_unit_price: Decimal | None,
) -> None:
    """Quantity, discount and unit price as given (`override_unit_price` _UNSET: kept)."""
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


def _set_texts(
    line: QuoteLine,
    *,
    description: str | None,
    description_en: str | None,
    description_zh: str | None,
    is_optional: bool | None,
) -> None:
    if description is not None:
        line.description, line.description_zh = description, description
    if description_en is not None:
        line.description = description_en
    if description_zh is not None:
        line.description_zh = description_zh
    if is_optional is not None:
        line.is_optional = is_optional


def _set_unit_cost(line: QuoteLine, override_unit_cost: Decimal | None) -> None:
    if override_unit_cost is not None and (
        line.sku or line.kind in (LineKind.NOTE, LineKind.FREIGHT)
    ):
        raise QuoteInvalid(
            _(
                "Only a line priced by hand, without a catalog product, takes a unit "
                "cost: the catalog's cost applies to the others."
            ),
            field="override_unit_cost",
        )
    line.override_unit_cost = (
        pricing.money(override_unit_cost) if override_unit_cost is not None else None
    )


def _audit_update(
    revision: QuoteRevision,
    user: User,
    before: dict[str, Any],
    line: QuoteLine,
    *,
    cost_before: Decimal | None,
) -> None:
    """The line's change in the trail, if anything changed (`before`: its state before)."""
    after = _line_state(line)
    # The cost itself stays out of the trail: the history is shown to everyone who sees the
    # quote, margins only to some. That it changed, and who changed it, is recorded.
    cost_changed = cost_before != line.override_unit_cost
    if before != after or cost_changed:
        recorded_before, recorded_after = _recorded(before, after)
        override_changed = (
            before["override_unit_price"] != after["override_unit_price"] or cost_changed
        )
        _audit_line(revision, user, recorded_before, recorded_after, price=override_changed)


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
    override_unit_cost: Decimal | None = _UNSET,
    expected_version: int | None = None,
) -> QuoteLine:
    """Change a line. `override_unit_price=None` clears an override; leaving it out keeps it.

    `description` is a text typed by hand, in a language we do not know: it becomes the line's
    description in both languages. `description_en` and `description_zh` change one language
    each (given with `description`, they win for their language).

    A line to be priced (a catalog gap: no SKU) is priced with `override_unit_price`, a unit
    price in the quote's currency, or replaced with a catalog product by `sku`: the line then
    takes the product's name (unless `description` is given), kind and frozen prices, and loses
    any override not given in the same call. Any product or service line may change its SKU so.

    Such a line priced by hand has no catalog cost: `override_unit_cost` (same convention as
    the price; in the price list's currency, as catalog costs) gives it one, so that the
    revision's margin is known. Only those who may see margins enter it.

    `expected_version` is the line's version the change was made from (the form's or the ETag's):
    if someone else changed the line since, VersionConflict and nothing is written."""
    _require(user, Action.EDIT)
    _check_unit_cost(user, override_unit_cost)
    with transaction.atomic():
        revision, line = _edited_line(line, expected_version=expected_version)
        before = _line_state(line)
        cost_before = line.override_unit_cost
        if sku is not None and sku.strip() != line.sku:
            _replace_sku(
                revision,
                line,
                sku.strip(),
                clear_price=override_unit_price is _UNSET,
                clear_cost=override_unit_cost is _UNSET,
            )
        _set_amounts(
            line,
            quantity=quantity,
            discount_percent=discount_percent,
            override_unit_price=override_unit_price,
        )
        _set_texts(
            line,
            description=description,
            description_en=description_en,
            description_zh=description_zh,
            is_optional=is_optional,
        )
        if override_unit_cost is not _UNSET:
            _set_unit_cost(line, override_unit_cost)
        line.save()
        _after_change(revision)
        line.refresh_from_db()
        _audit_update(revision, user, before, line, cost_before=cost_before)
    return line


def _audit_line(
    revision: QuoteRevision,
    user: User,
    before: dict[str, Any],
    after: dict[str, Any],
    *,
    price: bool,
) -> None:
    """One line's change in the trail: a price override when `price` (its unit price or cost
    typed by hand changed), otherwise a plain change. Also the grid's (lines_grid)."""
    audit_record(
        quote=revision.quote,
        revision=revision,
        action=AuditAction.PRICE_OVERRIDE if price else AuditAction.LINE_CHANGED,
        actor=user,
        before=before,
        after=after,
    )


def revision_discount_apply(
    *,
    user: User,
    revision: QuoteRevision,
    discount_percent: Decimal,
    expected_version: int | None = None,
) -> QuoteRevision:
    """The same discount on every product line without a price override (services keep theirs).
    `expected_version`: the revision's version it was decided on (see `_edited_revision`)."""
    _require(user, Action.EDIT)
    discount = _check_discount(discount_percent)
    with transaction.atomic():
        revision = _edited_revision(revision, expected_version=expected_version)
        lines = list(revision.lines.filter(kind=LineKind.PRODUCT, override_unit_price__isnull=True))
        before = {str(line.pk): line.discount_percent for line in lines}
        for line in lines:
            if line.discount_percent != discount:
                # A line form opened before this change must not put the old discount back.
                line.version += 1
            line.discount_percent = discount
        QuoteLine.objects.bulk_update(lines, ["discount_percent", "version"])
        _after_change(revision)
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
    expected_version: int | None = None,
) -> QuoteLine:
    """Add a product, service or note line; products and services are priced from the revision's
    price list and the customer's contract prices, as of today.

    A product or service without `description` is described by the catalog's names in both
    languages. A `description` typed by hand is stored as both languages' text, unless
    `description_zh` is given: then `description` is the English text and that the Chinese.
    `expected_version`: the revision's version it was decided on (see `_edited_revision`)."""
    _require(user, Action.EDIT)
    with transaction.atomic():
        revision = _edited_revision(revision, expected_version=expected_version)
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
        _after_change(revision)
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.LINE_CHANGED,
            actor=user,
            after=_recorded(_line_state(line))[0],
        )
    return line


def revision_line_delete(
    *, user: User, line: QuoteLine, expected_version: int | None = None
) -> None:
    """Delete a line. `expected_version`: the line's version it was decided on; if someone else
    changed (or deleted) the line since, VersionConflict and nothing is deleted."""
    _require(user, Action.EDIT)
    with transaction.atomic():
        revision, line = _edited_line(line, expected_version=expected_version)
        before = _recorded(_line_state(line))[0]
        QuoteLine.objects.filter(pk=line.pk, revision=revision).delete()
        _after_change(revision)
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
    expected_version: int | None = None,
) -> QuoteRevision:
    _require(user, Action.EDIT)
    with transaction.atomic():
        revision = _edited_revision(revision, expected_version=expected_version)
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
        _after_change(revision)
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


_COPIED_FIELDS = (
    "frozen_design", "price_list_code", "price_list_currency", "prices_are_samples",
    "currency", "exchange_rate", "tax_rate", "services_tax_rate", "freight_tax_rate",
    "payment_milestones", "terms", "terms_written", "validity_days", "support_years",
)  # fmt: skip
_COPIED_LINE_FIELDS = (
    "position", "kind", "plane", "tier", "sku", "description", "description_zh",
    "quantity", "is_optional", "frozen_list_price", "frozen_tiers", "frozen_contract_price",
    "frozen_unit_cost", "discount_percent", "override_unit_price", "override_unit_cost",
)  # fmt: skip


def _copy_revision(*, user: User, quote: Quote, current: QuoteRevision) -> QuoteRevision:
    """A new draft revision after `current` with the same frozen prices, discounts, terms and
    design snapshot, repriced, and the audit event that says where it came from."""
    new = QuoteRevision.objects.create(
        quote=quote,
        number=current.number + 1,
        created_by=user,
        **{name: getattr(current, name) for name in _COPIED_FIELDS},
    )
    QuoteLine.objects.bulk_create(
        QuoteLine(revision=new, **{name: getattr(line, name) for name in _COPIED_LINE_FIELDS})
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


def quote_revise(*, user: User, quote: Quote) -> QuoteRevision:
    """Copy the latest revision (sent, declined or expired) into a new draft revision, with the
    same frozen prices, discounts, terms and design snapshot."""
    _require(user, Action.REVISE)
    with transaction.atomic():
        quote = Quote.objects.select_for_update().get(pk=quote.pk)
        current = quote.revisions.order_by("-number").first()
        assert current is not None
        transitions.require(Action.REVISE, current)
        return _copy_revision(user=user, quote=quote, current=current)


def revision_withdraw(*, user: User, revision: QuoteRevision) -> QuoteRevision:
    """Take back a submitted or approved revision that was not sent, to change it: it stays as
    it was submitted (and approved), marked withdrawn, and a new draft revision copied from it
    carries the change. Returns the new draft."""
    _require(user, Action.WITHDRAW)
    with transaction.atomic():
        quote = Quote.objects.select_for_update().get(pk=revision.quote_id)
        current = _lock(revision)
        transitions.require(Action.WITHDRAW, current)
        latest = quote.revisions.order_by("-number").values_list("pk", flat=True).first()
        if latest != current.pk:  # pragma: no cover - only the latest is ever submitted
            raise QuoteInvalid(_("Only the latest revision can be withdrawn."))
        _set_status(current, QuoteStatus.WITHDRAWN, actor=user, note={"withdrawn": True})
        return _copy_revision(user=user, quote=quote, current=current)
