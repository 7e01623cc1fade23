"""`make bench`'s load suite (bench/load.py) in miniature: gunicorn with production settings
serves the two lists and the preview to 20 connections with nothing but 200s, and the design
list carries summaries; a real worker beside it renders the proposals asked for through the API,
in a pool process of lower CPU priority than the requests. The figures themselves are
`make bench`'s, not a test's: on a shared 2-core machine they vary too much to assert."""

import http.client
import json
import os
import tempfile
import time
from pathlib import Path

from bench import load


def test_production_server_answers_the_measured_endpoints_under_load():
    workdir = tempfile.mkdtemp(prefix="ezmax-load-smoke-")
    env = load.production_env(workdir)
    token = load.prepare(env, designs=5, quotes=2)
    port = load._free_port()
    server = load.start_gunicorn(env, port)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/v1/designs/", headers=load._headers(token))
        response = conn.getresponse()
        assert response.status == 200
        designs = json.loads(response.read())["results"]
        assert len(designs) == 5  # three sized and two copies: every one listed, no result
        assert all("result" not in row and "request" not in row for row in designs)
        conn.close()
        for _label, method, path, body in load.ENDPOINTS:
            latencies, _elapsed, bad = load.load_round(port, token, method, path, body, 1.0)
            assert bad == 0, f"{method} {path}: {bad} answers were not 200"
            assert len(latencies) >= load.CONNECTIONS  # every connection was answered
        _worker_renders_beside(env, port, token)
    finally:
        load.stop(server)


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
