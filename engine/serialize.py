"""A design as JSON-ready data (the REST API and `size --format json`) and as a text table."""

from __future__ import annotations

from typing import Any

from engine.design import Design, LinkEnd, LinkGroup
from engine.result import design_result, result_to_json


def design_to_dict(design: Design) -> dict[str, Any]:
    """The design as the API, the CLI and storage write it: through the one codec."""
    return result_to_json(design_result(design))


def _cages(end: LinkEnd | None) -> str:
    """ "4 x QSFP28 4x25G" style: cages, form factor, and the breakout when there is one."""
    if end is None:
        return "-"
    form = end.form_factor.value if end.form_factor else "NIC"
    ways = f" {end.links_per_cage}-way" if end.links_per_cage > 1 else ""
    return f"{end.cages:,} x {form}{ways}"


def _part(group: LinkGroup) -> str:
    if group.cable_sku:
        return group.cable_sku
    name = group.choice.cable.name if group.choice else ""
    return f"(to be priced) {name}"


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows, strict=False)]
    right = [all(_numeric(r[i]) for r in rows) and bool(rows) for i in range(len(headers))]

    def fmt(cells: list[str]) -> str:
        parts = [
            str(c).rjust(w) if r else str(c).ljust(w)
            for c, w, r in zip(cells, widths, right, strict=True)
        ]
        return "  ".join(parts).rstrip()

    return [fmt(headers), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)]


def _numeric(text: str) -> bool:
    return text.replace(",", "").replace(".", "").replace(":1", "").isdigit()


def _grows_on(tiers: int) -> str:
    """What the first growth figure keeps (found: "with these spines" on one-tier designs, which
    have none; the pages name it by tier count, planner.presenters.growth_rows)."""
    if tiers <= 1:
        return "on the switches' free ports"
    return "with these spines" if tiers == 2 else "with these cores"


def _scale_up_lines(design: Design) -> list[str]:
    """A rack-scale design's racks in two lines; none for a design of servers (whose text
    stays as it was)."""
    up = design.scale_up
    if up is None:
        return []
    return [
        f"Rack-scale: {up.system or 'custom'} x {up.racks:,} racks, {up.active_trays_per_rack} of "
        f"{up.trays_per_rack} trays active ({up.spare_trays:,} spare), NVLink domain "
        f"{up.domain_gpus} GPUs, {up.nvlink_switch_trays:,} NVLink switch trays, "
        f"{up.power_shelves:,} power shelves, {up.management_switches:,} management switches",
        f"Rack power: {up.rack_power_w:,} W of {up.rack_power_limit_w:,} W ({up.cooling} "
        f"cooling); {up.scale_out_nics:,} scale-out NICs at {up.nic_speed_gbps}G",
    ]


def format_text(design: Design) -> str:
    compute = design.compute
    shape = compute.shape
    lines = [
        f"{design.gpus:,} GPUs, {design.servers:,} servers x {design.gpus_per_server} GPUs, "
        f"{compute.style} fabric, {shape.tiers} tier(s)"
        + (f", {design.scalable_units} SUs" if design.scalable_units else "")
        + f", {design.racks:,} compute racks",
        f"Bandwidth: {compute.bandwidth_per_gpu_gbps:g} Gbps per GPU, "
        f"{compute.bandwidth_per_server_gbps:,} Gbps per server; bisection "
        f"{compute.bisection_gbps:,} Gbps",
        f"Growth: {compute.growth.max_gpus_current_spines:,} GPUs {_grows_on(shape.tiers)}, "
        f"{compute.growth.max_gpus_same_tiers:,} GPUs with {shape.tiers} tier(s)",
        *_scale_up_lines(design),
        "",
    ]
    rows = []
    for plane in design.planes:
        for tier in plane.tiers:
            over = f"{tier.oversubscription:g}:1" if tier.oversubscription is not None else "-"
            rows.append(
                [plane.name, tier.role, tier.switch, f"{tier.count:,}", str(tier.downlinks),
                 str(tier.uplinks), str(tier.ports_free), tier.downlink_breakout or "-", over]
            )  # fmt: skip
    lines += _table(
        ["plane", "tier", "switch", "count", "down", "up", "free", "breakout", "oversub"], rows
    )
    lines.append("")
    rows = [
        [g.plane, f"{g.a}-{g.b}", f"{g.speed_gbps}G", _cages(g.end_a), _cages(g.end_b),
         g.media.value, f"{g.length_m:g} m", f"{g.links:,}", f"{g.cables:,}",
         f"{g.transceivers:,}", _part(g)]
        for p in design.planes
        for g in p.links
    ]  # fmt: skip
    lines += _table(
        ["plane", "link", "speed", "cages a", "cages b", "media", "length", "links", "cables",
         "optics", "cable"],
        rows,
    )  # fmt: skip
    lines.append(
        f"Totals: {design.links_total:,} links, {design.cables_total:,} cables, "
        f"{design.transceivers_total:,} transceivers"
    )
    lines.append("")
    rows = [
        [
            line.sku or "(to be priced)",
            line.description,
            f"{line.quantity:,}",
            f"{line.power_w:,}",
            line.plane,
        ]
        for line in design.bom
    ]
    lines += _table(["sku", "description", "qty", "power W", "plane"], rows)
    lines.append(
        f"Network power {design.power_w:,} W typical, {design.power_max_w:,} W maximum (switches "
        f"without optics, plus the optics and active cables); {design.power_per_rack_w:,} W per "
        f"compute rack, {design.power_per_row_w:,} W per row"
    )
    if design.warnings:
        lines.append("")
        lines.append("Warnings:")
        lines += [f"  [{w.code}] {w.message} {w.action}" for w in design.warnings]
    if design.notes:
        lines.append("")
        lines += [f"  * {note}" for note in design.notes]
    return "\n".join(lines) + "\n"
