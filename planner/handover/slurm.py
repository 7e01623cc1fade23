"""Slurm `topology.conf` for the tree plugin (`TopologyPlugin=topology/tree`).

Slurm's tree wants each node under one leaf switch and each switch listing its children
(`SwitchName=... Nodes=...` for the bottom tier, `SwitchName=... Switches=...` above). A rail
fabric cables every server to one leaf per rail, so its leaf "switch" for Slurm is the scalable
unit (`su01`, named as the unit's leaves are): servers of one unit are one hop apart on every
rail, which is what the scheduler should pack jobs by. A top-of-rack fabric's leaf is its rack
(`rack001`, a dual-homed pair together). Above, one entry for the spines (per pod on three
tiers) and one for the cores. Node names are the cabling schedule's."""

from __future__ import annotations

import re

from engine.design import Design
from engine.names import server


def hostlist(names: list[str]) -> str:
    """Slurm's compressed host list: srv0001,srv0002,srv0003 -> srv[0001-0003]; pod9,pod10
    -> pod[9-10]. Zero-padded numbers keep their width; unpadded ones may grow."""
    groups: list[tuple[str, int, int, int]] = []  # prefix, width (0: unpadded), first, last
    singles: list[str] = []
    for name in names:
        match = re.fullmatch(r"(.*?)(\d+)", name)
        if match is None:
            singles.append(name)
            continue
        prefix, digits = match.group(1), match.group(2)
        number = int(digits)
        padded = len(digits) > 1 and digits.startswith("0")
        if groups:
            last_prefix, width, first, last = groups[-1]
            fits = len(digits) == width if width else not padded
            if last_prefix == prefix and fits and last + 1 == number:
                groups[-1] = (prefix, width, first, number)
                continue
        groups.append((prefix, len(digits) if padded else 0, number, number))
    parts = []
    for prefix, width, first, last in groups:
        if first == last:
            parts.append(f"{prefix}{first:0{width}d}" if width else f"{prefix}{first}")
        elif width:
            parts.append(f"{prefix}[{first:0{width}d}-{last:0{width}d}]")
        else:
            parts.append(f"{prefix}[{first}-{last}]")
    return ",".join(parts + singles)


def topology_conf(design: Design) -> str:
    compute = design.compute
    shape = compute.shape
    lines = [
        "# Slurm topology.conf (topology/tree) for the compute fabric, from the EZMAX design.",
        f"# {design.gpus_total} GPUs, {design.servers_total} servers, {shape.tiers} tier(s).",
    ]
    groups: list[str] = []
    pods: list[str] = []
    # A pool's units (engine.pools) hang under the same spines (two tiers), or its pods under
    # the same cores (three), named with the pool's prefix.
    for plane in (compute, *(p for p in design.planes if p.shape.spine_plane)):
        pool = plane.name if plane.shape.spine_plane else ""
        servers = plane.shape.servers
        rail = plane.shape.style in ("rail", "rail-plane")
        first = 0
        units: list[str] = []
        for group in plane.shape.leaf_groups:
            for _ in range(group.count):
                index = len(units)
                name = f"su{index + 1:02d}" if rail else f"rack{index + 1:03d}"
                name = f"{pool}-{name}" if pool else name
                nodes = [server(first + k, servers, pool) for k in range(group.servers)]
                lines.append(f"SwitchName={name} Nodes={hostlist(nodes)}")
                units.append(name)
                first += group.servers
        groups += units
        if shape.tiers == 3:
            per_pod = max(plane.shape.groups_per_pod, 1)
            for start in range(0, len(units), per_pod):
                name = f"pod{start // per_pod + 1}"
                name = f"{pool}-{name}" if pool else name
                lines.append(
                    f"SwitchName={name} Switches={hostlist(units[start : start + per_pod])}"
                )
                pods.append(name)
    if shape.tiers == 2:
        lines.append(f"SwitchName=spines Switches={hostlist(groups)}")
    elif shape.tiers == 3:
        lines.append(f"SwitchName=cores Switches={hostlist(pods)}")
    return "\n".join(lines) + "\n"


__all__ = ["hostlist", "topology_conf"]
