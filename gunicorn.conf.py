"""gunicorn settings, read from the working directory wherever the web app runs under gunicorn:
the Dockerfile, docker-compose's web service and `make bench` (bench.api), so the benchmark
measures the server as deployed."""

import multiprocessing
import os
from typing import Any

from core.http_limits import HEADER_FIELD_MAX_BYTES, HEADER_FIELDS_MAX, REQUEST_LINE_MAX_BYTES

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() + 1))
# Sizing is CPU-bound, so processes, not threads. Sync workers take one connection at a time
# from the shared listening socket, so requests go to whichever process is idle; with keep-alive
# workers, connections stay pinned to one busy process and bench.api's p95 was twice as long.
# gunicorn's sync worker, whose own refusals (a request line or headers past the limits below,
# bytes that are not HTTP) are problem+json like every other API error.
worker_class = "config.gunicorn_worker.ProblemSyncWorker"
# gunicorn's defaults, named once: the API schema documents them (414, 431), the worker's
# problems state them.
limit_request_line = REQUEST_LINE_MAX_BYTES
limit_request_field_size = HEADER_FIELD_MAX_BYTES
limit_request_fields = HEADER_FIELDS_MAX
# Settings read the same variable (GUNICORN_TIMEOUT): an Idempotency-Key in flight for longer
# belongs to a request gunicorn killed, and a retry may take it over.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
# On SIGTERM (a pod or container stopped) the requests under way may finish for as long as one may
# run at all; gunicorn's default (30 s) cut the longer ones.
graceful_timeout = timeout
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-") or None


def child_exit(server: Any, worker: Any) -> None:
    """A gunicorn process that exits leaves its figures in PROMETHEUS_MULTIPROC_DIR (a pod's
    processes share the folder, and a scrape sums it): its live gauges must go with it."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker: Any) -> None:
    """Freeze what the loaded app allocated (modules, models, URL patterns, settings) out of the
    garbage collector's reach: a full collection otherwise walks all of it every few requests,
    for nothing, as none of it is garbage. Measured on the quotes list (bench.load's endpoint,
    PostgreSQL): 3.6 ms of CPU per request before, 3.0-3.1 ms frozen."""
    import gc

    gc.freeze()
