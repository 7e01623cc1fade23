"""Server-side SVG drawings shared by the design page and the PDF documents (WeasyPrint renders
inline SVG). Pure functions: data and already-translated labels in, SVG text out."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from unicodedata import east_asian_width
from xml.sax.saxutils import escape

from core.vocabulary import fabric_label
from engine.result import DesignResult, LinkResult, PlaneResult
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
    """One bar per phase on a calendar axis with month ticks; milestones as diamonds. The
    ongoing phase (operations) has no end: its bar runs to the chart's edge and ends in an
    arrow, with neither a milestone nor an end date."""
    left, right, top, row_h = 170, 20, 34, 30
    first = plan.phases[0].start
    ends = [p.end for p in plan.phases if p.end is not None]
    last_end = max(ends) if ends else first
    # Room after go-live for the ongoing bar to be seen running on: a sixth of the span.
    last = last_end + timedelta(days=max(14, (last_end - first).days // 6))
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
        # A month too near the right edge for its label is left out (its line with it).
        if month >= first and x(month) + 48 <= width:
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
        colour = PHASE_COLOURS.get(phase.key, "#0b5cad")
        name = escape(labels.get(phase.key, phase.key))
        parts.append(f'<text x="8" y="{y + 19}" fill="#1b2430">{phase.number}. {name}</text>')
        x0 = x(phase.start)
        if phase.end is None:
            x1: float = left + chart_w - 8
            parts.append(
                f'<rect x="{x0:.1f}" y="{y + 6}" width="{max(2.0, x1 - x0):.1f}" height="18" '
                f'fill="{colour}" fill-opacity="0.45" stroke="{colour}" '
                'stroke-dasharray="4 3" data-ongoing="true"/>'
            )
            parts.append(f'<path d="M{x1:.1f},{y + 3} l8,12 l-8,12 z" fill="{colour}"/>')
            continue
        x1 = x(phase.end) + chart_w / span_days
        parts.append(
            f'<rect x="{x0:.1f}" y="{y + 6}" width="{max(2.0, x1 - x0):.1f}" height="18" rx="3" '
            f'fill="{colour}" stroke="{colour}" data-start="{phase.start.isoformat()}" '
            f'data-end="{phase.end.isoformat()}"/>'
        )
        parts.append(
            f'<path d="M{x1:.1f},{y + 8} l6,7 l-6,7 l-6,-7 z" fill="#1b2430">'
            f"<title>{escape(labels.get(phase.deliverable, phase.deliverable))}</title></path>"
        )
        parts.append(
            f'<text x="{min(x1 + 9, width - 70):.1f}" y="{y + 19}" fill="#5b6676" '
            f'font-size="10">{phase.end:%m-%d}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


# --- Topology -----------------------------------------------------------------------------------

ROLE_COLOURS = {
    "core": ("#5b3f8c", "#efe9f8"),
    "spine": ("#0b5cad", "#e4eefa"),
    "leaf": ("#1a7f37", "#e3f4e8"),
    "endpoint": ("#5b6676", "#f1f3f6"),
}
MEDIA_NAMES = {"dac": "DAC", "aec": "AEC", "aoc": "AOC", "mmf": "MMF", "smf": "SMF", "utp": "UTP"}
MAX_BOXES = 12  # per row; beyond this the row shows the first ones, an ellipsis and the last
TITLE_W = 172  # the room for a row's title and subtitle, left of its boxes (x 8 to 180)
TOPOLOGY_DEFAULT_LABELS = {
    "title": "Network topology",
    "server": "Servers",
    "storage": "Storage nodes",
    "leaf": "Leaf",
    "spine": "Spine",
    "core": "Core",
    "compute": "Compute plane",
    "storage_plane": "Storage plane",
    "frontend": "Frontend plane",
    "oob": "Out-of-band plane",
    "pool2": "Compute fabric, second pool",
    "shared": "shared with the compute fabric",
    "pool3": "Compute fabric, third pool",
    "pool4": "Compute fabric, fourth pool",
    "links": "links",
    "switches": "switches",
    "servers": "servers",
    "one_server": "server",
    "endpoint": "Endpoints",
    "group": "SU",
    "pod": "pod",
    "more": "more",
    "planes": "identical planes",
    "per_server": "GPUs each",
    "ports_used": "ports used",
}


def _n(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,g}"


class _Box:
    __slots__ = ("ellipsis", "first", "last", "short_subtitle", "short_title", "subtitle", "title")

    def __init__(
        self,
        first: int,
        last: int,
        title: str,
        subtitle: str = "",
        ellipsis: bool = False,
        *,
        short_title: str = "",
        short_subtitle: str = "",
    ) -> None:
        self.first, self.last = first, last  # item range (switch or group index) it stands for
        self.title, self.subtitle, self.ellipsis = title, subtitle, ellipsis
        # What a narrow box (many boxes, the PDF's width) shows when the full text won't fit.
        self.short_title, self.short_subtitle = short_title, short_subtitle


def _boxes(items: int, make: Callable[[int], _Box]) -> list[_Box]:
    """One box per item, or the first ones, an ellipsis and the last when there are many."""
    if items <= MAX_BOXES:
        return [make(i) for i in range(items)]
    head = [make(i) for i in range(MAX_BOXES - 2)]
    hidden = items - (MAX_BOXES - 1)
    gap = _Box(MAX_BOXES - 2, items - 2, "…", f"+{hidden:,}", ellipsis=True)
    return [*head, gap, make(items - 1)]


def _tier_boxes(
    role: str, count: int, groups: int, labels: Mapping[str, str], prefix: str
) -> tuple[list[_Box], int]:
    """Boxes for a switch tier and the number of groups they stand for (0 = single switches)."""
    if count <= MAX_BOXES or groups <= 1:
        return _boxes(count, lambda i: _Box(i, i, f"{prefix}{i + 1}")), 0
    per = max(1, count // groups)
    name = labels["group"] if role == "leaf" else labels["pod"]
    boxes = _boxes(
        groups,
        lambda i: _Box(
            i,
            i,
            f"{name} {i + 1}",
            f"{per:,} × {labels[role]}",
            short_title=str(i + 1),
            short_subtitle=f"{per:,}×{prefix}",
        ),
    )
    return boxes, groups


def _bundle_lines(links: Sequence[LinkResult], labels: Mapping[str, str]) -> list[str]:
    lines = []
    for link in links[:3]:
        media = MEDIA_NAMES.get(link.media, link.media.upper())
        lines.append(
            f"{_n(link.count)} {labels['links']} · {link.speed_gbps}G · {media} "
            f"{_n(link.length_m)} m"
        )
    if len(links) > 3:
        rest = sum(link.count for link in links[3:])
        lines.append(f"+{_n(rest)} {labels['links']} …")
    return lines


@dataclass
class _Row:
    """One tier (or the endpoints) as drawn: a title, a subtitle and its boxes."""

    role: str
    colour: str
    title: str
    subtitle: str
    boxes: list[_Box]
    grouped: int  # groups the boxes stand for (0: single switches)
    count: int


def _pooled(result: DesignResult, name: str) -> bool:
    return any(pool.name == name for pool in result.pools or ())


def _plane_rows(plane: PlaneResult, result: DesignResult, labels: Mapping[str, str]) -> list[_Row]:
    """Rows from the top tier down to the endpoints, each with its boxes."""
    name = plane.name
    groups = plane.groups
    pods = plane.pods
    rows: list[_Row] = []
    tiers = plane.tiers
    compute = result.compute
    shared = compute.tiers[-1] if compute and name != "compute" and _pooled(result, name) else None
    if shared is not None:  # a pool uplinks to the compute fabric's spines (its cores on 3 tiers)
        tiers = (*tiers, shared)
    for tier in reversed(tiers):
        role = tier.role
        count = tier.count
        group_count = groups if role == "leaf" else pods if role == "spine" else 0
        prefix = {"leaf": "L", "spine": "S", "core": "C"}.get(role, "")
        boxes, grouped = _tier_boxes(role, count, group_count, labels, prefix)
        over = tier.oversubscription
        note = f" · {labels.get('shared', 'shared')}" if tier is shared else ""
        rows.append(
            _Row(
                role=role,
                colour=role,
                title=f"{labels.get(role, role)} · {count:,} × {tier.switch}",
                subtitle=(
                    f"{tier.ports_used}/{tier.ports_per_switch} {labels['ports_used']}"
                    + (f" · {over:g}:1" if over else "")
                    + note
                ),
                boxes=boxes,
                grouped=grouped,
                count=count,
            )
        )
    pool = next((p for p in result.pools or () if p.name == name), None)  # engine.pools
    servers = pool.servers if pool else result.servers
    group_servers = plane.group_servers or servers
    endpoints = labels["server"]
    if (name == "compute" or pool) and servers:
        per_server = pool.gpus_per_server if pool else result.gpus_per_server
        if groups > 1 and group_servers:
            boxes = _boxes(
                groups,
                lambda i: _Box(
                    i,
                    i,
                    f"{labels['group']} {i + 1}",
                    f"{group_servers:,} {labels['servers']}",
                    short_title=str(i + 1),
                    short_subtitle=f"{group_servers:,}",
                ),
            )
        else:
            noun = labels["one_server"] if servers == 1 else labels["servers"]
            boxes = [_Box(0, 0, f"{servers:,} {noun}", f"× {per_server} GPU")]
        subtitle = f"{servers:,} × {per_server} {labels['per_server']}"
    else:
        links = result.plane_links(name)
        kinds = sorted({link.a for link in links if link.b == "leaf"})
        endpoints = " + ".join(labels.get(kind, kind) for kind in kinds) or endpoints
        total = sum(link.count for link in links if link.b == "leaf")
        boxes = [_Box(0, 0, f"{total:,} {labels['links']}", endpoints)]
        subtitle = ""
    rows.append(
        _Row(
            role="endpoint",
            colour="endpoint",
            title=endpoints,
            subtitle=subtitle,
            boxes=boxes,
            grouped=groups if len(boxes) > 1 else 0,
            count=servers,
        )
    )
    return rows


# Topology layout: the row titles' column on the left, the boxes to the right of it.
_LEFT, _RIGHT = 190, 16
_BOX_H, _ROW_GAP_MIN, _LINE_H = 40, 34, 14


def topology_svg(
    result: DesignResult, labels: Mapping[str, str] | None = None, *, width: int = 980
) -> str:
    """The fabric as tiers in rows (core on top, servers at the bottom), one section per plane.

    `result` is the stored result, so a saved design is drawn without sizing it again. Many
    switches are drawn as groups (scalable units, pods) and long rows as the first ones, an
    ellipsis and the last, so the drawing stays readable from 8 to 100,000+ GPUs. Link
    bundles between two tiers are labelled with their count, speed, media and length."""
    labels = {**TOPOLOGY_DEFAULT_LABELS, **(labels or {})}
    area = width - _LEFT - _RIGHT
    parts: list[str] = []
    y = 8.0
    for plane in result.planes:
        y = _plane_svg(parts, plane, result, labels, area, y)
    height = int(y)
    title = escape(labels["title"])
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="11" role="img" '
        f'aria-label="{title}"><title>{title}</title>'
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>'
        + "".join(parts)
        + "</svg>"
    )


def _plane_svg(
    parts: list[str],
    plane: PlaneResult,
    result: DesignResult,
    labels: Mapping[str, str],
    area: float,
    y: float,
) -> float:
    """Appends one plane's section (heading, rows, bundles) at `y`; returns the y after it."""
    name = plane.name
    rows = _plane_rows(plane, result, labels)
    plane_key = "storage_plane" if name == "storage" else name
    heading = f"{labels.get(plane_key, name)} · {fabric_label(plane.style)}"
    if plane.fabric_planes > 1:
        heading += f" · {plane.fabric_planes} × {labels['planes']}"
    parts.append(
        f'<text x="8" y="{y + 16}" font-size="14" font-weight="700" fill="#1b2430">'
        f"{escape(heading)}</text>"
    )
    y += 28
    links = result.plane_links(name)
    previous: tuple[_Row, float, list[float]] | None = None
    for row in rows:
        slot = area / max(1, len(row.boxes))
        centres = [_LEFT + slot * (i + 0.5) for i in range(len(row.boxes))]
        if previous is not None:
            y = _bundle_svg(parts, previous, row, centres, links, labels, area)
        parts.extend(_row_svg(row, centres, slot, y, labels))
        previous = (row, y, centres)
    return y + _BOX_H + 26


