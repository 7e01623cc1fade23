"""Cable ids: one stable id per physical cable, printed on its labels and carried by every export.

An id is the plane and both ends, each end as rack (its row is in the rack's name), device and
port: `CMP:R01-N1:su01-r1-leaf:swp17=R02-05:srv0017:c1`. Two runs of the same design give the
same ids, and no two cables share one: the upper end's device and port are unique in a design
(every port carries one cable), and the plane prefix keeps the planes apart. A breakout cable
names every device and port of its bundled end joined by `+`, as the cabling schedule does."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engine.cabling import LABEL_PREFIX, CablingRow
from planner.handover.elevations import Elevations, rack_of


@dataclass(frozen=True, kw_only=True)
class Cable:
    id: str
    row: CablingRow
    a_rack: str
    b_rack: str


def plane_code(plane: str) -> str:
    return LABEL_PREFIX.get(plane, plane.upper())


def cable_id(row: CablingRow, a_rack: str, b_rack: str) -> str:
    a = f"{a_rack}:{row.a_device}:{row.a_port}"
    b = f"{b_rack}:{row.b_device}:{row.b_port}"
    return f"{plane_code(row.plane)}:{a}={b}"


def identified(rows: Iterable[CablingRow], elevations: Elevations) -> Iterator[Cable]:
    """The cabling schedule's rows with their ids and the racks of both ends, in its order."""
    for row in rows:
        a_rack = rack_of(elevations, row.a_device)
        b_rack = rack_of(elevations, row.b_device)
        yield Cable(id=cable_id(row, a_rack, b_rack), row=row, a_rack=a_rack, b_rack=b_rack)


def legs(row: CablingRow) -> list[tuple[str, str, str, str]]:
    """The links of one cable as (a device, a port, b device, b port). A breakout cable lists
    its lanes' ports joined by `+`, and its devices once when all lanes share one, else one per
    lane (engine.cabling); `_per_lane` still reads rows that named each device once."""
    a_ports, b_ports = row.a_port.split("+"), row.b_port.split("+")
    a_devices = _per_lane(row.a_device.split("+"), a_ports)
    b_devices = _per_lane(row.b_device.split("+"), b_ports)
    count = max(len(a_ports), len(b_ports))

    def at(values: list[str], index: int) -> str:
        return values[0] if len(values) == 1 else values[index]

    return [
        (at(a_devices, k), at(a_ports, k), at(b_devices, k), at(b_ports, k)) for k in range(count)
    ]


def _port_key(port: str) -> tuple[object, ...]:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", port))


def _per_lane(devices: list[str], ports: list[str]) -> list[str]:
    """Each lane's device. The engine numbers one device's links together and in port order,
    so a device's lanes are consecutive with rising ports: a port that does not rise starts
    the next device. Where that does not find every device (the next device's first port
    happens to be higher), the lanes are shared out in equal blocks."""
    if len(devices) in (1, len(ports)):
        return devices
    starts = [0] + [
        k for k in range(1, len(ports)) if _port_key(ports[k]) <= _port_key(ports[k - 1])
    ]
    if len(starts) == len(devices):
        out: list[str] = []
        for index, first in enumerate(starts):
            last = starts[index + 1] if index + 1 < len(starts) else len(ports)
            out.extend([devices[index]] * (last - first))
        return out
    block = max(1, -(-len(ports) // len(devices)))
    return [devices[min(k // block, len(devices) - 1)] for k in range(len(ports))]


__all__ = ["Cable", "cable_id", "identified", "legs", "plane_code"]
