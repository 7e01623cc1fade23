"""Design exports: bill of materials (XLSX, CSV) and the cabling schedule (CSV, streamed)."""

import csv
import io
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from openpyxl import Workbook
from openpyxl.styles import Font

BOM_COLUMNS = (
    "sku", "description", "quantity", "plane", "tier", "power_w", "rack_units", "catalog_gap",
)  # fmt: skip
CABLING_COLUMNS = (
    "label", "a_device", "a_port", "a_form_factor", "a_plug", "b_device", "b_port",
    "b_form_factor", "b_plug", "media", "speed_gbps", "length_m", "cable",
)  # fmt: skip


def _bom_rows(result: Mapping[str, Any]) -> list[list[Any]]:
    return [[line.get(col, "") for col in BOM_COLUMNS] for line in result.get("bom", [])]


def bom_csv(result: Mapping[str, Any]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(BOM_COLUMNS)
    writer.writerows(_bom_rows(result))
    # A BOM opened in Excel on a Chinese Windows needs the BOM mark to read UTF-8.
    return ("\ufeff" + buffer.getvalue()).encode()


def bom_xlsx(result: Mapping[str, Any], *, title: str) -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "BOM"
    sheet.append([title])
    sheet["A1"].font = Font(bold=True, size=13)
    sheet.append(list(BOM_COLUMNS))
    for cell in sheet[2]:
        cell.font = Font(bold=True)
    for row in _bom_rows(result):
        sheet.append(row)
    for column, width in zip("ABCDEFGH", (28, 60, 10, 12, 12, 10, 10, 12), strict=True):
        sheet.column_dimensions[column].width = width
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
        yield writer.writerow([getattr(row, column, "") for column in CABLING_COLUMNS])