def _bundle_svg(
    parts: list[str],
    previous: tuple[_Row, float, list[float]],
    row: _Row,
    centres: list[float],
    links: Sequence[LinkResult],
    labels: Mapping[str, str],
    area: float,
) -> float:
    """Appends the lines from `row` up to the row above and their label; returns the y of
    `row`, which sits below the label's room."""
    upper, upper_y, upper_centres = previous
    lower_role = "server" if row.role == "endpoint" else row.role
    bundle = [
        link
        for link in links
        if link.b == upper.role and (link.a == lower_role or row.role == "endpoint")
    ]
    text = _bundle_lines(bundle, labels)
    gap = max(_ROW_GAP_MIN, 22 + _LINE_H * len(text))
    top_y = upper_y + _BOX_H
    y = top_y + gap
    parts.append('<g stroke="#9aa6b5" stroke-width="1" stroke-opacity="0.55">')
    for i, j in _connections(upper, row, len(upper_centres), len(centres)):
        parts.append(
            f'<line x1="{centres[j]:.1f}" y1="{y:.1f}" '
            f'x2="{upper_centres[i]:.1f}" y2="{top_y:.1f}"/>'
        )
    parts.append("</g>")
    if text:
        parts.extend(_bundle_label_svg(text, area, top_y, gap))
    return y


