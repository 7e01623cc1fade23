"""The installers' "rack and U position" sheet (上机表) as XLSX: one line per item in every
rack, top down, with its power. Text cells are written as text, never formulas."""

from __future__ import annotations

import io
from collections.abc import Mapping

from openpyxl import Workbook
from openpyxl.styles import Font

from planner.exports.files import xlsx_cell
from planner.handover.elevations import Elevations

COLUMNS = ("rack", "u", "units", "device", "model", "role", "power_w", "power_max_w")


def rack_sheet_xlsx(
    elevations: Elevations, *, title: str, headers: Mapping[str, str], sheet_name: str
) -> bytes:
    """`headers` translates each of `COLUMNS`; `sheet_name` is the tab's name."""
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = sheet_name[:31]
    xlsx_cell(sheet, 1, 1, title).font = Font(bold=True, size=13)
    for column, key in enumerate(COLUMNS, start=1):
        xlsx_cell(sheet, 2, column, headers[key]).font = Font(bold=True)
    line = 3
    for rack in elevations.racks:
        for item in sorted(rack.items, key=lambda item: -item.u):
            values: tuple[object, ...] = (
                rack.name, item.u, item.units, item.device, item.model, item.role,
                round(item.power_w), round(item.power_max_w),
            )  # fmt: skip
            for column, value in enumerate(values, start=1):
                xlsx_cell(sheet, line, column, value)
            line += 1
    for letter, width in zip("ABCDEFGH", (10, 6, 6, 24, 40, 14, 10, 12), strict=True):
        sheet.column_dimensions[letter].width = width
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


__all__ = ["COLUMNS", "rack_sheet_xlsx"]
