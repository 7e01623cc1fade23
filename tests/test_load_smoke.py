"""`make bench`'s load suite (bench/load.py) in miniature: gunicorn with production settings
serves the two lists and the preview to 20 connections with nothing but 200s, and the design
list carries summaries; a real worker beside it renders the proposals asked for through the API,
in a pool process of lower CPU priority than the requests. The figures themselves are
`make bench`'s, not a test's: on a shared 2-core machine they vary too much to assert."""

import http.client
import json
import os
import socket
import tempfile
import time
from pathlib import Path

import pytest

from bench import load
from core import http_limits


@pytest.mark.slow
def test_production_server_answers_the_measured_endpoints_under_load():
    workdir = tempfile.mkdtemp(prefix="ezmax-load-smoke-")
    env = load.production_env(workdir)
    token = load.prepare(env, designs=5, quotes=2, sized=2)
    port = load._free_port()
    server = load.start_gunicorn(env, port)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/v1/designs/", headers=load._headers(token))
        response = conn.getresponse()
        assert response.status == 200
        designs = json.loads(response.read())["results"]
        assert len(designs) == 5  # two sized and three copies: every one listed, no result
        assert all("result" not in row and "request" not in row for row in designs)
        conn.close()
        for _label, method, path, body in load.ENDPOINTS:
            latencies, _elapsed, bad = load.load_round(port, token, method, path, body, 1.0)
            assert bad == 0, f"{method} {path}: {bad} answers were not 200"
            assert len(latencies) >= load.CONNECTIONS  # every connection was answered
        _refusals_are_problems(port)
        _worker_renders_beside(env, port, token)
    finally:
        load.stop(server)


def _raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """One request as bytes on a socket: these never reach Django, so no client library's
    checks may stand between them and gunicorn."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def _refusals_are_problems(port: int) -> None:
    """What gunicorn refuses before the application (config.gunicorn_worker) is problem+json
    like every API error, with the status the schema documents (core.schema)."""
    query = "gpus_max=" + "9" * http_limits.REQUEST_LINE_MAX_BYTES  # one byte is enough
    long_line = f"GET /api/v1/designs/?{query} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    big_header = (
        b"GET /api/v1/designs/ HTTP/1.1\r\nHost: x\r\nX-Big: "
        + b"a" * (http_limits.HEADER_FIELD_MAX_BYTES + 1)
        + b"\r\n\r\n"
    )
    many = b"".join(b"X-H%d: 1\r\n" % n for n in range(http_limits.HEADER_FIELDS_MAX + 1))
    many_headers = b"GET /api/v1/designs/ HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n"
    garbage = b"\x16\x03\x01 not http at all\r\n\r\n"
    for request, status in (
        (long_line, 414),
        (big_header, 431),
        (many_headers, 431),
        (garbage, 400),
    ):
        code, headers, body = _raw(port, request)
        assert code == status, (code, body[:200])
        assert headers["content-type"] == "application/problem+json"
        problem = json.loads(body)
        assert problem["status"] == status
        assert problem["type"] == "about:blank"
        assert problem["detail"]
        assert int(headers["content-length"]) == len(body)


def _worker_renders_beside(env: dict[str, str], port: int, token: str) -> None:
    worker = load.start_worker(env)
    try:
        ids = load.queue_documents(port, token, 2)
        assert len(set(ids)) == 2  # two quotes, two documents
        deadline = time.monotonic() + 180
        while load.documents_ready(port, token, ids) < 2:
            assert worker.poll() is None, "the worker exited"
            assert time.monotonic() < deadline, "the proposals were not rendered in 180 s"
            time.sleep(1)
        assert load.group_cpu_seconds(worker.pid) > 1.0  # it rendered, so it used the CPU
        # The pool process (the worker's child) renders at WORKER_NICENESS (10) above the
        # worker's own priority, capped at 19 as nice(2) does.
        children = Path(f"/proc/{worker.pid}/task/{worker.pid}/children").read_text().split()
        assert children, "the worker has no pool process"
        assert int(load.proc_stat(children[0])[16]) == min(19, os.nice(0) + 10)
    finally:
        load.stop(worker, timeout=30)
