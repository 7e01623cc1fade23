"""Deterministic device names shared by the cabling plan, the graph and the topology drawing."""

from __future__ import annotations

from engine.design import PlaneShape


def _prefix(shape: PlaneShape, fabric_plane: int) -> str:
    plane = "" if shape.plane == "compute" else f"{shape.plane}-"
    if shape.fabric_planes > 1:
        plane += f"p{fabric_plane + 1}-"
    return plane


def server(index: int, servers: int, pool: str = "") -> str:
    """A server's name; a pool's servers (issue 28) carry the pool's name in front."""
    width = max(4, len(str(servers)))
    return f"{pool}-srv{index + 1:0{width}d}" if pool else f"srv{index + 1:0{width}d}"


def group_of_leaf(shape: PlaneShape, leaf: int) -> tuple[int, int]:
    """(group index, leaf index inside the group) of leaf `leaf` of one fabric plane."""
    return divmod(leaf, shape.leaves_per_group)


def leaf(shape: PlaneShape, fabric_plane: int, index: int) -> str:
    prefix = _prefix(shape, fabric_plane)
    group, within = group_of_leaf(shape, index)
    if shape.tiers == 1:
        return f"{prefix}leaf{index + 1:02d}"
    if shape.style in ("rail", "rail-plane"):
        rail = fabric_plane * shape.ports_per_server + within + 1
        return f"{prefix}su{group + 1:02d}-r{rail}-leaf"
    if shape.style == "tor":
        pair = "ab"[within] if shape.leaves_per_group == 2 else ""
        return f"{prefix}rack{group + 1:03d}-leaf{pair}"
    return f"{prefix}leaf{index + 1:03d}"


def spine(shape: PlaneShape, fabric_plane: int, pod: int, index: int) -> str:
    # A pool's leaves uplink to the compute plane's spines: their names, not the pool's.
    prefix = "" if shape.shares_spines else _prefix(shape, fabric_plane)
    if shape.tiers == 3:
        return f"{prefix}pod{pod + 1}-spine{index + 1:02d}"
    return f"{prefix}spine{index + 1:02d}"


def core(shape: PlaneShape, fabric_plane: int, index: int) -> str:
    # A pool's pods uplink to the compute plane's cores: their names, not the pool's.
    return f"{'' if shape.shares_cores else _prefix(shape, fabric_plane)}core{index + 1:02d}"


def port(logical: int, ways: int, first_physical: int = 0) -> str:
    """Switch port name of logical port `logical` (0-based) when each physical port carries
    `ways` logical ports: swp3 for native ports, swp3s2 for the second lane of a breakout."""
    physical, lane = divmod(logical, ways)
    number = first_physical + physical + 1
    return f"swp{number}s{lane + 1}" if ways > 1 else f"swp{number}"
