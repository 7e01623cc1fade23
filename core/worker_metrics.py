"""Celery worker figures for Prometheus: tasks run, by task name, outcome and worker kind, and how
long they ran. Off unless WORKER_METRICS_PORT is set (docker-compose and the workers'
Deployments set it; `make run` and the tests' workers do not).

Counted where the task runs: Celery sends task_prerun and task_postrun in the process that runs
the task, with the outcome as its state (SUCCESS, FAILURE, RETRY, ...), so one pair of receivers
sees every outcome. Under the prefork pool that is a pool process, forked from the worker's main
process, which alone serves HTTP: the figures go through prometheus_client's multiprocess mode
(each process writes its own file in PROMETHEUS_MULTIPROC_DIR, a scrape sums the folder), the
way gunicorn's processes report /metrics. A pool process recycled by --max-memory-per-child
leaves its file behind, so the sums never go down while the worker lives.

Not counted: a task whose pool process is killed under it (the hard time limit, the kernel's
OOM killer) sends no task_postrun. The job table's figures (/metrics, `ezmax_jobs`) show those
jobs, failed or taken over by the sweep.

The endpoint answers the same readers as /metrics (core.metrics.reader_allowed): the
METRICS_TOKEN bearer, or an address in METRICS_ALLOWED_NETWORKS. It sits behind no proxy, so
the address is the connection's.

Module-level imports stay free of Django models: config.celery imports this module before
Django is set up."""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from wsgiref.types import StartResponse, WSGIEnvironment

from celery.signals import task_postrun, task_prerun, worker_ready
from django.conf import settings
from prometheus_client import CollectorRegistry, Counter, Histogram, make_wsgi_app
from prometheus_client.multiprocess import MultiProcessCollector

logger = logging.getLogger(__name__)

# Celery's states in the words of the other figures; a state not listed is reported lowercased.
OUTCOMES = {"SUCCESS": "succeeded", "FAILURE": "failed", "RETRY": "retried"}
# From the dispatchers' milliseconds to the hard time limit (JOB_TIME_LIMIT_SECONDS, 360 s) a
# render or an export may reach; a run past 360 s was killed and is not observed.
BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 240, 360, float("inf"))

# Not registered in the default registry: the web processes import this module too (through
# config.celery) and must not report empty worker figures. `_registry` serves them.
TASKS = Counter(
    "ezmax_celery_tasks",
    "Celery tasks run, by task name, outcome and worker kind (the node name before '@').",
    ["task", "outcome", "worker"],
    registry=None,
)
RUN_SECONDS = Histogram(
    "ezmax_celery_task_run_seconds",
    "Run time of Celery tasks, by task name and worker kind.",
    ["task", "worker"],
    buckets=BUCKETS,
    registry=None,
)

# task_id -> perf_counter at task_prerun, in the process that runs the task.
_started: dict[str, float] = {}
_PID_FILE = re.compile(r"_(\d+)\.db$")


def worker_kind(hostname: str | None) -> str:
    """`documents@pod-7f9c` -> `documents`: the manifests and docker-compose name each worker by
    its kind of queue, so the figures of every pod of a kind add up under one label."""
    if not hostname:
        return "unknown"
    return hostname.split("@", 1)[0]


def _labels(task: Any) -> tuple[str, str]:
    name = str(getattr(task, "name", None) or "unknown")
    request = getattr(task, "request", None)
    return name, worker_kind(getattr(request, "hostname", None))


def task_started(*, task_id: str, **_: Any) -> None:
    _started[task_id] = time.perf_counter()


def task_finished(*, task_id: str, task: Any, state: str | None = None, **_: Any) -> None:
    name, kind = _labels(task)
    outcome = OUTCOMES.get(str(state), str(state).lower())
    TASKS.labels(task=name, outcome=outcome, worker=kind).inc()
    started = _started.pop(task_id, None)
    if started is not None:
        RUN_SECONDS.labels(task=name, worker=kind).observe(time.perf_counter() - started)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def forget_dead_processes(folder: Path) -> int:
    """Delete the figure files of processes that no longer run: a restarted container keeps its
    /tmp, and a pool process of the new run may get the pid of one of the old run, whose sums it
    would continue. Files of live processes (another worker sharing the folder) stay."""
    removed = 0
    for path in folder.glob("*.db"):
        match = _PID_FILE.search(path.name)
        if match and not _alive(int(match[1])):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _registry() -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=True)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(TASKS)
        registry.register(RUN_SECONDS)
    return registry


def metrics_app(registry: CollectorRegistry) -> Any:
    """prometheus_client's WSGI app, answering only the readers /metrics answers."""
    from core.metrics import reader_allowed  # needs the app registry: imported once it is ready

    inner = make_wsgi_app(registry)

    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        address = environ.get("REMOTE_ADDR")
        if not reader_allowed(address, environ.get("HTTP_AUTHORIZATION", "")):
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b""]
        result: Iterable[bytes] = inner(environ, start_response)
        return result

    return app


class _Server(ThreadingMixIn, WSGIServer):
    # A scrape that hangs must not keep the worker from exiting.
    daemon_threads = True


class _V6Server(_Server):
    address_family = socket.AF_INET6


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """A scrape every 30 s would fill the worker's log."""


def metrics_serve(port: int, address: str) -> WSGIServer:
    server_class = _V6Server if ":" in address else _Server
    server = make_server(
        address, port, metrics_app(_registry()), server_class, handler_class=_QuietHandler
    )
    threading.Thread(target=server.serve_forever, name="worker-metrics", daemon=True).start()
    return server


def _serve_when_ready(**_: Any) -> None:
    """After the pool has started: its processes are forked without the listening socket (a
    process recycled later still inherits it, but serves nothing on it)."""
    port, address = int(settings.WORKER_METRICS_PORT), str(settings.WORKER_METRICS_ADDRESS)
    server = metrics_serve(port, address)
    logger.info("worker metrics on %s:%s", address, server.server_port)


def worker_metrics_start(**_: Any) -> None:
    """worker_init, in the worker's main process before its pool starts: the receivers connected
    here are inherited by every pool process. Connected only in workers, so tasks run eagerly in
    another process (a test, a shell) count nowhere."""
    if not settings.WORKER_METRICS_PORT:
        return
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        forget_dead_processes(Path(folder))
    else:
        logger.warning(
            "WORKER_METRICS_PORT without PROMETHEUS_MULTIPROC_DIR: only tasks run in the main "
            "process are counted (--pool solo or threads), none of a prefork pool's"
        )
    task_prerun.connect(task_started, dispatch_uid="ezmax-worker-metrics-prerun")
    task_postrun.connect(task_finished, dispatch_uid="ezmax-worker-metrics-postrun")
    worker_ready.connect(_serve_when_ready, dispatch_uid="ezmax-worker-metrics-serve")
