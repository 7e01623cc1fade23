"""Handover benchmark (issue 16): the A4 cable-label sheet for 1,024 GPUs (under 30 s required,
15 s aimed at), with its storage and out-of-band planes, and the cheaper handover files beside
it. Engine and PDF drawing in this process, no database: the sheet with two labels a cable is
drawn by the export job's own code (`planner.exports.jobs.labels_sheet_pdf`, progress after
every 20 pages), which is what the worker runs; tests/planner/test_labels_job.py times it in a
real worker end to end."""

from __future__ import annotations

import json
import time
from pathlib import Path

from catalog.snapshot import snapshot_from_seed
from engine.cabling import iter_cabling
from engine.request import parse_request
from engine.sizing import size
from planner.handover.cable_ids import identified
from planner.handover.elevations import design_elevations
from planner.handover.labels import labels_pdf
from planner.handover.netbox import netbox_zip

SEED = Path(__file__).resolve().parents[1] / "catalog" / "seed" / "catalog.json"
CAPTIONS = {"this_end": "This end", "far_end": "Far end", "length": "Length"}


def _design(gpus: int):  # type: ignore[no-untyped-def]
    catalog = snapshot_from_seed(json.loads(SEED.read_text()))
    request = {"gpus": gpus, "nic_speed": 400, "fabric": "rail", "leaf": "64x400",
               "storage": {"nic_speed": 200, "storage_nodes": 16}, "oob": {}}  # fmt: skip
    return size(parse_request(request, catalog), catalog)


def run() -> list[tuple[str, float] | tuple[str, float, str]]:
    design = _design(1024)
    start = time.perf_counter()
    elevations = design_elevations(design)
    cables = list(identified(iter_cabling(design), elevations))
    ids_s = time.perf_counter() - start
    figures: list[tuple[str, float] | tuple[str, float, str]] = [
        ("1,024 GPUs: elevations + cable ids", ids_s),
        ("1,024 GPUs: cables", float(len(cables)), "cables"),
    ]
    start = time.perf_counter()
    netbox_zip(design, elevations, cables)
    figures.append(("1,024 GPUs: NetBox zip", time.perf_counter() - start))
    # One run each: the sheet takes seconds. CPU time beside wall time, because on a shared
    # machine the wall time says more about the neighbours than about the render.
    import django

    django.setup()  # planner.exports.jobs reads the models' module (no query is made)
    from planner.exports.jobs import labels_sheet_pdf

    reports: list[int] = []
    start, cpu = time.perf_counter(), time.process_time()
    pdf = labels_sheet_pdf(cables, captions=CAPTIONS, progress=reports.append)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    label = "worker's render, 2 labels a cable, target < 15 s"
    figures.append((f"1,024 GPUs: label sheet PDF ({label})", wall, "s"))
    figures.append((f"1,024 GPUs: label sheet PDF ({label}), CPU", cpu, "s"))
    figures.append(("1,024 GPUs: label sheet progress reports", float(len(reports)), "reports"))
    figures.append(("1,024 GPUs: label sheet size (2 a cable)", len(pdf) / 1e6, "MB"))
    figures += _million()
    for copies, label in ((1, "1 label a cable, in one render"),):
        start, cpu = time.perf_counter(), time.process_time()
        pdf = labels_pdf(cables, captions=CAPTIONS, copies=copies)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        figures.append((f"1,024 GPUs: label sheet PDF ({label})", wall, "s"))
        figures.append((f"1,024 GPUs: label sheet PDF ({label}), CPU", cpu, "s"))
        figures.append((f"1,024 GPUs: label sheet size ({copies} a cable)", len(pdf) / 1e6, "MB"))
    return figures


def _million() -> list[tuple[str, float] | tuple[str, float, str]]:
    """What the handover page of 1,000,000 GPUs computes on every view (issue 27, item 3): the
    elevations of its 36,288 racks, then the drawing of one page of them. Median of three."""
    from dataclasses import replace

    from planner.handover.rack_svg import elevations_svg
    from planner.handover.services import HANDOVER_RACKS_PER_PAGE, pack_racks, unpack_racks

    catalog = snapshot_from_seed(json.loads(SEED.read_text()))
    request = {"gpus": 1_000_000, "nic_speed": 400, "fabric": "rail", "leaf": "64x800",
               "planes": 8}  # fmt: skip
    design = size(parse_request(request, catalog), catalog)
    runs, pages, packs, kept = [], [], [], []
    words = {"power": "", "max": "", "over": "", "cable_manager": ""}
    per_page = HANDOVER_RACKS_PER_PAGE
    for _ in range(3):
        start = time.perf_counter()
        elevations = design_elevations(design)
        runs.append(time.perf_counter() - start)
        start = time.perf_counter()
        page = replace(elevations, racks=elevations.racks[:per_page])
        elevations_svg(page, words)
        pages.append(time.perf_counter() - start)
        # What the first view keeps (every page's racks, planner.handover.services), and what
        # a later page then costs: unpacking its racks and drawing them.
        start = time.perf_counter()
        packed = [pack_racks(elevations.racks[i : i + per_page])
                  for i in range(0, len(elevations.racks), per_page)]  # fmt: skip
        packs.append(time.perf_counter() - start)
        start = time.perf_counter()
        racks = unpack_racks(packed[len(packed) // 2])
        elevations_svg(replace(elevations, racks=racks or ()), words)
        kept.append(time.perf_counter() - start)
    # The cabling schedule as the export job writes it (planner.exports.jobs: these chunks, one
    # a row), once: about a minute. tests/test_limits.py runs the job itself in a real worker at
    # 16,384 GPUs; this is its figure at the largest request the API takes.
    from planner.exports.files import cabling_csv_chunks

    start, size_bytes, rows = time.perf_counter(), 0, -1  # the first chunk is the header
    for chunk in cabling_csv_chunks(iter_cabling(design)):
        size_bytes += len(chunk.encode())
        rows += 1
    csv_s = time.perf_counter() - start
    return [
        ("1,000,000 GPUs: rack elevations (36,288 racks)", sorted(runs)[1], "s"),
        ("1,000,000 GPUs: one handover page's drawing", sorted(pages)[1]),
        ("1,000,000 GPUs: keeping every page's racks (first view)", sorted(packs)[1], "s"),
        ("1,000,000 GPUs: kept racks, all pages", sum(map(len, packed)) / 1e6, "MB"),
        ("1,000,000 GPUs: a later handover page from kept racks", sorted(kept)[1], "s"),
        ("1,000,000 GPUs: cabling CSV export, rows", float(rows), "rows"),
        ("1,000,000 GPUs: cabling CSV export, written in", csv_s, "s"),
        ("1,000,000 GPUs: cabling CSV export, size", size_bytes / 1e6, "MB"),
    ]
