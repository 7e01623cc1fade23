"""A quote revision as a spreadsheet for the customer's procurement: its lines with prices, the
VAT per rate, the totals and the validity. Text cells are written as text, never formulas
(planner.exports.files.xlsx_cell), so a description such as "=HYPERLINK(...)" stays inert;
amounts are numbers with two decimals."""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from openpyxl import Workbook
from openpyxl.styles import Font

from planner.exports.files import xlsx_cell
from quotes.models import LineKind, QuoteRevision, percent_text
from quotes.selectors import PLANE_LABELS

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MONEY_FORMAT = "#,##0.00"
_BOLD = Font(bold=True)


def quote_xlsx(revision: QuoteRevision, *, language: str) -> bytes:
    quote = revision.quote
    with translation.override(language):
        workbook = Workbook()
        sheet = workbook.active
        assert sheet is not None
        sheet.title = _("Quote")[:31]
        xlsx_cell(sheet, 1, 1, f"{revision.label} · {quote.title}").font = Font(bold=True, size=13)
        row = _write_facts(sheet, revision, row=2)
        row += 1
        first_line_row = row + 1
        row = _write_lines(sheet, revision, row=row, language=language)
        row += 2
        row = _write_totals(sheet, revision, row=row)
        row += 1
        xlsx_cell(sheet, row, 1, _("Terms")).font = _BOLD
        xlsx_cell(sheet, row, 2, revision.terms_in(language))
        sheet.freeze_panes = sheet.cell(row=first_line_row, column=1)
        widths = (16, 26, 60, 10, 10, 14, 10, 8, 16, 10)
        for column_letter, width in zip("ABCDEFGHIJ", widths, strict=True):
            sheet.column_dimensions[column_letter].width = width
        out = io.BytesIO()
        workbook.save(out)
    return out.getvalue()


def _write_facts(sheet: Any, revision: QuoteRevision, *, row: int) -> int:
    """The quote's customer, currency, validity, status and price list from `row` on; returns
    the row after them."""
    quote = revision.quote
    facts = [
        (_("Customer"), str(quote.customer)),
        (_("Currency"), revision.currency),
        (
            _("Valid until"),
            revision.valid_until.isoformat()
            if revision.valid_until
            else _("%(days)s days from sending") % {"days": revision.validity_days},
        ),
        (_("Status"), str(revision.get_status_display())),
        (_("Price list"), revision.price_list_code),
    ]
    for label, value in facts:
        xlsx_cell(sheet, row, 1, label).font = _BOLD
        xlsx_cell(sheet, row, 2, value)
        row += 1
    return row


def _write_lines(sheet: Any, revision: QuoteRevision, *, row: int, language: str) -> int:
    """The header at `row` and the lines under it; returns the last line's row."""
    headers = [
        _("Group"), _("SKU"), _("Description"), _("Kind"), _("Quantity"), _("Unit price"),
        _("Discount %"), _("VAT %"), _("Line total"), _("Optional"),
    ]  # fmt: skip
    for column, name in enumerate(headers, start=1):
        xlsx_cell(sheet, row, column, name).font = _BOLD
    kinds = dict(LineKind.choices)
    for line in revision.lines.order_by("position", "id"):
        row += 1
        if line.kind == LineKind.NOTE:
            xlsx_cell(sheet, row, 3, line.description_in(language))
            continue
        values: list[object] = [
            str(PLANE_LABELS.get(line.plane, line.plane)),
            line.sku,
            line.description_in(language),
            str(kinds.get(line.kind, line.kind)),
            line.quantity,
            line.unit_price,
            line.effective_discount_percent,
            Decimal(percent_text(line.tax_rate)),
            line.line_total,
            _("yes") if line.is_optional else "",
        ]
        for column, cell_value in enumerate(values, start=1):
            cell = xlsx_cell(sheet, row, column, cell_value)
            if column in (6, 9):
                cell.number_format = MONEY_FORMAT
    return row


def _write_totals(sheet: Any, revision: QuoteRevision, *, row: int) -> int:
    """Subtotal, VAT per rate, total and optional items from `row` on; returns the row after."""
    totals: list[tuple[str, Decimal]] = [(_("Subtotal"), revision.subtotal)]
    for at_rate in revision.tax_breakdown or []:
        totals.append(
            (
                _("VAT %(rate)s%% on %(base)s")
                % {"rate": at_rate["rate"], "base": at_rate["base"]},
                Decimal(at_rate["tax"]),
            )
        )
    totals.append((_("Total"), revision.total))
    if revision.optional_total:
        totals.append((_("Optional items (not in the total)"), revision.optional_total))
    for label, amount in totals:
        xlsx_cell(sheet, row, 8, label).font = _BOLD
        xlsx_cell(sheet, row, 9, amount).number_format = MONEY_FORMAT
        xlsx_cell(sheet, row, 10, revision.currency)
        row += 1
    return row
