"""The quote page's grid: many lines' quantities, unit prices and discounts, and a discount for
every line of one catalog category, saved at once (issue 27 item 6). One transaction at the
revision's version: a stale page is refused whole, and so is a grid with any bad cell, every bad
cell named at once, so that nothing is ever half-written."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from typing import Literal

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from catalog.models import Category, Product
from core.errors import DomainError
from engine.money import CENT
from quotes import pricing
from quotes.models import LineKind, Quote, QuoteLine, QuoteRevision
from quotes.selectors import grouped_lines, line_input, quotes_visible_to
from quotes.services.errors import QuoteInvalid
from quotes.services.prices import _bound
from quotes.services.records import _require
from quotes.services.revisions import (
    _after_change,
    _audit_line,
    _edited_revision,
    _line_state,
    _recorded,
)
from quotes.transitions import Action

# The kinds the grid edits: a note has no figures, freight has its own form (one amount).
GRID_KINDS = (LineKind.PRODUCT, LineKind.SERVICE)
# The cells of a line, as the grid's inputs and the errors name them.
QUANTITY, UNIT_PRICE, DISCOUNT = "quantity", "unit_price", "discount_percent"
CATEGORY, CATEGORY_DISCOUNT = "category", "category_discount"
MAX_QUANTITY = 2**31 - 1  # the column's (PositiveIntegerField) largest value on PostgreSQL


class Keep(Enum):
    """A cell left as it is (distinct from None, which clears a unit price)."""

    KEEP = "keep"


KEEP: Literal[Keep.KEEP] = Keep.KEEP


@dataclass(frozen=True)
class LineCells:
    """What the grid says of one line. `unit_price` is a price typed by hand, in the quote's
    currency (it wins over the price list and the discount, as a line's price override); None
    gives the line back its catalog price. KEEP (None for the others) leaves a cell as is.
    `is_optional`: offered to the customer, outside the total."""

    line_id: int
    quantity: int | None = None
    unit_price: Decimal | Literal[Keep.KEEP] | None = KEEP
    discount_percent: Decimal | None = None
    is_optional: bool | None = None


class QuoteNotFound(DomainError):
    """No such quote for this user: missing, or another team's (they look the same, a 404)."""

    http_status = 404
    code = "not_found"

    def __init__(self) -> None:
        super().__init__(_("No such quote."))


class LinesInvalid(QuoteInvalid):
    """Cells the grid cannot save, each under its input's name (`cell_name`): the page shows
    each beside its cell, the message counts them."""

    code = "invalid_lines"


def cell_name(line_id: int, cell: str) -> str:
    """The grid input (and error key) of one cell of one line: "line-42-quantity"."""
    return f"line-{line_id}-{cell}"


def category_label(category: str) -> str:
    return str(Category(category).label) if category in Category.values else category


def line_categories(lines: Iterable[QuoteLine]) -> dict[int, str]:
    """Each grid line's catalog category ("switch", "transceiver"...), by line id. A line priced
    by hand without a catalog product has none and is left out."""
    grid = [line for line in lines if line.kind in GRID_KINDS and line.sku]
    found = dict(
        Product.objects.filter(sku__in={line.sku for line in grid}).values_list("sku", "category")
    )
    return {line.pk: found[line.sku] for line in grid if line.sku in found}


def _line_name(line: QuoteLine, number: int) -> str:
    return _("Line %(number)s (%(name)s)") % {
        "number": number,
        "name": line.sku or line.localized_description,
    }


def _cell_labels() -> dict[str, str]:
    return {QUANTITY: _("Quantity"), UNIT_PRICE: _("Unit price"), DISCOUNT: _("Discount %")}


def _check_discount(value: Decimal) -> str | None:
    if not Decimal("0") <= value <= Decimal("100"):
        return _("A discount is between 0 and 100%.")
    return None


def revision_lines_update(
    *,
    user: User,
    quote: Quote,
    revision_number: int,
    version: int,
    changes: Sequence[LineCells],
    category: str = "",
    category_discount: Decimal | None = None,
) -> QuoteRevision:
    """Apply the grid's cells to the revision's lines, then `category_discount` to every line of
    the catalog category `category` that has no unit price typed by hand (a discount never
    applies on top of one; it wins over the discounts the same grid typed for those lines).

    Refused whole, nothing written: another team's quote or a missing one (QuoteNotFound), a
    revision that can no longer change (QuoteNotEditable: submitted, approved, sent...), one
    changed since `version` (VersionConflict), or bad cells (LinesInvalid, each cell's error
    under `cell_name`: a quantity under 1, a negative price, a discount outside 0-100 %, an
    amount too large for a quote)."""
    _require(user, Action.EDIT)
    if not quotes_visible_to(user).filter(pk=quote.pk).exists():
        raise QuoteNotFound
    revision = QuoteRevision.objects.filter(quote_id=quote.pk, number=revision_number).first()
    if revision is None:
        raise QuoteNotFound
    with transaction.atomic():
        revision = _edited_revision(revision, expected_version=version)
        ordered = list(
            QuoteLine.objects.select_for_update().filter(revision=revision).order_by("position")
        )
        lines = {line.pk: line for line in ordered}
        befores = {pk: _line_state(line) for pk, line in lines.items()}
        errors = _apply(revision, lines, changes)
        if category:
            errors.update(_apply_category(lines, category, category_discount))
        numbers = grid_numbers(ordered)
        if not errors:
            errors.update(_too_large(revision, lines, numbers))
        if errors:
            raise _invalid(errors, lines, numbers)
        changed = [line for pk, line in lines.items() if _line_state(line) != befores[pk]]
        for line in changed:
            line.version += 1  # a line form opened before this save must not undo it
        QuoteLine.objects.bulk_update(
            changed,
            ["quantity", "override_unit_price", "discount_percent", "is_optional", "version"],
        )
        _after_change(revision)
        for line in changed:
            line.refresh_from_db()
            before, after = _recorded(befores[line.pk], _line_state(line))
            price = before["override_unit_price"] != after["override_unit_price"]
            _audit_line(revision, user, before, after, price=price)
    return revision


def grid_numbers(ordered: list[QuoteLine]) -> dict[int, int]:
    """The line numbers the grid shows and an error names: 1, 2, 3... over the lines it edits,
    in the page's order (grouped by plane and tier)."""
    shown = [line for group in grouped_lines(ordered) for line in group.lines]
    grid = [line for line in shown if line.kind in GRID_KINDS]
    return {line.pk: number for number, line in enumerate(grid, start=1)}


def _apply(
    revision: QuoteRevision, lines: dict[int, QuoteLine], changes: Sequence[LineCells]
) -> dict[tuple[int, str], str]:
    """Set the cells on the lines in memory; the errors by (line id, cell)."""
    errors: dict[tuple[int, str], str] = {}
    for change in changes:
        line = lines.get(change.line_id)
        if line is None or line.kind not in GRID_KINDS:
            raise QuoteInvalid(
                _(
                    "A line of the grid is no longer on %(label)s (deleted since?): reload the "
                    "page; nothing was saved."
                )
                % {"label": revision.label}
            )
        if change.quantity is not None:
            if change.quantity < 1:
                errors[line.pk, QUANTITY] = _(
                    "The quantity is at least 1; delete the line instead."
                )
            elif change.quantity > MAX_QUANTITY:
                errors[line.pk, QUANTITY] = _("The quantity is at most %(max)s.") % {
                    "max": f"{MAX_QUANTITY:,}"
                }
            else:
                line.quantity = change.quantity
        if change.discount_percent is not None:
            problem = _check_discount(change.discount_percent)
            if problem:
                errors[line.pk, DISCOUNT] = problem
            else:
                line.discount_percent = change.discount_percent.quantize(CENT)
        if change.is_optional is not None:
            line.is_optional = change.is_optional
        if change.unit_price is not KEEP:
            if change.unit_price is not None and change.unit_price < 0:
                errors[line.pk, UNIT_PRICE] = _("A price cannot be negative.")
            else:
                line.override_unit_price = (
                    pricing.money(change.unit_price) if change.unit_price is not None else None
                )
    return errors


def _apply_category(
    lines: dict[int, QuoteLine], category: str, discount: Decimal | None
) -> dict[tuple[int, str], str]:
    errors: dict[tuple[int, str], str] = {}
    if discount is None:
        errors[0, CATEGORY_DISCOUNT] = _("Enter the discount for the category.")
        return errors
    problem = _check_discount(discount)
    if problem:
        errors[0, CATEGORY_DISCOUNT] = problem
        return errors
    categories = line_categories(lines.values())
    chosen = [lines[pk] for pk, found in categories.items() if found == category]
    if not chosen:
        errors[0, CATEGORY] = _("No line of this quote is in that category.")
    for line in chosen:
        if line.override_unit_price is None:
            line.discount_percent = discount.quantize(CENT)
    return errors


def _too_large(
    revision: QuoteRevision, lines: dict[int, QuoteLine], numbers: dict[int, int]
) -> dict[tuple[int, str], str]:
    """A line whose amount the column cannot hold, named on its quantity: refused here, beside its
    cell, rather than as one sentence for the whole quote when repricing."""
    unit_bound = _bound(QuoteLine, "unit_price")
    total_bound = _bound(QuoteLine, "line_total")
    errors: dict[tuple[int, str], str] = {}
    for line in lines.values():
        if line.pk not in numbers:
            continue
        priced = pricing.price_line(
            line_input(line), exchange_rate=revision.exchange_rate, currency=revision.currency
        )
        if abs(priced.unit_price.amount) >= unit_bound:
            errors[line.pk, UNIT_PRICE] = _("The unit price is too large for a quote.")
        elif abs(priced.line_total.amount) >= total_bound:
            errors[line.pk, QUANTITY] = _(
                "The amount would exceed what a line holds: lower the quantity or the unit price."
            )
    return errors


def _invalid(
    errors: dict[tuple[int, str], str], lines: dict[int, QuoteLine], numbers: dict[int, int]
) -> LinesInvalid:
    """One refusal naming every bad cell ("Line 3 (MSN2700-CS2F), Quantity: ..."), and each
    cell's sentence under its input's name for the page to show beside it."""
    labels = _cell_labels()
    by_cell: dict[str, str] = {}
    sentences: list[str] = []
    for (pk, cell), message in sorted(errors.items(), key=lambda e: numbers.get(e[0][0], 0)):
        if pk:
            where = f"{_line_name(lines[pk], numbers.get(pk, 0))}, {labels[cell]}"
            by_cell[cell_name(pk, cell)] = message
        else:
            where = _("Discount for a category")
            by_cell[cell] = message
        sentences.append(f"{where}: {message}")
    head = ngettext(
        "%(count)s cell cannot be saved; nothing was saved.",
        "%(count)s cells cannot be saved; nothing was saved.",
        len(errors),
    ) % {"count": len(errors)}
    return LinesInvalid(" ".join([head, *sentences]), errors=by_cell)
