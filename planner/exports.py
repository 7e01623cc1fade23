"""Design exports: bill of materials (XLSX, CSV) and the cabling schedule (CSV, streamed).

Every text cell comes from user or catalog text (a design's name, SKUs, descriptions, device
names), so none may become a formula when the file is opened in Excel or LibreOffice (CSV and
formula injection, OWASP). In CSV a text cell that starts like a formula (`=`, `+`, `-`, `@`, a
tab or a carriage return) is prefixed with a single quote; in XLSX every text cell is written as
a string (data type `s`), never a formula, and characters XML cannot hold are dropped. Numbers
stay numbers."""

import csv
import io
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, Cell
from openpyxl.styles import Font

BOM_COLUMNS = (
    "sku", "description", "quantity", "plane", "tier", "power_w", "rack_units", "catalog_gap",
)  # fmt: skip
CABLING_COLUMNS = (
    "label", "a_device", "a_port", "a_form_factor", "a_plug", "b_device", "b_port",
    "b_form_factor", "b_plug", "media", "speed_gbps", "length_m", "cable",
)  # fmt: skip
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


def _bom_rows(result: Mapping[str, Any]) -> list[list[Any]]:
    return [[line.get(col, "") for col in BOM_COLUMNS] for line in result.get("bom", [])]


def bom_csv(result: Mapping[str, Any]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(BOM_COLUMNS)
    writer.writerows([csv_cell(value) for value in row] for row in _bom_rows(result))
    # A BOM opened in Excel on a Chinese Windows needs the BOM mark to read UTF-8.
    return ("\ufeff" + buffer.getvalue()).encode()


def bom_xlsx(result: Mapping[str, Any], *, title: str) -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "BOM"
    xlsx_cell(sheet, 1, 1, title).font = Font(bold=True, size=13)
    for column, name in enumerate(BOM_COLUMNS, start=1):
        xlsx_cell(sheet, 2, column, name).font = Font(bold=True)
    for row_number, row in enumerate(_bom_rows(result), start=3):
        for column, value in enumerate(row, start=1):
            xlsx_cell(sheet, row_number, column, value)
    for column_letter, width in zip("ABCDEFGH", (28, 60, 10, 12, 12, 10, 10, 12), strict=True):
        sheet.column_dimensions[column_letter].width = width
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


class _Echo:
    def write(self, value: str) -> str:
        return value


def cabling_csv_chunks(rows: Iterable[Any]) -> Iterator[str]:
    """Yields CSV text row by row, so a million-cable schedule streams in constant memory."""
    writer = csv.writer(_Echo())
    yield "\ufeff" + writer.writerow(CABLING_COLUMNS)
    for row in rows:
        yield writer.writerow([csv_cell(getattr(row, column, "")) for column in CABLING_COLUMNS])
