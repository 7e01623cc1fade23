"""Design exports: bill of materials (XLSX, CSV) and the cabling schedule (CSV, streamed).

Every text cell comes from user or catalog text (a design's name, SKUs, descriptions, device
names), so none may become a formula when the file is opened in Excel or LibreOffice (CSV and
formula injection, OWASP). In CSV a text cell that starts like a formula (`=`, `+`, `-`, `@`, a
tab or a carriage return) is prefixed with a single quote; in XLSX every text cell is written as
a string (data type `s`), never a formula, and characters XML cannot hold are dropped. Numbers
stay numbers.

The BOM carries the unit prices the design was sized and priced with (its `SizingSnapshot`,
through `services.design_prices`), never today's price list: a saved design is frozen, and its
exports stay byte for byte what they were when the catalog re-prices or retires a part. A part
with no price, or a generic part, has none and is left out of the total, which says how many it
left out. The rows come from the stored result, never from sizing again. The XLSX has a
second sheet with the cabling schedule, capped at CABLING_ROWS_IN_XLSX rows so the synchronous
download stays inside the web timeout: beyond it the sheet says so and points to the CSV."""

import csv
import io
import itertools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, Cell
from openpyxl.styles import Font

from core.vocabulary import media_label, plane_label, tier_label
from engine.cabling import CablingRow
from engine.money import Money
from engine.result import BomLineResult, DesignResult, result_from_json
from planner.models import Design
from planner.services import DesignEngineChanged, design_cabling, design_prices

BOM_COLUMNS = (
    "sku", "description", "quantity", "plane", "tier", "power_w", "rack_units", "catalog_gap",
    "unit_price", "currency", "line_total",
)  # fmt: skip
# The headings people read (the pages' CSV and every XLSX), in the reader's language; the API's
# CSV keeps the keys above, which integrations parse.
BOM_HEADINGS: dict[str, Promise] = {
    "sku": gettext_lazy("SKU"),
    "description": gettext_lazy("Description"),
    "quantity": gettext_lazy("Quantity"),
    "plane": gettext_lazy("Plane"),
    "tier": gettext_lazy("Tier"),
    "power_w": gettext_lazy("Power (W)"),
    "rack_units": gettext_lazy("Rack units"),
    "catalog_gap": gettext_lazy("To be priced"),
    "unit_price": gettext_lazy("Unit price"),
    "currency": gettext_lazy("Currency"),
    "line_total": gettext_lazy("Line total"),
}
CABLING_COLUMNS = (
    "label", "a_device", "a_port", "a_form_factor", "a_plug", "b_device", "b_port",
    "b_form_factor", "b_plug", "media", "speed_gbps", "length_m", "cable", "cable_sku",
)  # fmt: skip
# About 15 s of openpyxl on a loaded 2-core machine (14 columns a row): the cap of a synchronous
# download. Larger schedules stream as CSV (or run as a background export).
CABLING_HEADINGS: dict[str, Promise] = {
    "label": gettext_lazy("Label"),
    "a_device": gettext_lazy("A device"),
    "a_port": gettext_lazy("A port"),
    "a_form_factor": gettext_lazy("A cage"),
    "a_plug": gettext_lazy("A plug"),
    "b_device": gettext_lazy("B device"),
    "b_port": gettext_lazy("B port"),
    "b_form_factor": gettext_lazy("B cage"),
    "b_plug": gettext_lazy("B plug"),
    "media": gettext_lazy("Media"),
    "speed_gbps": gettext_lazy("Speed (Gb/s)"),
    "length_m": gettext_lazy("Length (m)"),
    "cable": gettext_lazy("Cable"),
    "cable_sku": gettext_lazy("Cable SKU"),
}
CABLING_ROWS_IN_XLSX = 100_000
MONEY_FORMAT = "#,##0.00"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell that no spreadsheet reads as a formula: text that starts like one gets a
    leading single quote. Numbers (and booleans, None) pass unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def xlsx_cell(sheet: Any, row: int, column: int, value: Any) -> Cell:
    """Write one cell: text always as a string (never a formula), numbers as numbers."""
    cell: Cell = sheet.cell(row=row, column=column)
    if isinstance(value, str):
        cell.value = ILLEGAL_CHARACTERS_RE.sub("", value)
        cell.data_type = "s"  # after the value: openpyxl infers "f" for text starting with "="
    else:
        cell.value = value
    return cell


def _bom(result: DesignResult | Mapping[str, Any]) -> tuple[BomLineResult, ...]:
    # Callers holding the stored JSON (the API's views) get it read through the one codec; an
    # empty one (a draft that does not size) has no lines.
    if isinstance(result, DesignResult):
        return result.bom
    return result_from_json(result).bom if result else ()


