"""A containerlab topology for a lab of one scalable unit of the design's compute plane.

The lab keeps the design's roles, device names and port names: the first unit's servers, the
leaves they are cabled to, the spines those leaves reach and, on three tiers, the cores those
spines reach, with every link between them (containerlab topology file: `name`, `topology`
with `nodes` and `links` of two `endpoints` "node:interface"). Switches and servers
run as Linux containers by default, the one kind every containerlab host has; pass another
kind and image (e.g. `cvx` for Cumulus VX) to run a network OS."""

from __future__ import annotations

import json
from collections.abc import Iterable

from engine.cabling import CablingRow
from engine.design import Design
from engine.names import server
from planner.handover.cable_ids import legs

SWITCH_KIND = "linux"
SWITCH_IMAGE = "frrouting/frr:latest"
SERVER_KIND = "linux"
SERVER_IMAGE = "alpine:latest"


def _role(name: str, servers: set[str]) -> str:
    if name in servers:
        return "server"
    for role in ("leaf", "spine", "core"):
        if role in name:
            return role
    return "switch"


def lab_links(design: Design, rows: Iterable[CablingRow]) -> list[tuple[str, str, str, str]]:
    """(a device, a port, b device, b port) of every link of the first unit's lab."""
    compute = design.compute
    unit = compute.shape.leaf_groups[0].servers if compute.shape.style != "packed" else 0
    unit_servers = {server(index, design.servers) for index in range(unit)}
    members = set(unit_servers)
    links: list[tuple[str, str, str, str]] = []
    # The schedule lists server links, then leaf-spine, then spine-core: each tier's members
    # are known before the next tier's links come by.
    for row in rows:
        if row.plane != "compute":
            continue
        for a_device, a_port, b_device, b_port in legs(row):
            if b_device in members:
                members.add(a_device)
                links.append((a_device, a_port, b_device, b_port))
    return links


def containerlab_yaml(
    design: Design,
    rows: Iterable[CablingRow],
    *,
    name: str = "ezmax-lab",
    switch_kind: str = SWITCH_KIND,
    switch_image: str = SWITCH_IMAGE,
) -> str:
    """The topology file as YAML text (JSON-compatible flow style, which YAML reads as is, so
    no YAML writer is needed at run time)."""
    links = lab_links(design, rows)
    servers = {server(index, design.servers) for index in range(design.servers)}
    nodes: dict[str, dict[str, object]] = {}
    for a_device, _a_port, b_device, _b_port in links:
        for device in (a_device, b_device):
            if device not in nodes:
                role = _role(device, servers)
                kind = SERVER_KIND if role == "server" else switch_kind
                image = SERVER_IMAGE if role == "server" else switch_image
                nodes[device] = {"kind": kind, "image": image, "labels": {"role": role}}
    topology = {
        "name": name,
        "topology": {
            "nodes": nodes,
            "links": [
                {"endpoints": [f"{a}:{a_port}", f"{b}:{b_port}"]} for a, a_port, b, b_port in links
            ],
        },
    }
    lines = [
        "# containerlab topology: one scalable unit of the design, names as in the cabling "
        "schedule",
        f"name: {json.dumps(name)}",
        "topology:",
        "  nodes:",
    ]
    for node, spec in topology["topology"]["nodes"].items():  # type: ignore[index]
        lines.append(f"    {json.dumps(node)}: {json.dumps(spec)}")
    lines.append("  links:")
    for link in topology["topology"]["links"]:  # type: ignore[index]
        lines.append(f"    - {json.dumps(link)}")
    return "\n".join(lines) + "\n"


__all__ = ["containerlab_yaml", "lab_links"]