def _bundle_label_svg(text: list[str], area: float, top_y: float, gap: float) -> list[str]:
    """The bundle's lines in a white box centred in the gap between two rows."""
    text = [_fit(line, area - 16, 11) for line in text]
    label_w = max(_text_width(line, 11) for line in text) + 16
    lx = _LEFT + area / 2 - label_w / 2
    ly = top_y + gap / 2 - (_LINE_H * len(text)) / 2 - 4
    parts = [
        f'<rect x="{lx:.1f}" y="{ly:.1f}" width="{label_w:.1f}" '
        f'height="{_LINE_H * len(text) + 8}" rx="4" fill="#ffffff" '
        'stroke="#c4ccd6"/>'
    ]
    for k, line in enumerate(text):
        parts.append(
            f'<text x="{_LEFT + area / 2:.1f}" y="{ly + 15 + k * _LINE_H:.1f}" '
            f'text-anchor="middle" font-size="11" fill="#1b2430">'
            f"{escape(line)}</text>"
        )
    return parts


def _row_svg(
    row: _Row, centres: list[float], slot: float, y: float, labels: Mapping[str, str]
) -> list[str]:
    """A row's title and subtitle on the left and its boxes across the rest, at `y`."""
    stroke, fill = ROLE_COLOURS[row.colour]
    box_w = min(150.0, slot - 8)
    parts = [
        f'<text x="8" y="{y + 16}" font-size="12" font-weight="600" fill="{stroke}">'
        f"{escape(_fit(row.title, TITLE_W, 12))}<title>{escape(row.title)}</title></text>"
    ]
    if row.subtitle:
        parts.append(
            f'<text x="8" y="{y + 31}" font-size="10.5" fill="#5b6676">'
            f"{escape(_fit(row.subtitle, TITLE_W, 10.5))}</text>"
        )
    for box, cx in zip(row.boxes, centres, strict=True):
        if box.ellipsis:
            parts.extend(_ellipsis_svg(box, cx, slot, y, stroke, labels))
        else:
            parts.extend(_box_svg(box, cx, box_w, y, stroke, fill))
    return parts


