"""The as-built check proper: the design's ports (`PortBook`), the neighbours read from the
cluster (`planner.asbuilt.reading`) compared with the design's cabling, and the punch list."""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.cabling import CablingRow
from planner.asbuilt.reading import (
    _SEVERITY,
    _SWITCH_PORT,
    MAX_PROBLEMS,
    Endpoint,
    Neighbour,
    Problem,
    Status,
)
from planner.handover.cable_ids import Cable, legs

# --- The design's ports -------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class PortBook:
    """What the design has: every cabled port, and each switch's physical port count (a switch
    port the design leaves free is still a port)."""

    cabled: frozenset[Endpoint]
    devices: frozenset[str]
    switch_ports: Mapping[str, int]

    def knows(self, device: str, port: str) -> bool:
        if (device, port) in self.cabled:
            return True
        match = _SWITCH_PORT.match(port)
        return match is not None and 1 <= int(match.group(1)) <= self.switch_ports.get(device, 0)


def _switch_role(device: str) -> str:
    for role in ("leaf", "spine", "core"):
        if role in device:
            return role
    return ""


def port_book(rows: Iterable[CablingRow], tier_ports: Mapping[tuple[str, str], int]) -> PortBook:
    """`tier_ports`: physical ports of one switch, by (plane, role)."""
    cabled: set[Endpoint] = set()
    switch_ports: dict[str, int] = {}
    for row in rows:
        for a_device, a_port, b_device, b_port in legs(row):
            cabled.add((a_device, a_port))
            cabled.add((b_device, b_port))
            for device in (a_device, b_device):
                role = _switch_role(device)
                if role and device not in switch_ports:
                    switch_ports[device] = tier_ports.get((row.plane, role), 0)
    devices = {device for device, _ in cabled}
    return PortBook(cabled=frozenset(cabled), devices=frozenset(devices), switch_ports=switch_ports)


def check_known(neighbours: list[Neighbour], book: PortBook) -> list[Problem]:
    """Every device and port the upload names, as the design has them: the problems (up to
    MAX_PROBLEMS), each naming its file and line. Needs the design's whole cabling (`port_book`),
    so the worker checks it, before comparing."""
    problems: list[Problem] = []
    for item in neighbours:
        for device, port in (item.local, item.remote):
            if device not in book.devices:
                problems.append(Problem(code="unknown_device", line=item.line, source=item.source,
                                        params={"device": device}))  # fmt: skip
            elif not book.knows(device, port):
                problems.append(Problem(code="unknown_port", line=item.line, source=item.source,
                                        params={"device": device, "port": port}))  # fmt: skip
        if len(problems) >= MAX_PROBLEMS:
            break
    return problems[:MAX_PROBLEMS]


# --- The comparison -----------------------------------------------------------------------------


def _end(endpoint: Endpoint) -> str:
    return f"{endpoint[0]}:{endpoint[1]}"


def compare(
    cables: Iterable[Cable],
    neighbours: list[Neighbour],
    *,
    rack_of: Mapping[str, str],
    progress: Any = None,
) -> dict[str, Any]:
    """The punch list (every cable that is not correct, and every unexpected link), counts per
    status and a summary per rack; JSON-ready. `progress(done)` is called every 1,000 cables."""
    adjacent, link_line = _observed(neighbours)
    cable_list = list(cables)
    partner, cable_legs = _designed(cable_list)

    counts: Counter[str] = Counter()
    racks: dict[str, Counter[str]] = defaultdict(Counter)
    punch: list[dict[str, Any]] = []
    explained: set[frozenset[Endpoint]] = set()
    for index, cable in enumerate(cable_list):
        status, found, swaps, lines = _check_cable(
            cable_legs[index], adjacent, partner, link_line, explained
        )
        counts[status] += 1
        for rack in {cable.a_rack, cable.b_rack}:
            racks[rack][status] += 1
        if status != Status.CORRECT:
            swapped_with = {cable_list[swap].id for swap in swaps}
            punch.append(_cable_punch(cable, status, found, swapped_with, lines))
        if progress is not None and index % 1000 == 999:
            progress(index + 1)

    expected = {frozenset(pair) for pairs in cable_legs for pair in pairs}
    for row in _unexpected_punch(link_line, expected, explained, rack_of=rack_of):
        counts[Status.UNEXPECTED] += 1
        for rack in {row["a_rack"], row["b_rack"]}:
            racks[rack][Status.UNEXPECTED] += 1
        punch.append(row)
    return {
        "cables_total": len(cable_list),
        "links_observed": len(link_line),
        "counts": {str(status): counts.get(status, 0) for status in Status},
        "racks": [
            {"rack": rack, **{str(status): tally.get(status, 0) for status in Status}}
            for rack, tally in sorted(racks.items())
        ],
        "punch": punch,
    }


def _observed(
    neighbours: list[Neighbour],
) -> tuple[dict[Endpoint, set[Endpoint]], dict[frozenset[Endpoint], tuple[str, int]]]:
    """Each port's neighbours as read, and where each link was first reported."""
    adjacent: dict[Endpoint, set[Endpoint]] = defaultdict(set)
    link_line: dict[frozenset[Endpoint], tuple[str, int]] = {}
    for item in neighbours:
        adjacent[item.local].add(item.remote)
        adjacent[item.remote].add(item.local)
        link_line.setdefault(frozenset((item.local, item.remote)), item.where)
    return adjacent, link_line


