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


def _interleaved(
    actions: dict[str, Callable[[], object]], rounds: int, batch: int
) -> dict[str, float]:
    """Median seconds per call of each action. Each sample times a batch of calls (one call of
    a tenth of a millisecond is below the clock's noise) and the actions take turns, so a noisy
    neighbour on the VM slows all of them alike and their ratio stays meaningful."""
    samples: dict[str, list[float]] = {label: [] for label in actions}
    for _ in range(rounds):
        for label, action in actions.items():
            start = time.perf_counter()
            for _ in range(batch):
                action()
            samples[label].append((time.perf_counter() - start) / batch)
    return {label: statistics.median(times) for label, times in samples.items()}


def run() -> list[tuple[str, float] | tuple[str, float, str]]:
    catalog = _catalog()
    results: list[tuple[str, float] | tuple[str, float, str]] = []
    sizes = (8, 1024, 8192, 131072)
    requests = {gpus: _request(gpus, catalog) for gpus in sizes}
    for request in requests.values():
        size(request, catalog)  # warm imports and the switch models' port arithmetic
    sized = _interleaved(
        {
            f"size {gpus:,} GPUs": (lambda r=request: size(r, catalog))
            for gpus, request in requests.items()
        },
        rounds=15,
        batch=50,
    )
    results.extend(sized.items())
    results.append(
        (
            "size 131,072 GPUs / size 8 GPUs (target <= 3)",
            sized["size 131,072 GPUs"] / sized["size 8 GPUs"],
            "x",
        )
    )
    # What an API call pays: the request parsed from JSON, then sized.
    parsed = _interleaved(
        {
            f"parse + size {gpus:,} GPUs": (lambda g=gpus: size(_request(g, catalog), catalog))
            for gpus in (8, 131072)
        },
        rounds=15,
        batch=50,
    )
    results.extend(parsed.items())
    for gpus in (8192, 131072):
        design = size(_request(gpus, catalog), catalog)
        results.append((f"validate {gpus:,} GPUs", _median(lambda d=design: validate(d), runs=5)))
    return results


if __name__ == "__main__":
    for label, seconds in run():
        print(f"{label:<24} {seconds * 1000:10.2f} ms")
