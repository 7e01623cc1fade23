"""Benchmarks: `make bench` runs every module listed in `bench.__main__.SUITES`.

Each module exposes `run()`, returning (label, median seconds) or (label, value, unit) tuples.
Figures are printed, not asserted: they are tracked across changes, and the issues state the
targets."""

import statistics
import time
from collections.abc import Callable


def median_seconds(fn: Callable[[], object], *, runs: int = 7, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)
