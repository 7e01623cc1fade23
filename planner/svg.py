"""Server-side SVG drawings shared by the design page and the PDF documents (WeasyPrint renders
inline SVG). Pure functions: data and already-translated labels in, SVG text out."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from xml.sax.saxutils import escape

from planner.plan import ImplementationPlan

FONT = "Noto Sans CJK SC, Noto Sans SC, sans-serif"
PHASE_COLOURS = {
    "requirements": "#6c8ebf",
    "design": "#3d7cc9",
    "poc": "#d79b00",
    "pilot": "#b85450",
    "full": "#0b5cad",
    "operations": "#82b366",
}


def gantt_svg(plan: ImplementationPlan, labels: Mapping[str, str], *, width: int = 760) -> str:
    """One bar per phase on a calendar axis with month ticks; milestones as diamonds."""
    left, right, top, row_h = 170, 20, 34, 30
    first, last = plan.phases[0].start, plan.phases[-1].end
    span_days = max(1, (last - first).days + 1)
    chart_w = width - left - right
    height = top + row_h * len(plan.phases) + 24

    def x(day: date) -> float:
        return left + chart_w * (day - first).days / span_days

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="11" role="img" '
        f'aria-label="{escape(labels.get("title", "Gantt"))}">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    # Month ticks along the top.
    month = date(first.year, first.month, 1)
    while month <= last:
        if month >= first:
            mx = x(month)
            parts.append(
                f'<line x1="{mx:.1f}" y1="{top - 6}" x2="{mx:.1f}" y2="{height - 20}" '
                'stroke="#d9dee5" stroke-width="1"/>'
            )
            parts.append(
                f'<text x="{mx + 3:.1f}" y="{top - 10}" fill="#5b6676">{month:%Y-%m}</text>'
            )
        month = date(month.year + (month.month == 12), month.month % 12 + 1, 1)
    for row, phase in enumerate(plan.phases):
        y = top + row * row_h
        x0, x1 = x(phase.start), x(phase.end) + chart_w / span_days
        colour = PHASE_COLOURS.get(phase.key, "#0b5cad")
        name = escape(labels.get(phase.key, phase.key))
        parts.append(f'<text x="8" y="{y + 19}" fill="#1b2430">{phase.number}. {name}</text>')
        dash = ' stroke-dasharray="4 3" fill-opacity="0.45"' if phase.ongoing else ""
        parts.append(
            f'<rect x="{x0:.1f}" y="{y + 6}" width="{max(2.0, x1 - x0):.1f}" height="18" rx="3" '
            f'fill="{colour}" stroke="{colour}"{dash}/>'
        )
        mx = x1
        parts.append(
            f'<path d="M{mx:.1f},{y + 8} l6,7 l-6,7 l-6,-7 z" fill="#1b2430">'
            f"<title>{escape(labels.get(phase.deliverable, phase.deliverable))}</title></path>"
        )
        parts.append(
            f'<text x="{min(mx + 9, width - 70):.1f}" y="{y + 19}" fill="#5b6676" '
            f'font-size="10">{phase.end:%m-%d}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