def _ellipsis_svg(
    box: _Box, cx: float, slot: float, y: float, stroke: str, labels: Mapping[str, str]
) -> list[str]:
    # "+N" over "more", each on its own line within the slot: on one line, in Chinese and at
    # the PDF's width, it ran over the boxes beside it.
    parts = [
        f'<text x="{cx:.1f}" y="{y + 17}" text-anchor="middle" font-size="11" '
        f'font-weight="600" fill="{stroke}">'
        f"{escape(_fit(box.subtitle, slot - 4, 11))}</text>"
    ]
    if _text_width(labels["more"], 9.5) <= slot - 4:  # else "+N" says it alone
        parts.append(
            f'<text x="{cx:.1f}" y="{y + 31}" text-anchor="middle" '
            f'font-size="9.5" fill="#5b6676">{escape(labels["more"])}</text>'
        )
    return parts


def _box_svg(box: _Box, cx: float, box_w: float, y: float, stroke: str, fill: str) -> list[str]:
    x0 = cx - box_w / 2
    size = 11 if box_w >= 60 else 9
    title_y = y + (16 if box.subtitle else 24)
    parts = [
        f'<rect x="{x0:.1f}" y="{y}" width="{box_w:.1f}" height="{_BOX_H}" rx="4" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="1.2"/>',
        f'<text x="{cx:.1f}" y="{title_y}" text-anchor="middle" font-size="{size}" '
        f'font-weight="600" fill="#1b2430">'
        f"{escape(_fit_either(box.title, box.short_title, box_w - 6, size))}"
        "</text>",
    ]
    if box.subtitle:
        parts.append(
            f'<text x="{cx:.1f}" y="{y + 31}" text-anchor="middle" font-size="9.5" '
            f'fill="#5b6676">'
            f"{escape(_fit_either(box.subtitle, box.short_subtitle, box_w - 6, 9.5))}"
            "</text>"
        )
    return parts


