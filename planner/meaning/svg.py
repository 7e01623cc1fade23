"""A small chart for the design page and the proposal: communication time per step and cost per
GPU of the design and each alternative, as two bar panels side by side. The step time's bar is
the estimate; a dashed outline beside it reaches the bound (every member sharing the uplinks),
when the bound is longer. Every label is escaped: option names come from catalog data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from html import escape


@dataclass(frozen=True)
class ChartRow:
    label: str
    seconds: float | None  # communication per step; None: no job stated
    cost_per_gpu: Decimal | None
    highlight: bool = False  # the design itself
    bound_seconds: float | None = None  # the bound; None or equal: no outline


ROW_HEIGHT = 28
LABEL_WIDTH = 190
PANEL_WIDTH = 210
GAP = 24
TOP = 34


def _bar(x: float, y: float, width: float, highlight: bool) -> str:
    css = "bar design" if highlight else "bar"
    fill = "#2f6fb2" if highlight else "#9bb7d4"
    return (
        f'<rect class="{css}" x="{x:.1f}" y="{y:.1f}" width="{max(width, 1.0):.1f}" '
        f'height="{ROW_HEIGHT - 10}" fill="{fill}"/>'
    )


def _has_bound(row: ChartRow) -> bool:
    """A bound longer than the estimate by what three figures can show."""
    return (
        row.seconds is not None
        and row.bound_seconds is not None
        and row.bound_seconds > row.seconds * 1.0005
    )


def _seconds(
    row: ChartRow, left: float, y: float, top: float, unit: str, bound_word: str
) -> list[str]:
    """The estimate's bar, the bound's dashed outline when it is longer, and their figures."""
    assert row.seconds is not None
    bar = PANEL_WIDTH * row.seconds / top
    out = [_bar(left, y, bar, row.highlight)]
    said = f"{row.seconds:.3g} {unit}"
    end = bar
    bound = row.bound_seconds
    if bound is not None and _has_bound(row):
        end = PANEL_WIDTH * bound / top
        out.append(
            f'<rect class="bound" x="{left:.1f}" y="{y:.1f}" width="{max(end, 1.0):.1f}" '
            f'height="{ROW_HEIGHT - 10}" fill="none" stroke="#2f6fb2" '
            f'stroke-dasharray="3,2" data-bound-seconds="{bound:.6f}"/>'
        )
        said += f" ({escape(bound_word)} {bound:.3g} {unit})"
    out.append(
        f'<text x="{left + max(end, 1.0) + 4:.1f}" y="{y + 13}" data-seconds="'
        f'{row.seconds:.6f}">{said}</text>'
    )
    return out


def meaning_chart_svg(rows: Sequence[ChartRow], labels: Mapping[str, str]) -> str:
    """`labels`: "seconds" and "cost" (panel titles, in the reader's language), "unit_seconds"
    ("s"), "currency", "none" (shown where a figure is missing) and "bound" ("at most")."""
    # Room for "(at most 0.123 s)" after the longest bar when some bound is drawn.
    extra = 110 if any(_has_bound(row) for row in rows) else 0
    width = LABEL_WIDTH + 2 * PANEL_WIDTH + 2 * GAP + 70 + extra
    height = TOP + ROW_HEIGHT * max(len(rows), 1) + 8
    seconds = [row.seconds for row in rows if row.seconds is not None] + [
        row.bound_seconds for row in rows if row.bound_seconds is not None
    ]
    costs = [float(row.cost_per_gpu) for row in rows if row.cost_per_gpu is not None]
    top_seconds = max(seconds, default=0.0) or 1.0
    top_cost = max(costs, default=0.0) or 1.0
    left = LABEL_WIDTH
    right = LABEL_WIDTH + PANEL_WIDTH + GAP + 35 + extra
    title = escape(f"{labels.get('seconds', '')} / {labels.get('cost', '')}")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="meaning-chart" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12"><title>{title}</title>',
        f'<text x="{left}" y="16" font-weight="bold">{escape(labels.get("seconds", ""))}</text>',
        f'<text x="{right}" y="16" font-weight="bold">{escape(labels.get("cost", ""))}'
        f"{' (' + escape(labels['currency']) + ')' if labels.get('currency') else ''}</text>",
    ]
    none = escape(labels.get("none", "—"))
    unit = escape(labels.get("unit_seconds", "s"))
    for index, row in enumerate(rows):
        y = TOP + index * ROW_HEIGHT
        weight = ' font-weight="bold"' if row.highlight else ""
        out.append(
            f'<text x="{LABEL_WIDTH - 8}" y="{y + 13}" text-anchor="end"{weight}>'
            f"{escape(row.label)}</text>"
        )
        if row.seconds is None:
            out.append(f'<text x="{left}" y="{y + 13}" fill="#666">{none}</text>')
        else:
            out.extend(_seconds(row, left, y, top_seconds, unit, labels.get("bound", "")))
        if row.cost_per_gpu is None:
            out.append(f'<text x="{right}" y="{y + 13}" fill="#666">{none}</text>')
        else:
            bar = PANEL_WIDTH * float(row.cost_per_gpu) / top_cost
            out.append(_bar(right, y, bar, row.highlight))
            out.append(
                f'<text x="{right + max(bar, 1.0) + 4:.1f}" y="{y + 13}">'
                f"{row.cost_per_gpu:,.0f}</text>"
            )
    out.append("</svg>")
    return "".join(out)


__all__ = ["ChartRow", "meaning_chart_svg"]
