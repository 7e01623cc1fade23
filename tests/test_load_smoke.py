"""`make bench`'s load suite (bench/load.py) in miniature: gunicorn with production settings
serves the two lists and the preview to 20 connections with nothing but 200s, and the design
list carries summaries. The figures themselves are `make bench`'s, not a test's: on a shared
2-core machine they vary too much to assert."""

import http.client
import json
import tempfile

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
    finally:
        load.stop(server)
