"""A drawing-ready outline of a plane: tiers as rows of grouped switches, joined by labelled link
bundles. Small at any size (a row shows at most a few boxes plus "... and N more"), so an SVG
renderer can lay it out without knowing fabric arithmetic."""

from __future__ import annotations

from dataclasses import dataclass

from engine import names
from engine.design import Design, PlaneDesign

MAX_BOXES = 8


@dataclass(frozen=True, kw_only=True)
class Box:
    label: str  # first device name, or a group label like "pod 3 (64 spines)"
    count: int  # switches (or servers) this box stands for


@dataclass(frozen=True, kw_only=True)
class Row:
    tier: str  # servers | leaf | spine | core
    switch: str
    total: int
    boxes: tuple[Box, ...]
    hidden: int  # boxes not drawn


@dataclass(frozen=True, kw_only=True)
class Bundle:
    a: str
    b: str
    links: int
    speed_gbps: int
    label: str  # e.g. "8,192 x 400G AOC 30 m"


@dataclass(frozen=True, kw_only=True)
class Topology:
    plane: str
    style: str
    rows: tuple[Row, ...]  # bottom (servers) to top
    bundles: tuple[Bundle, ...]


def _row(tier: str, switch: str, labels: list[tuple[str, int]], total: int) -> Row:
    shown = tuple(Box(label=label, count=count) for label, count in labels[:MAX_BOXES])
    return Row(
        tier=tier,
        switch=switch,
        total=total,
        boxes=shown,
        hidden=max(0, len(labels) - MAX_BOXES),
    )


def plane_topology(plane: PlaneDesign) -> Topology:
    shape = plane.shape
    per_group = shape.leaves_per_group * shape.fabric_planes
    groups = [
        (f"group {g + 1} ({shape.group_servers} servers)", shape.group_servers)
        for g in range(min(shape.groups, MAX_BOXES + 1))
    ]
    rows = [_row("servers", "", groups, shape.servers)]
    leaf, spine, core = plane.tier("leaf"), plane.tier("spine"), plane.tier("core")
    if leaf is not None:
        labels = [
            (names.leaf(shape, 0, g * shape.leaves_per_group) + f" (+{per_group - 1})", per_group)
            for g in range(min(shape.groups, MAX_BOXES + 1))
        ]
        rows.append(_row("leaf", leaf.switch, labels, leaf.count))
    if spine is not None:
        per_pod = shape.spines_per_pod * shape.fabric_planes
        labels = [
            (
                f"pod {p + 1} ({per_pod} spines)" if shape.tiers == 3 else f"{per_pod} spines",
                per_pod,
            )
            for p in range(min(shape.pods, MAX_BOXES + 1))
        ]
        rows.append(_row("spine", spine.switch, labels, spine.count))
    if core is not None:
        labels = [(f"{core.count} cores", core.count)]
        rows.append(_row("core", core.switch, labels, core.count))
    bundles = tuple(
        Bundle(
            a=group.a,
            b=group.b,
            links=group.links,
            speed_gbps=group.speed_gbps,
            label=(
                f"{group.links:,} x {group.speed_gbps}G {group.media.value.upper()} "
                f"{group.length_m:g} m"
            ),
        )
        for group in plane.links
    )
    return Topology(plane=plane.name, style=plane.style, rows=tuple(rows), bundles=bundles)


def topology(design: Design) -> tuple[Topology, ...]:
    return tuple(plane_topology(plane) for plane in design.planes)
