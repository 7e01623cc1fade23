"""Rack elevations drawn as SVG: one column per rack, U1 at the bottom, in hall order (each row
of compute racks with its network racks, then the network row). All text is escaped."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from xml.sax.saxutils import escape, quoteattr

from planner.handover.elevations import Elevations, Rack

U_PX = 9
RACK_W = 150
GAP = 24
HEADER = 34
RACKS_PER_LINE = 12
COLOURS = {
    "server": "#c8e6c9", "leaf": "#bbdefb", "spine": "#e1bee7", "core": "#ffcdd2",
    "patch_panel": "#eeeeee", "cable_manager": "#f5f5f5", "pdu": "#fff9c4",
    # A rack-scale rack's own parts (rack_scale.py): spares paler than the active trays.
    "spare_tray": "#e8f5e9", "nvlink_switch": "#ffe0b2", "power_shelf": "#fff59d",
    "management_switch": "#b2dfdb",
}  # fmt: skip


def _lines(elevations: Elevations) -> list[list[Rack]]:
    by_row: dict[int, list[Rack]] = defaultdict(list)
    network: list[Rack] = []
    for rack in elevations.racks:
        (network if rack.row is None else by_row[rack.row]).append(rack)
    lines: list[list[Rack]] = []
    for _row, racks in sorted(by_row.items()):
        ordered = sorted(racks, key=lambda rack: rack.order)
        lines.extend(
            ordered[i : i + RACKS_PER_LINE] for i in range(0, len(ordered), RACKS_PER_LINE)
        )
    lines.extend(network[i : i + RACKS_PER_LINE] for i in range(0, len(network), RACKS_PER_LINE))
    return lines


def elevations_svg(elevations: Elevations, labels: Mapping[str, str]) -> str:
    """`labels` holds the translated words: `power` (typical), `max`, `over`."""
    lines = _lines(elevations)
    tallest = max((max(rack.height_u, max((i.top_u for i in rack.items), default=0))
                   for rack in elevations.racks), default=42)  # fmt: skip
    line_h = HEADER + tallest * U_PX + GAP
    width = max((len(line) for line in lines), default=1) * (RACK_W + GAP) + GAP
    height = len(lines) * line_h + GAP
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="8" role="img">'
    ]
    for line_index, line in enumerate(lines):
        top = GAP + line_index * line_h
        for column, rack in enumerate(line):
            x = GAP + column * (RACK_W + GAP)
            floor = top + HEADER + tallest * U_PX  # the bottom of U1
            over = rack.over_height
            title = f"{rack.name}"
            power = f"{labels['power']} {rack.power_w:,} W · {labels['max']} {rack.power_max_w:,} W"
            out.append(f'<g class="rack" data-rack={quoteattr(rack.name)}>')
            fill = "#c62828" if over else "#212121"
            note = " " + labels["over"] if over else ""
            out.append(
                f'<text x="{x}" y="{top + 12}" font-size="11" font-weight="bold" '
                f'fill="{fill}">{escape(title + note)}</text>'
            )
            out.append(f'<text x="{x}" y="{top + 25}">{escape(power)}</text>')
            frame_top = floor - rack.height_u * U_PX
            out.append(
                f'<rect x="{x}" y="{frame_top}" width="{RACK_W}" height="{rack.height_u * U_PX}" '
                'fill="#fafafa" stroke="#424242"/>'
            )
            for item in rack.items:
                y = floor - item.top_u * U_PX
                stroke = "#c62828" if item.top_u > rack.height_u else "#757575"
                out.append(
                    f'<rect x="{x + 14}" y="{y}" width="{RACK_W - 16}" '
                    f'height="{item.units * U_PX}" fill="{COLOURS.get(item.role, "#fff")}" '
                    f'stroke="{stroke}" stroke-width="0.6"><title>'
                    f"{escape(f'U{item.u} {item.device} {labels.get(item.role, item.model)}')}"
                    "</title></rect>"
                )
                shown = (
                    labels.get(item.role, item.model)
                    if item.role in ("pdu", "cable_manager")
                    else item.device
                )
                out.append(
                    f'<text x="{x + 1}" y="{y + U_PX - 2}" font-size="6">{item.u}</text>'
                    f'<text x="{x + 17}" y="{y + U_PX - 2}">{escape(shown)}</text>'
                )
            out.append("</g>")
    out.append("</svg>")
    return "".join(out)


__all__ = ["elevations_svg"]
