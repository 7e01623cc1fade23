import os
from typing import Any

from celery import Celery
from celery.signals import worker_init, worker_process_init

from config.tracing import tracing_start
from core.worker_metrics import worker_metrics_start

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _yield_to_requests(**_: Any) -> None:
    """Each pool process runs at a lower CPU priority (WORKER_NICENESS, default 10): a PDF render
    is batch work that may take seconds longer, while web requests on the same cores are
    someone waiting. With the two sharing a 2-core machine, a render at the same priority took
    a core from the request workers and the lists' p95 grew (bench.load measures both)."""
    os.nice(int(os.environ.get("WORKER_NICENESS", "10")))


worker_process_init.connect(_yield_to_requests)


def _trace_tasks(**_: Any) -> None:
    """Each pool process exports its own spans (OTEL_EXPORTER_OTLP_ENDPOINT; off when unset)."""
    tracing_start("worker")


worker_process_init.connect(_trace_tasks)


# Task counts and run times on WORKER_METRICS_PORT (core.worker_metrics; off when unset).
worker_init.connect(worker_metrics_start)
