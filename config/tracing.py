"""OpenTelemetry tracing of the web processes and the Celery workers, on only when
OTEL_EXPORTER_OTLP_ENDPOINT names a collector (OTLP over HTTP, e.g. http://otel-collector:4318).

Off, nothing of OpenTelemetry is even imported: no middleware is added and no span is made, so
the default costs one environment lookup per process. On, every request (Django's instrumentation,
one span per request named by its route) and every task (Celery's, with the sending request's
trace carried in the message) is exported in batches from a thread of its own. The standard
OTEL_* variables (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER...) apply.

`config.wsgi` starts it before Django loads its middleware; `config.celery` in each worker
process after the fork (the exporter's thread does not survive a fork)."""

from __future__ import annotations

import os
import threading
from typing import Literal

ENDPOINT_VARIABLE = "OTEL_EXPORTER_OTLP_ENDPOINT"
Role = Literal["web", "worker"]

_started: Role | None = None
_lock = threading.Lock()


def tracing_enabled() -> bool:
    return bool(os.environ.get(ENDPOINT_VARIABLE, "").strip())


def tracing_start(role: Role) -> bool:
    """Instrument this process for `role` once; False (and nothing done) when tracing is off."""
    global _started
    if not tracing_enabled():
        return False
    with _lock:
        if _started is not None:
            return True
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        service = os.environ.get("OTEL_SERVICE_NAME", "ezmax-planner")
        resource = Resource.create({"service.name": service, "service.namespace": "ezmax"})
        resource = resource.merge(Resource.create({"ezmax.role": role}))
        provider = TracerProvider(resource=resource)
        # The exporter reads the endpoint (and headers, timeout) from the OTEL_* variables and
        # appends /v1/traces.
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        trace.set_tracer_provider(provider)
        if role == "web":
            from opentelemetry.instrumentation.django import DjangoInstrumentor

            DjangoInstrumentor().instrument()
        else:
            from opentelemetry.instrumentation.celery import CeleryInstrumentor

            CeleryInstrumentor().instrument()  # type: ignore[no-untyped-call]
        _started = role
    return True


def tracing_flush(timeout_millis: int = 5000) -> bool:
    """Export the spans still batched (a worker process about to exit; tests)."""
    if _started is None:
        return False
    from opentelemetry import trace

    flush = getattr(trace.get_tracer_provider(), "force_flush", None)
    return bool(flush(timeout_millis)) if callable(flush) else False
