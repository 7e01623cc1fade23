"""Waiting on real processes (workers, gunicorn, Redis): one way to poll, for every test."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def wait_until(predicate: Callable[[], object], timeout_s: float, *, every: float = 0.1) -> bool:
    """Whether `predicate` came true within `timeout_s` (asked once more at the deadline), for
    tests that assert with their own message."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every)
    return bool(predicate())


def wait_for(
    predicate: Callable[[], T],
    timeout_s: float,
    what: str = "",
    *,
    every: float = 0.1,
    log: Path | None = None,
) -> T:
    """`predicate`'s first true value within `timeout_s`; else the test fails, naming `what`,
    with the tail of `log` (a worker's or server's log) to show why."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    tail = f"\n{log.read_text()[-3000:]}" if log is not None and log.exists() else ""
    raise AssertionError(
        f"timed out after {timeout_s:g} s waiting for {what or 'a condition'}{tail}"
    )
