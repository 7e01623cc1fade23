"""As-built check benchmark (issue 16): 16,384 GPUs, neighbour data generated from the design's
own cabling (every link reported by both ends), two swapped pairs and one missing cable injected;
the request's part (read the upload: format, size, duplicates) and the worker's (check every
device and port, compare and summarise per rack) timed apart, for lldpctl JSON and for CSV.
Engine only, no database: the same functions the service and the job call."""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import Any

from catalog.snapshot import snapshot_from_seed
from engine.cabling import iter_cabling
from engine.request import parse_request
from engine.sizing import size
from planner.asbuilt import checking, reading
from planner.handover.cable_ids import identified, legs
from planner.handover.elevations import design_elevations

SEED = Path(__file__).resolve().parents[1] / "catalog" / "seed" / "catalog.json"
GPUS = 16_384


def _design(gpus: int):  # type: ignore[no-untyped-def]
    catalog = snapshot_from_seed(json.loads(SEED.read_text()))
    request = {"gpus": gpus, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}
    return size(parse_request(request, catalog), catalog)


def _built(links: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
    built = list(links)
    for i, j in ((0, 1), (1000, 1001)):
        (a1, p1, b1, q1), (a2, p2, b2, q2) = built[i], built[j]
        built[i], built[j] = (a1, p1, b2, q2), (a2, p2, b1, q1)
    del built[5000]
    return built


def _lldp(built: list[tuple[str, str, str, str]]) -> bytes:
    per_device: dict[str, list[dict[str, Any]]] = {}
    for a, p, b, q in built:
        for local, port, device, far in ((a, p, b, q), (b, q, a, p)):
            per_device.setdefault(local, []).append({port: {
                "via": "LLDP", "chassis": {device: {"id": {"type": "mac", "value": "0c:42"}}},
                "port": {"id": {"type": "ifname", "value": far}}}})  # fmt: skip
    return json.dumps({d: {"lldp": {"interface": i}} for d, i in per_device.items()}).encode()


def _csv(built: list[tuple[str, str, str, str]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(reading.CSV_HEADER)
    writer.writerows(built)
    return out.getvalue().encode()


def run() -> list[tuple[str, float] | tuple[str, float, str]]:
    design = _design(GPUS)
    elevations = design_elevations(design)
    rows = list(iter_cabling(design))
    links = [leg for row in rows for leg in legs(row)]
    tier_ports = {(p.name, t.role): t.physical_ports for p in design.planes for t in p.tiers}
    label = f"{GPUS:,} GPUs"
    figures: list[tuple[str, float] | tuple[str, float, str]] = [
        (f"{label}: cables", float(len(rows)), "cables"),
        (f"{label}: links", float(len(links)), "links"),
    ]
    built = _built(links)
    for name, data, filename in (
        ("lldpctl JSON", _lldp(built), "cluster.json"),
        ("CSV", _csv(built), "neighbours.csv"),
    ):
        figures.append((f"{label}: {name} upload size (cap 20 MB)", len(data) / 1e6, "MB"))
        # The request reads the upload alone (format, size, nothing listed twice); the worker
        # enumerates the cabling once for the device and port check and the comparison.
        start = time.perf_counter()
        _, neighbours = reading.read_upload(data, filename=filename)
        seconds = time.perf_counter() - start
        figures.append((f"{label}: {name} read + format checked (in the request)", seconds, "s"))
        start = time.perf_counter()
        cables = list(identified(iter_cabling(design), elevations))
        book = checking.port_book((cable.row for cable in cables), tier_ports)
        assert not checking.check_known(neighbours, book)
        result = checking.compare(cables, neighbours, rack_of=elevations.device_rack)
        seconds = time.perf_counter() - start
        figures.append((f"{label}: {name} ports checked + compared (the worker)", seconds, "s"))
        counts = result["counts"]
        assert counts["swapped"] == 4, counts
        assert counts["missing"] == 1, counts
    return figures
