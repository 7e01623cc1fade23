"""Sizing-engine benchmark: median seconds per case (issue 3's performance targets).

Sizing must stay under 20 ms up to 131,072 GPUs and within 3x of the 8-GPU time; graph
validation under 1 s at 8,192 GPUs and under 5 s at 131,072 GPUs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from planner.engine.catalog import (
    CableSpec,
    CatalogSnapshot,
    FormFactor,
    Lifecycle,
    MediaKind,
    MediaRule,
)
from planner.engine.graph import validate
from planner.engine.request import DesignRequest, parse_request
from planner.engine.sizing import size

RUNS = 7


def _catalog() -> CatalogSnapshot:
    """Enough media for every link of the benchmark designs: 400G DAC, 800G splitter DAC, AOC."""
    cables = []
    for speed, ways, lengths, media in (
        (400, 1, (1.0, 2.0, 3.0), MediaKind.DAC),
        (800, 2, (1.0, 2.0, 3.0), MediaKind.DAC),
        (400, 1, (3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0), MediaKind.AOC),
    ):
        for length in lengths:
            cables.append(
                CableSpec(
                    sku=f"BENCH-{media.value}-{speed}-{ways}-{length:g}",
                    name="bench cable",
                    vendor="bench",
                    lifecycle=Lifecycle.AVAILABLE,
                    media=media,
                    end_a=FormFactor.OSFP,
                    end_b=FormFactor.OSFP,
                    speed_gbps=speed,
                    length_m=length,
                    breakout_ways=ways,
                )
            )
    rules = (
        MediaRule(speed_gbps=400, media=MediaKind.DAC, max_reach_m=3.0),
        MediaRule(speed_gbps=400, media=MediaKind.AOC, max_reach_m=30.0),
    )
    return CatalogSnapshot(cables=tuple(cables), media_rules=rules, version="bench")


def _request(gpus: int, catalog: CatalogSnapshot) -> DesignRequest:
    leaf = "64x800" if gpus > 8192 else "64x400"
    return parse_request(
        {"gpus": gpus, "nic_speed": 400, "leaf": leaf, "fabric": "rail", "oversubscription": 1},
        catalog,
    )


def _median(action: Callable[[], object], runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run() -> list[tuple[str, float]]:
    catalog = _catalog()
    results: list[tuple[str, float]] = []
    for gpus in (8, 1024, 8192, 131072):
        request = _request(gpus, catalog)
        size(request, catalog)  # warm caches and imports
        results.append(
            (f"size {gpus:,} GPUs", _median(lambda r=request: size(r, catalog), runs=21))
        )
    for gpus in (8192, 131072):
        design = size(_request(gpus, catalog), catalog)
        results.append((f"validate {gpus:,} GPUs", _median(lambda d=design: validate(d), runs=5)))
    return results


if __name__ == "__main__":
    for label, seconds in run():
        print(f"{label:<24} {seconds * 1000:10.2f} ms")