# Advance widths in em of Noto Sans (the drawings' font for Latin text), rounded up; any other
# character counts as the widest capital, 0.9 em, a CJK or full-width one as one em.
_EM = {
    **dict.fromkeys(" ", 0.26),
    **dict.fromkeys("ijlI.,:;'|!·", 0.29),
    **dict.fromkeys("frt()-/", 0.4),
    **dict.fromkeys("0123456789×+#$?acegknoqsuvxyzbdhpL", 0.58),
    **dict.fromkeys("ABCDEFGHJKNOPQRSTUVXYZw", 0.72),
}


def _text_width(text: str, size: float) -> float:
    """The width a label takes at `size` px, from above (Chromium's own measure of every label
    is in tests/planner/test_topology_labels.py). Counting characters instead let a Chinese
    label run twice its room."""
    em = 0.0
    for char in text:
        em += 1.0 if east_asian_width(char) in "WF" else _EM.get(char, 0.9)
    return em * size


def _fit_either(text: str, short: str, width: float, size: float) -> str:
    """The text if it fits, else its short form (if any) fitted."""
    if not short or _text_width(text, size) <= width:
        return _fit(text, width, size)
    return _fit(short, width, size)


def _fit(text: str, width: float, size: float) -> str:
    """The text, or as much of it as fits `width` at `size` followed by an ellipsis."""
    if _text_width(text, size) <= width:
        return text
    while text and _text_width(text + "…", size) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _connections(upper: _Row, lower: _Row, n_upper: int, n_lower: int) -> list[tuple[int, int]]:
    """Which boxes to join. Groups of leaves join the pod they belong to; otherwise every lower
    box reaches every upper box (every leaf reaches every spine of its pod)."""
    upper_boxes = upper.boxes
    lower_boxes = lower.boxes
    if upper.role == "spine" and upper.grouped and lower.grouped:
        per_pod = max(1, lower.grouped // max(1, upper.grouped))
        pairs = []
        for j, low in enumerate(lower_boxes):
            if low.ellipsis:
                continue
            for i, up in enumerate(upper_boxes):
                if not up.ellipsis and low.first // per_pod == up.first:
                    pairs.append((i, j))
        return pairs
    if upper.role == "leaf" and lower.role == "endpoint" and len(lower_boxes) > 1:
        # Scalable unit k of servers hangs off the leaves of scalable unit k.
        if upper.grouped:
            return [
                (i, j)
                for j, low in enumerate(lower_boxes)
                for i, up in enumerate(upper_boxes)
                if not low.ellipsis and not up.ellipsis and up.first == low.first
            ]
        per_group = max(1, len(upper_boxes) // len(lower_boxes)) if upper_boxes else 1
        return [
            (i, j)
            for j, low in enumerate(lower_boxes)
            for i, up in enumerate(upper_boxes)
            if not low.ellipsis and not up.ellipsis and up.first // per_group == low.first
        ] or [(i, j) for i in range(n_upper) for j in range(n_lower)]
    return [
        (i, j)
        for i, up in enumerate(upper_boxes)
        for j, low in enumerate(lower_boxes)
        if not up.ellipsis and not low.ellipsis
    ]


# --- Cable length histogram ---------------------------------------------------------------------

PAIR_COLOURS = ("#1a7f37", "#0b5cad", "#5b3f8c", "#d79b00", "#b85450", "#5b6676")


def lengths_svg(
    result: DesignResult, labels: Mapping[str, str] | None = None, *, width: int = 640
) -> str:
    """Links per stock cable length, stacked by tier pair (server-leaf, leaf-spine, ...). Tier
    and plane names come from `labels` as `role_<tier>` and `plane_<plane>` when given."""
    labels = {"title": "Cable lengths", "links": "links", **(labels or {})}
    bins: dict[float, dict[str, int]] = {}
    pairs: list[str] = []
    for plane in result.planes:
        for entry in plane.lengths:
            a, b = (labels.get(f"role_{end}", end) for end in (entry.a, entry.b))
            pair = f"{a}–{b}"
            if plane.name != "compute":
                pair = f"{labels.get('plane_' + plane.name, plane.name)}: {pair}"
            if pair not in pairs:
                pairs.append(pair)
            by_pair = bins.setdefault(float(entry.length_m), {})
            by_pair[pair] = by_pair.get(pair, 0) + entry.links
    lengths = sorted(bins)
    left, top, bottom, legend_h = 56, 16, 34, 18 * ((len(pairs) + 2) // 3)
    chart_h = 150
    height = top + chart_h + bottom + legend_h + 6
    title = escape(labels["title"])
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="11" role="img" '
        f'aria-label="{title}"><title>{title}</title>'
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>'
    ]
    peak = max((sum(v.values()) for v in bins.values()), default=1)
    base = top + chart_h
    parts.append(
        f'<line x1="{left}" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#5b6676"/>'
        f'<text x="{left - 6}" y="{top + 8}" text-anchor="end" fill="#5b6676">{peak:,}</text>'
        f'<text x="{left - 6}" y="{base}" text-anchor="end" fill="#5b6676">0</text>'
    )
    slot = (width - left - 20) / max(1, len(lengths))
    bar_w = min(48.0, slot * 0.7)
    for index, length in enumerate(lengths):
        cx = left + slot * (index + 0.5)
        y = float(base)
        for pair, links in bins[length].items():
            h = chart_h * links / peak
            y -= h
            colour = PAIR_COLOURS[pairs.index(pair) % len(PAIR_COLOURS)]
            parts.append(
                f'<rect x="{cx - bar_w / 2:.1f}" y="{y:.1f}" width="{bar_w:.1f}" '
                f'height="{max(h, 0.5):.1f}" fill="{colour}"><title>{escape(pair)}: '
                f"{links:,} {escape(labels['links'])}, {_n(length)} m</title></rect>"
            )
        total = sum(bins[length].values())
        parts.append(
            f'<text x="{cx:.1f}" y="{y - 4:.1f}" text-anchor="middle" fill="#1b2430">'
            f"{total:,}</text>"
            f'<text x="{cx:.1f}" y="{base + 15}" text-anchor="middle" fill="#5b6676">'
            f"{_n(length)} m</text>"
        )
    for index, pair in enumerate(pairs):
        lx = left + (index % 3) * 190
        ly = base + bottom + 18 * (index // 3)
        colour = PAIR_COLOURS[index % len(PAIR_COLOURS)]
        parts.append(
            f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{lx + 14}" y="{ly}" fill="#1b2430">{escape(pair)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
