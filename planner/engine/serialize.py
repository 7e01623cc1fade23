"""A design as JSON-ready data (the REST API and `size --format json`) and as a text table."""

from __future__ import annotations

from typing import Any

from planner.engine.design import Design, LinkEnd, LinkGroup, PlaneDesign, TierDesign
from planner.engine.request import to_dict


def _role(plane: PlaneDesign, role: str) -> str:
    # The compute plane's roles are the bare names the API promises ({"leaf": 32, ...}).
    return role if plane.name == "compute" else f"{plane.name}_{role}"


def _tier_dict(tier: TierDesign) -> dict[str, Any]:
    return {
        "role": tier.role,
        "switch": tier.switch,
        "sku": tier.sku,
        "description": tier.description,
        "count": tier.count,
        "ports_per_switch": tier.physical_ports,
        "ports_used": tier.ports_used,
        "ports_free": tier.ports_free,
        "downlinks": tier.downlinks,
        "uplinks": tier.uplinks,
        "downlink_speed_gbps": tier.downlink_speed_gbps,
        "uplink_speed_gbps": tier.uplink_speed_gbps,
        "downlink_breakout": tier.downlink_breakout,
        "uplink_breakout": tier.uplink_breakout,
        "oversubscription_target": tier.oversubscription_target,
        "oversubscription": tier.oversubscription,
        "power_w": tier.power_w,
        "rack_units": tier.rack_units,
    }


def _end_dict(end: LinkEnd | None) -> dict[str, Any] | None:
    if end is None:
        return None
    return {
        "role": end.role,
        "form_factor": end.form_factor.value if end.form_factor else None,
        "cages": end.cages,
        "links_per_cage": end.links_per_cage,
    }


def _fibre_lines(group: LinkGroup) -> list[dict[str, Any]]:
    """The passive fibre a link group needs besides its modules: one cord per link, or for
    structured runs a trunk per link, a patch cord at each end and the panels they meet."""
    choice = group.choice
    if choice is None or group.media.value not in ("mmf", "smf"):
        return []
    lines = [
        {
            "kind": choice.cable.kind.value,
            "sku": choice.cable.sku,
            "description": choice.cable.name,
            "quantity": group.cables,
            "length_m": choice.cable.length_m,
        }
    ]
    if choice.cord is not None and group.cords:
        lines.append(
            {
                "kind": "patch_cord",
                "sku": choice.cord.sku,
                "description": choice.cord.name,
                "quantity": group.cords,
                "length_m": choice.cord.length_m,
            }
        )
    if choice.panel is not None and group.panels:
        lines.append(
            {
                "kind": "patch_panel",
                "sku": choice.panel.sku,
                "description": choice.panel.name,
                "quantity": group.panels,
                "ports_used": group.panel_ports,
            }
        )
    return lines


def _link_dict(group: LinkGroup) -> dict[str, Any]:
    return {
        "plane": group.plane,
        "a": group.a,
        "b": group.b,
        "count": group.links,
        "speed_gbps": group.speed_gbps,
        "media": group.media.value,
        "length_m": group.length_m,
        "cable_sku": group.cable_sku,
        "cable_description": group.choice.cable.name if group.choice else group.cable_sku,
        "cables": group.cables,
        "links_per_cable": group.links_per_cable,
        "transceiver_sku_a": group.transceiver_sku_a,
        "transceiver_sku_b": group.transceiver_sku_b,
        "transceivers": group.transceivers,
        "transceivers_a": group.transceivers_a,
        "transceivers_b": group.transceivers_b,
        "end_a": _end_dict(group.end_a),
        "end_b": _end_dict(group.end_b),
        "fibre": _fibre_lines(group),
        "runs_m": list(group.runs_m),
        "run_links": [{"run_m": run, "links": links} for run, links in group.run_links],
        "catalog_gap": group.catalog_gap,
    }