@dataclass(frozen=True)
class BomPrices:
    """Unit prices of the BOM's SKUs (list prices, before any discount) in one currency;
    `price_list` names where they come from on the XLSX's total line."""

    currency: str
    price_list: str
    unit_prices: Mapping[str, Decimal]

    def price(self, sku: str) -> Money | None:
        amount = self.unit_prices.get(sku) if sku else None
        return None if amount is None else Money(amount, self.currency)


def design_bom_prices(*, design: Design) -> BomPrices | None:
    """The prices `design` was sized and priced with, for its BOM's SKUs (None: it was priced on
    no price list, so no total line). Read from its sizing snapshot, never today's price list:
    re-pricing the catalog leaves a saved design's exports as they were."""
    priced = design_prices(design=design)
    if not priced.currency:
        return None
    skus = {line.sku for line in _bom(design.result or {}) if line.sku}
    return BomPrices(
        currency=priced.currency,
        price_list=design.catalog_version,
        unit_prices={sku: price for sku, price in priced.prices.items() if sku in skus},
    )


def design_bom_csv(*, design: Design, readable: bool = False) -> bytes:
    """The design's BOM as CSV: its stored result at the prices it was saved with; `readable`
    for people (the pages): headings and names in the active language."""
    return bom_csv(design.result or {}, prices=design_bom_prices(design=design), readable=readable)


def design_bom_xlsx(
    *,
    design: Design,
    cabling: Iterable[CablingRow] | None = None,
    progress: Callable[[int], None] | None = None,
) -> bytes:
    """The design's BOM (and cabling) as XLSX: its stored result at the prices it was saved
    with, its cabling schedule re-derived from what it was sized with (`design_cabling`).
    `progress(rows)`: the rows of both sheets written so far, now and then (the export job)."""
    return bom_xlsx(
        design.result or {},
        title=design.name,
        prices=design_bom_prices(design=design),
        cabling=cabling,
        design=design,
        progress=progress,
    )


@dataclass(frozen=True)
class BomTotal:
    money: Money | None  # None: priced on no price list
    unpriced_lines: int


def _priced_bom(
    result: DesignResult | Mapping[str, Any], prices: BomPrices | None, *, readable: bool = False
) -> tuple[list[list[object]], BomTotal]:
    rows: list[list[object]] = []
    total, unpriced = (Money.zero(prices.currency) if prices else None), 0
    for line in _bom(result):
        unit = prices.price(line.sku) if prices else None
        line_total = unit * line.quantity if unit is not None else None
        if line_total is None or total is None:
            unpriced += 1
        else:
            total += line_total
        rows.append(
            [
                line.sku,
                line.description,
                line.quantity,
                plane_label(line.plane) if readable else line.plane,
                tier_label(line.tier) if readable else line.tier,
                line.power_w,
                line.rack_units,
                (_("Yes") if line.catalog_gap else "") if readable else line.catalog_gap,
                None if unit is None else unit.amount,
                unit.currency if unit is not None else "",
                None if line_total is None else line_total.amount,
            ]
        )
    return rows, BomTotal(money=total, unpriced_lines=unpriced)


def bom_csv(
    result: DesignResult | Mapping[str, Any], *, prices: BomPrices | None, readable: bool = False
) -> bytes:
    """`prices`: the design's (`design_bom_prices`); there is no default, so that no caller
    prices a saved design from today's list by leaving it out. `readable`: headings, planes,
    tiers and the total line in the active language, for people; else the keys integrations
    parse."""
    rows, total = _priced_bom(result, prices, readable=readable)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([str(BOM_HEADINGS[c]) for c in BOM_COLUMNS] if readable else BOM_COLUMNS)
    writer.writerows([csv_cell(_csv_value(value)) for value in row] for row in rows)
    if total.money is not None:
        unpriced = (
            _unpriced_text(total.unpriced_lines)
            if readable
            else f"{total.unpriced_lines} lines without a price"
        )
        writer.writerow(
            [_("Total") if readable else "total", unpriced, "", "", "", "", "", "", "",
             total.money.currency, total.money.amount]
        )  # fmt: skip
    # A BOM opened in Excel on a Chinese Windows needs the BOM mark to read UTF-8.
    return ("\ufeff" + buffer.getvalue()).encode()


def _unpriced_text(count: int) -> str:
    return ngettext("%(count)s line without a price", "%(count)s lines without a price", count) % {
        "count": f"{count:,}"
    }


def _csv_value(value: object) -> object:
    return "" if value is None else value


