"""What a design means for training (issue 17): the communication estimate must add under 5 ms
to a design of 131,072 GPUs; the failure report and the growth steps are timed beside it."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from bench.engine import _catalog, _request
from engine.comms import estimate
from engine.failures import failure_report
from engine.growth_steps import growth_steps
from engine.job import parse_job
from engine.sizing import size

GPUS = 131072
# A DeepSeek-V3-shaped mixture of experts over every GPU: every collective the estimate knows
# (dense and expert gradients, pipeline hops, expert AllToAll) is computed.
JOB = {
    "parameters": "671B", "expert_parameters": "650B", "gpus": GPUS, "pipeline_parallel": 16,
    "expert_parallel": 64, "sharding": "optimizer", "hidden_size": 7168, "layers": 64,
    "tokens_per_step": 60_000_000, "top_k": 8, "compute_seconds_per_step": 30,
}  # fmt: skip


def _per_call(action: Callable[[], object], rounds: int = 15, batch: int = 20) -> float:
    """Median seconds per call over batches (one call is below the clock's noise)."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(batch):
            action()
        samples.append((time.perf_counter() - start) / batch)
    return statistics.median(samples)


def run() -> list[tuple[str, float] | tuple[str, float, str]]:
    catalog = _catalog()
    prices = {sku: p.price for sku, p in catalog.by_sku().items() if p.price is not None}
    design = size(_request(GPUS, catalog), catalog, prices)
    # 131,072 GPUs fill these tiers, leaving no step to time; 98,304 leave pods to add.
    grown = size(_request(98304, catalog), catalog, prices)
    job = parse_job(JOB)
    return [
        ("comms estimate, 131,072 GPUs (target < 5 ms)", _per_call(lambda: estimate(job, design))),
        ("parse job + comms estimate, 131,072 GPUs",
         _per_call(lambda: estimate(parse_job(JOB), design))),
        ("failure report with spares, 131,072 GPUs",
         _per_call(lambda: failure_report(design, prices))),
        ("growth steps, 98,304 GPUs (re-sized per step)",
         _per_call(lambda: growth_steps(grown, catalog, prices), rounds=5, batch=1)),
    ]  # fmt: skip


if __name__ == "__main__":
    for label, seconds, *_ in run():
        print(f"{label:<48} {seconds * 1000:10.3f} ms")
