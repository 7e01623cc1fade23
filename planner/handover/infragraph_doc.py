"""The design's compute fabric as an InfraGraph document, the vendor-neutral infrastructure
graph Keysight's InfraGraph defines for simulators such as ASTRA-sim (the package's keywords:
astrasim, chakra). How a simulator loads it is the simulator's side: this module writes the
document and the tests check it with the package itself.

Source: github.com/Keysight/infragraph (PyPI `infragraph`, `infragraph/docs/openapi.yaml`:
the `Infrastructure` schema; `infragraph/infragraph_service.py`: how `set_graph` expands it;
`blueprints/devices/generic/`: the server and switch devices it ships). A document is
`devices` (each a set of `components` of a kind: xpu, nic, switch, port, cpu, with `links`
and `edges` inside it), `links` (a link kind with its physical bandwidth), `instances` (a device
and how many of it) and `edges` between instance components. An endpoint names an instance and
a component with Python slices (`server[0:32]`, `port[5]`); a `one2one` edge pairs the two
endpoints' expansions in order, so a run of links whose indices step evenly on both sides is
one edge: a leaf's 32 server links are one edge, not 32, and 131,072 GPUs stay megabytes.

Devices and instances, one of each per role: `server` (its GPUs on one NVLink switch, one NIC
per compute port, NIC k beside GPU k mod GPUs), `leaf`, `spine`, `core` (an ASIC and its
ports). Instances are numbered in the names' natural order (`instance_names` gives them), ports
of a role by their names' natural order, a server's NIC by its port number (`c3` is nic[2]).
Links are one per speed (`eth-400g`). Only the compute plane: storage, front-end and
out-of-band planes carry no collective traffic to simulate."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engine.cabling import CablingRow
from engine.design import Design
from planner.handover.cable_ids import legs

ROLES = ("server", "leaf", "spine", "core")
_PORT_NUMBER = re.compile(r"(\d+)$")


def natural_key(name: str) -> tuple[object, ...]:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


_POOL_SERVER = re.compile(r"^(pool\d+)-srv\d+$")


def role_of(device: str) -> str:
    """The instance a device belongs to: a pool's servers (engine.pools) are their own kind of
    server, `pool2_server`; every pool's leaves are the fabric's one leaf model."""
    pool = _POOL_SERVER.match(device)
    if pool is not None:
        return f"{pool.group(1)}_server"
    for role in ("leaf", "spine", "core"):
        if role in device:
            return role
    return "server"


@dataclass
class _Leg:
    """One link as instance and component indices."""

    a_role: str
    a_index: int
    a_port: int
    b_role: str
    b_index: int
    b_port: int
    link: str


@dataclass
class _Run:
    """Links whose indices step evenly: each side varies its instance or its component."""

    first: _Leg
    count: int = 1
    steps: tuple[int, int, int, int] = (0, 0, 0, 0)

    def extends(self, leg: _Leg) -> bool:
        first = self.first
        same = (first.a_role, first.b_role, first.link) == (leg.a_role, leg.b_role, leg.link)
        if not same:
            return False
        deltas = (
            leg.a_index - first.a_index,
            leg.a_port - first.a_port,
            leg.b_index - first.b_index,
            leg.b_port - first.b_port,
        )
        if self.count == 1:
            # Each side must step in exactly one of instance and component, forwards.
            a_ok = sorted(deltas[:2])[0] == 0 and max(deltas[:2]) > 0
            b_ok = sorted(deltas[2:])[0] == 0 and max(deltas[2:]) > 0
            if not (a_ok and b_ok):
                return False
            self.steps = deltas
            return True
        return deltas == tuple(step * self.count for step in self.steps)

    def edge(self) -> dict[str, object]:
        first, n = self.first, self.count
        da_i, da_p, db_i, db_p = self.steps

        def span(start: int, step: int) -> str:
            if n == 1 or step == 0:
                return f"[{start}]"
            stop = start + step * (n - 1) + 1
            return f"[{start}:{stop}]" if step == 1 else f"[{start}:{stop}:{step}]"

        a_component = "nic" if _server(first.a_role) else "port"
        b_component = "nic" if _server(first.b_role) else "port"
        return {
            "ep1": {
                "instance": first.a_role + span(first.a_index, da_i),
                "component": a_component + span(first.a_port, da_p),
            },
            "ep2": {
                "instance": first.b_role + span(first.b_index, db_i),
                "component": b_component + span(first.b_port, db_p),
            },
            "scheme": "one2one",
            "link": first.link,
        }


@dataclass
class _Names:
    """Instance and port indices, in natural order, per role."""

    devices: dict[str, dict[str, int]]
    ports: dict[str, dict[str, int]]


def _compute_legs(rows: Iterable[CablingRow]) -> Iterator[tuple[str, str, str, str, int]]:
    for row in rows:
        if row.plane == "compute" or row.plane.startswith("pool"):  # the pools' planes too
            for a_device, a_port, b_device, b_port in legs(row):
                yield a_device, a_port, b_device, b_port, row.speed_gbps


def _names(links: list[tuple[str, str, str, str, int]]) -> _Names:
    devices: dict[str, set[str]] = {role: set() for role in ROLES}
    ports: dict[str, set[str]] = {role: set() for role in ROLES}
    for a_device, a_port, b_device, b_port, _speed in links:
        for device, port in ((a_device, a_port), (b_device, b_port)):
            role = role_of(device)
            devices.setdefault(role, set()).add(device)
            ports.setdefault(role, set()).add(port)

    def numbered(names: set[str]) -> dict[str, int]:
        return {name: k for k, name in enumerate(sorted(names, key=natural_key))}

    return _Names(
        devices={role: numbered(names) for role, names in devices.items()},
        ports={role: numbered(names) for role, names in ports.items()},
    )


def _nic(port: str, names: _Names, role: str = "server") -> int:
    match = _PORT_NUMBER.search(port)
    return int(match.group(1)) - 1 if match else names.ports[role][port]


def _server(role: str) -> bool:
    return role == "server" or role.endswith("_server")


def _edges(links: list[tuple[str, str, str, str, int]], names: _Names) -> list[dict[str, object]]:
    edges: list[dict[str, object]] = []
    run: _Run | None = None
    for a_device, a_port, b_device, b_port, speed in links:
        a_role, b_role = role_of(a_device), role_of(b_device)
        leg = _Leg(
            a_role=a_role,
            a_index=names.devices[a_role][a_device],
            a_port=_nic(a_port, names, a_role) if _server(a_role) else names.ports[a_role][a_port],
            b_role=b_role,
            b_index=names.devices[b_role][b_device],
            b_port=_nic(b_port, names, b_role) if _server(b_role) else names.ports[b_role][b_port],
            link=f"eth-{speed}g",
        )
        if run is not None and run.extends(leg):
            run.count += 1
            continue
        if run is not None:
            edges.append(run.edge())
        run = _Run(first=leg)
    if run is not None:
        edges.append(run.edge())
    return edges


def _server_device(gpus: int, nics: int, name: str = "server") -> dict[str, object]:
    edges: list[dict[str, object]] = [
        {
            "ep1": {"component": "xpu"},
            "ep2": {"component": "nvlsw"},
            "scheme": "many2many",
            "link": "nvlink",
        },
    ]
    for first in range(0, nics, gpus):
        last = min(first + gpus, nics)
        edges.append(
            {
                "ep1": {"component": f"nic[{first}:{last}]"},
                "ep2": {"component": f"xpu[0:{last - first}]"},
                "scheme": "one2one",
                "link": "pcie",
            }
        )
    return {
        "name": name,
        "description": "GPU server: GPUs on one NVLink switch, one NIC per compute port",
        "components": [
            {"name": "xpu", "description": "GPU", "count": gpus, "choice": "xpu"},
            {"name": "nvlsw", "description": "NVLink switch", "count": 1, "choice": "switch"},
            {"name": "nic", "description": "Compute NIC port", "count": nics, "choice": "nic"},
        ],
        "links": [{"name": "nvlink"}, {"name": "pcie"}],
        "edges": edges,
    }


def _switch_device(role: str, model: str, ports: int) -> dict[str, object]:
    return {
        "name": role,
        "description": f"{role.capitalize()} switch {model}",
        "components": [
            {"name": "asic", "description": "Switch ASIC", "count": 1, "choice": "switch"},
            {"name": "port", "description": "Cabled port", "count": ports, "choice": "port"},
        ],
        "links": [{"name": "ic", "description": "ASIC to port"}],
        "edges": [
            {
                "ep1": {"component": "asic"},
                "ep2": {"component": "port"},
                "scheme": "many2many",
                "link": "ic",
            }
        ],
    }


def _link(speed: int) -> dict[str, object]:
    bandwidth = {"choice": "gigabits_per_second", "gigabits_per_second": speed}
    return {
        "name": f"eth-{speed}g",
        "description": f"{speed}G Ethernet",
        "physical": {"bandwidth": bandwidth},
    }


def infragraph_document(design: Design, rows: Iterable[CablingRow]) -> dict[str, object]:
    links = list(_compute_legs(rows))
    names = _names(links)
    models = {tier.role: tier.switch for tier in design.compute.tiers}
    per_server = {"server": design.gpus_per_server} | {
        f"{pool.name}_server": pool.gpus_per_server for pool in design.request.pools
    }

    def nics(role: str) -> int:
        return max(
            (_nic(port, names, role) + 1 for port in names.ports[role]),
            default=design.compute.shape.ports_per_server,
        )

    roles = [role for role in names.devices if names.devices[role]]
    devices = [
        _server_device(per_server.get(role, design.gpus_per_server), nics(role), role)
        if _server(role)
        else _switch_device(role, models.get(role, ""), len(names.ports[role]))
        for role in roles
    ]
    speeds = sorted({speed for *_ends, speed in links})
    return {
        "name": f"ezmax-design-{design.gpus_total}-gpus",
        "description": f"EZMAX design: {design.gpus_total} GPUs, {design.servers_total} servers, "
        f"{design.compute.shape.tiers}-tier {design.compute.style} compute fabric",
        "devices": devices,
        "links": [_link(speed) for speed in speeds],
        "instances": [
            {
                "name": role,
                "description": f"{len(names.devices[role])} {role}(s)",
                "device": role,
                "count": len(names.devices[role]),
            }
            for role in roles
        ],
        "edges": _edges(links, names),
    }


def instance_names(rows: Iterable[CablingRow]) -> dict[str, list[str]]:
    """Each instance's device names by index (`server[3]` is the fourth name of `server`)."""
    names = _names(list(_compute_legs(rows)))
    return {role: list(numbered) for role, numbered in names.devices.items() if numbered}


def infragraph_json(design: Design, rows: Iterable[CablingRow]) -> str:
    return json.dumps(infragraph_document(design, rows), indent=1) + "\n"


__all__ = ["infragraph_document", "infragraph_json", "instance_names", "natural_key", "role_of"]