def bom_xlsx(
    result: DesignResult | Mapping[str, Any],
    *,
    title: str,
    prices: BomPrices | None,
    cabling: Iterable[CablingRow] | None = None,
    design: Design | None = None,
    progress: Callable[[int], None] | None = None,
) -> bytes:
    """The BOM sheet (with unit prices, currency, line totals and the total) and, given the
    cabling rows (or the saved design they come from), a cabling sheet of at most
    CABLING_ROWS_IN_XLSX rows. `prices` as for `bom_csv`. When the services refuse to derive
    the saved design's cabling (the engine changed), the cabling sheet says so in words: the
    BOM comes from the stored result and is still exactly what was saved."""
    refused = ""
    if cabling is None and design is not None and design.result is not None:
        try:
            cabling = design_cabling(design=design)
        except DesignEngineChanged as exc:
            refused = exc.message
    rows, total = _priced_bom(result, prices, readable=True)
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "BOM"  # the sheet's name, which formulas and scripts refer to
    bold = Font(bold=True)
    xlsx_cell(sheet, 1, 1, title).font = Font(bold=True, size=13)
    for column, name in enumerate(BOM_COLUMNS, start=1):
        xlsx_cell(sheet, 2, column, str(BOM_HEADINGS[name])).font = bold
    row_number = 2
    for row_number, row in enumerate(rows, start=3):
        for column, value in enumerate(row, start=1):
            cell = xlsx_cell(sheet, row_number, column, value)
            if column in (9, 11):
                cell.number_format = MONEY_FORMAT
    if prices is not None and total.money is not None:
        row_number += 1
        xlsx_cell(sheet, row_number, 1, _("Total")).font = bold
        source = (
            _("Catalog %(version)s list prices") % {"version": prices.price_list}
            if prices.price_list
            else _("Catalog list prices")
        )
        xlsx_cell(sheet, row_number, 2, f"{source}; {_unpriced_text(total.unpriced_lines)}")
        xlsx_cell(sheet, row_number, 10, total.money.currency)
        cell = xlsx_cell(sheet, row_number, 11, total.money.amount)
        cell.number_format = MONEY_FORMAT
        cell.font = bold
    widths = (28, 60, 10, 12, 12, 10, 10, 12, 14, 9, 16)
    for column_letter, width in zip("ABCDEFGHIJK", widths, strict=True):
        sheet.column_dimensions[column_letter].width = width
    if progress is not None:
        progress(len(rows))
    if cabling is not None:
        _cabling_sheet(workbook.create_sheet("Cabling"), cabling, progress, len(rows))
    elif refused:
        xlsx_cell(workbook.create_sheet("Cabling"), 1, 1, refused).font = Font(bold=True)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


# How often (in cabling rows) the workbook's writer reports its progress.
PROGRESS_EVERY_ROWS = 1_000


def _cabling_sheet(
    sheet: Any,
    rows: Iterable[CablingRow],
    progress: Callable[[int], None] | None = None,
    before: int = 0,
) -> None:
    for column, name in enumerate(CABLING_COLUMNS, start=1):
        xlsx_cell(sheet, 1, column, str(CABLING_HEADINGS[name])).font = Font(bold=True)
    sheet.freeze_panes = "A2"
    written = 0
    for written, row in enumerate(itertools.islice(rows, CABLING_ROWS_IN_XLSX + 1), start=1):
        if written > CABLING_ROWS_IN_XLSX:
            xlsx_cell(
                sheet,
                written + 1,
                1,
                _(
                    "More than %(cap)s cables: the first %(cap)s are listed; download the "
                    "cabling CSV for all of them."
                )
                % {"cap": f"{CABLING_ROWS_IN_XLSX:,}"},
            ).font = Font(bold=True)
            break
        for column, name in enumerate(CABLING_COLUMNS, start=1):
            value = getattr(row, name, "")
            value = getattr(value, "value", value)
            xlsx_cell(sheet, written + 1, column, media_label(value) if name == "media" else value)
        if progress is not None and written % PROGRESS_EVERY_ROWS == 0:
            progress(before + written)


class _Echo:
    def write(self, value: str) -> str:
        return value


def cabling_csv_chunks(rows: Iterable[CablingRow]) -> Iterator[str]:
    """Yields CSV text row by row, so a million-cable schedule streams in constant memory."""
    writer = csv.writer(_Echo())
    yield "\ufeff" + writer.writerow(CABLING_COLUMNS)
    cells = operator.attrgetter(*CABLING_COLUMNS)
    first = frozenset(FORMULA_STARTS)  # csv_cell's rule, inlined: 14 cells a row, 2 M rows
    for row in rows:
        yield writer.writerow(
            ["'" + v if v.__class__ is str and v[:1] in first else v for v in cells(row)]
        )