def _designed(
    cable_list: list[Cable],
) -> tuple[dict[Endpoint, tuple[Endpoint, int]], list[list[tuple[Endpoint, Endpoint]]]]:
    """Each cabled port's far end and cable (by index), and each cable's legs."""
    partner: dict[Endpoint, tuple[Endpoint, int]] = {}
    cable_legs: list[list[tuple[Endpoint, Endpoint]]] = []
    for index, cable in enumerate(cable_list):
        pairs = [((a, ap), (b, bp)) for a, ap, b, bp in legs(cable.row)]
        cable_legs.append(pairs)
        for x, y in pairs:
            partner[x] = (y, index)
            partner[y] = (x, index)
    return partner, cable_legs


def _check_cable(
    pairs: list[tuple[Endpoint, Endpoint]],
    adjacent: Mapping[Endpoint, set[Endpoint]],
    partner: Mapping[Endpoint, tuple[Endpoint, int]],
    link_line: Mapping[frozenset[Endpoint], tuple[str, int]],
    explained: set[frozenset[Endpoint]],
) -> tuple[Status, list[str], list[int], set[tuple[str, int]]]:
    """One cable's worst status over its legs, what was found at its ends instead, the cables
    (by index) it was swapped with, and where those links were reported. Adds the links that
    explain a wrong leg to `explained`, so they are not also reported as unexpected."""
    statuses: list[Status] = []
    found: list[str] = []
    swaps: list[int] = []
    lines: set[tuple[str, int]] = set()
    for x, y in pairs:
        if y in adjacent.get(x, ()):
            statuses.append(Status.CORRECT)
            continue
        seen = sorted(adjacent.get(x, set()) | adjacent.get(y, set()))
        if not seen:
            statuses.append(Status.MISSING)
            continue
        for near in (x, y):
            for other in adjacent.get(near, ()):
                link = frozenset((near, other))
                explained.add(link)
                lines.add(link_line[link])
                found.append(f"{_end(near)} ↔ {_end(other)}")
        swap = _swap(x, y, adjacent, partner)
        if swap is not None:
            statuses.append(Status.SWAPPED)
            swaps.append(swap)
        else:
            statuses.append(Status.WRONG_PORT)
    status = next(s for s in _SEVERITY if s in statuses)
    return status, found, swaps, lines


def _cable_punch(
    cable: Cable,
    status: Status,
    found: list[str],
    swapped_with: set[str],
    lines: set[tuple[str, int]],
) -> dict[str, Any]:
    return {
        "status": str(status),
        "cable_id": cable.id,
        "label": cable.row.label,
        "a_rack": cable.a_rack,
        "a_device": cable.row.a_device,
        "a_port": cable.row.a_port,
        "b_rack": cable.b_rack,
        "b_device": cable.row.b_device,
        "b_port": cable.row.b_port,
        "found": "; ".join(found),
        "swapped_with": " ".join(sorted(swapped_with)),
        "lines": _lines_json(lines),
    }


def _unexpected_punch(
    link_line: Mapping[frozenset[Endpoint], tuple[str, int]],
    expected: set[frozenset[Endpoint]],
    explained: set[frozenset[Endpoint]],
    *,
    rack_of: Mapping[str, str],
) -> list[dict[str, Any]]:
    """A punch-list row for every link read that no cable has and no wrong cable explains, in
    the order they were reported."""
    rows: list[dict[str, Any]] = []
    for link, line in sorted(link_line.items(), key=lambda item: item[1]):
        if link in expected or link in explained:
            continue
        u, v = sorted(link)
        rows.append(
            {
                "status": str(Status.UNEXPECTED),
                "cable_id": "",
                "label": "",
                "a_rack": rack_of.get(u[0], ""),
                "a_device": u[0],
                "a_port": u[1],
                "b_rack": rack_of.get(v[0], ""),
                "b_device": v[0],
                "b_port": v[1],
                "found": f"{_end(u)} ↔ {_end(v)}",
                "swapped_with": "",
                "lines": _lines_json({line}),
            }
        )
    return rows


def _lines_json(places: set[tuple[str, int]]) -> list[int | str]:
    """Where the punch-list row's links were reported: line numbers of a single file, or
    "file:line" when the upload had several files (in file, then line order)."""
    return [f"{source}:{line}" if source else line for source, line in sorted(places)]


def _swap(
    x: Endpoint,
    y: Endpoint,
    adjacent: Mapping[Endpoint, set[Endpoint]],
    partner: Mapping[Endpoint, tuple[Endpoint, int]],
) -> int | None:
    """The cable whose far end this cable's far end was exchanged with: x reaches some n whose
    own partner m is seen at y (x-n and m-y instead of x-y and m-n), either way round."""
    for near, far in ((x, y), (y, x)):
        for other in adjacent.get(near, ()):
            mate = partner.get(other)
            if mate is not None and mate[0] in adjacent.get(far, ()):
                return mate[1]
    return None


PUNCH_COLUMNS = (
    "status", "cable_id", "label", "a_rack", "a_device", "a_port", "b_rack", "b_device",
    "b_port", "found", "swapped_with", "lines",
)  # fmt: skip


def punch_csv(result: Mapping[str, Any], *, status_names: Mapping[str, str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(PUNCH_COLUMNS)
    for row in result.get("punch", ()):
        values = [row.get(column, "") for column in PUNCH_COLUMNS]
        values[0] = status_names.get(row["status"], row["status"])
        values[-1] = " ".join(str(line) for line in row.get("lines", ()))
        writer.writerow(values)
    return "\ufeff" + out.getvalue()