def _plane_dict(plane: PlaneDesign) -> dict[str, Any]:
    shape = plane.shape
    return {
        "name": plane.name,
        "style": plane.style,
        "tiers_count": shape.tiers,
        "fabric_planes": shape.fabric_planes,
        "pods": shape.pods if shape.tiers == 3 else 0,
        "groups": shape.groups,
        "group_servers": shape.group_servers,
        "nic_speed_gbps": shape.nic_speed_gbps,
        "tiers": [_tier_dict(tier) for tier in plane.tiers],
        "bisection_gbps": plane.bisection_gbps,
        "bandwidth_per_server_gbps": plane.bandwidth_per_server_gbps,
        "bandwidth_per_gpu_gbps": plane.bandwidth_per_gpu_gbps,
        "leaf_downlink_gbps": plane.leaf_downlink_gbps,
        "leaf_uplink_gbps": plane.leaf_uplink_gbps,
        "growth": {
            "max_gpus_current_spines": plane.growth.max_gpus_current_spines,
            "max_gpus_same_tiers": plane.growth.max_gpus_same_tiers,
            "free_server_slots": plane.growth.free_server_slots,
        },
        "lengths": [
            {"a": b.a, "b": b.b, "length_m": b.length_m, "links": b.links} for b in plane.lengths
        ],
        # The computed runs before rounding to stock: where the racks stand, link by link.
        "run_distribution": _run_distribution(plane),
    }


def _run_distribution(plane: PlaneDesign) -> list[dict[str, Any]]:
    links: dict[tuple[str, str, float], int] = {}
    for group in plane.links:
        for run, count in group.run_links:
            key = (group.a, group.b, round(run, 1))
            links[key] = links.get(key, 0) + count
    return [
        {"a": a, "b": b, "run_m": run, "links": count}
        for (a, b, run), count in sorted(links.items())
    ]


def design_to_dict(design: Design) -> dict[str, Any]:
    compute = design.compute
    switches: dict[str, int] = {}
    for plane in design.planes:
        for tier in plane.tiers:
            switches[_role(plane, tier.role)] = tier.count
    oversubscription = {
        tier.role: float(tier.oversubscription)
        for tier in compute.tiers
        if tier.oversubscription is not None
    }
    links = [_link_dict(group) for plane in design.planes for group in plane.links]
    return {
        "gpus": design.gpus,
        "gpus_per_server": design.gpus_per_server,
        "servers": design.servers,
        "scalable_units": design.scalable_units,
        "racks": design.racks,
        "fabric": compute.style,
        "tiers": compute.shape.tiers,
        "switches": switches,
        "links": links,
        "links_total": design.links_total,
        "cables_total": design.cables_total,
        "transceivers_total": design.transceivers_total,
        "oversubscription": oversubscription,
        "bisection_gbps": compute.bisection_gbps,
        "bandwidth_per_gpu_gbps": compute.bandwidth_per_gpu_gbps,
        "bandwidth_per_server_gbps": compute.bandwidth_per_server_gbps,
        "growth": _plane_dict(compute)["growth"],
        "power_w": design.power_w,
        "power_max_w": design.power_max_w,
        "power_per_rack_w": design.power_per_rack_w,
        "power_per_row_w": design.power_per_row_w,
        "catalog_gaps": sum(1 for line in design.bom if line.catalog_gap),
        "bom": [
            {
                "sku": line.sku,
                "description": line.description,
                "quantity": line.quantity,
                "power_w": line.power_w,
                "power_max_w": line.power_max_w,
                "rack_units": line.rack_units,
                "plane": line.plane,
                "tier": line.tier,
                "category": line.category,
                "catalog_gap": line.catalog_gap,
                **(
                    {"description_text": line.description_text.as_dict()}
                    if line.description_text is not None
                    else {}
                ),
            }
            for line in design.bom
        ],
        # English text, plus each message's template and values so that pages and documents
        # can show it in the reader's language (planner.i18n).
        "warnings": [
            {
                "code": w.code,
                "message": w.message,
                "action": w.action,
                "text": {"message": w.message_text.as_dict(), "action": w.action_text.as_dict()},
            }
            for w in design.warnings
        ],
        "notes": [str(note) for note in design.notes],
        "notes_text": [note.as_dict() for note in design.notes],
        "cost": design.cost,
        "cost_estimated": design.cost_estimated,
        "unpriced_lines": design.unpriced_lines,
        "label": design.label,
        "planes": [_plane_dict(plane) for plane in design.planes],
        "request": to_dict(design.request),
    }


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
        f"Growth: {compute.growth.max_gpus_current_spines:,} GPUs with these spines, "
        f"{compute.growth.max_gpus_same_tiers:,} GPUs with {shape.tiers} tier(s)",
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
