"""Tracing (config/tracing.py, issue 30): off unless OTEL_EXPORTER_OTLP_ENDPOINT is set, and then
a request through the WSGI application the servers run is exported as a span to that collector.
Each case runs in a process of its own: instrumenting Django is for the whole process, and the
test session's own must stay untraced."""

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

ROOT = Path(__file__).resolve().parent.parent.parent

# Requests /health/ through config.wsgi's application as gunicorn would, then flushes the spans.
REQUEST = """
import io, json, sys
from wsgiref.util import setup_testing_defaults
from config.wsgi import application
from config import tracing
environ = {"PATH_INFO": "/health/", "REQUEST_METHOD": "GET", "HTTP_HOST": "localhost"}
setup_testing_defaults(environ)
seen = {}
def start_response(status, headers, exc_info=None):
    seen["status"] = status
b"".join(application(environ, start_response))
flushed = tracing.tracing_flush()
from django.conf import settings
trace = sys.modules.get("opentelemetry.trace")
print(json.dumps({
    "status": seen["status"],
    "flushed": flushed,
    "instrumentation": sorted(m for m in sys.modules if m.startswith("opentelemetry.instrum")),
    "middleware": [m for m in settings.MIDDLEWARE if "opentelemetry" in m],
    "provider": type(trace.get_tracer_provider()).__name__ if trace else None,
}))
"""


class Collector(BaseHTTPRequestHandler):
    received: list[tuple[str, bytes]] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        type(self).received.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def collector():
    Collector.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", Collector.received
    server.shutdown()
    server.server_close()


def run_request(tmp_path, **extra_env) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        REDIS_URL="",
        **extra_env,
    )
    out = subprocess.run(
        [sys.executable, "-c", REQUEST], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_request_is_exported_as_a_span_when_an_endpoint_is_set(tmp_path, collector):
    endpoint, received = collector
    result = run_request(
        tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint, OTEL_SERVICE_NAME="ezmax-test"
    )
    assert result["status"].startswith("200")
    assert result["flushed"] is True
    assert result["middleware"] == [
        "opentelemetry.instrumentation.django.middleware.otel_middleware._DjangoMiddleware"
    ]
    assert [path for path, _ in received] == ["/v1/traces"]
    export = ExportTraceServiceRequest()
    export.ParseFromString(received[0][1])
    spans = [
        (span, resource.resource)
        for resource in export.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    [(span, resource)] = spans
    assert span.name == "GET health/"  # Django's instrumentation names it by the route
    attributes = {a.key: a.value.string_value for a in resource.attributes}
    assert attributes["service.name"] == "ezmax-test"
    assert attributes["ezmax.role"] == "web"
    assert span.end_time_unix_nano > span.start_time_unix_nano


def test_off_by_default_no_instrumentation_no_middleware_no_span(tmp_path, collector):
    _endpoint, received = collector
    result = run_request(tmp_path)
    assert result["status"].startswith("200")
    assert result["flushed"] is False
    # redis-py imports OpenTelemetry's API for its own optional figures; the instrumentation,
    # the middleware and an SDK tracer provider (what costs) are never loaded.
    assert result["instrumentation"] == []
    assert result["middleware"] == []
    assert result["provider"] in (None, "ProxyTracerProvider")
    assert received == []


# A worker pool process as Celery starts one (its worker_process_init signal), then one task run
# the way the pool runs it (trace_task: the prerun and postrun signals the instrumentation hooks).
TASK = """
import json
import django
django.setup()
from celery.signals import worker_process_init
from config.celery import app
import core.tasks  # what the worker autodiscovers at start
from config import tracing
worker_process_init.send(sender=None)
app.tasks["core.tasks.purge_idempotency_keys"].apply()
print(json.dumps({"flushed": tracing.tracing_flush()}))
"""


def test_a_task_in_a_worker_process_is_exported_as_a_span(tmp_path, collector):
    endpoint, received = collector
    env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        REDIS_URL="",
        OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
        WORKER_NICENESS="0",
    )
    out = subprocess.run(
        [sys.executable, "-c", TASK], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"flushed": True}
    export = ExportTraceServiceRequest()
    export.ParseFromString(received[0][1])
    names = [span.name for r in export.resource_spans for s in r.scope_spans for span in s.spans]
    assert names == ["run/core.tasks.purge_idempotency_keys"]
