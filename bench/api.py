"""`POST /api/v1/designs/preview/` under 20 concurrent clients, against gunicorn on loopback.

Issue 8 targets on this 2-core machine: p95 < 50 ms and >= 300 requests/s for 1,024 GPUs;
p95 < 100 ms for 131,072 GPUs. The client is a minimal asyncio HTTP/1.1 keep-alive loop so that
it costs the machine as little as possible; `wrk` (Debian package) is used instead when installed,
since a C load generator leaves the two cores to the server."""

import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = 20
DURATION_S = 8.0
REQUESTS = {
    "1,024 GPUs": {
        "gpus": 1024, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
        "leaf": "64x400", "spine": "64x400",
    },
    "131,072 GPUs": {
        "gpus": 131072, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
        "leaf": "64x800", "spine": "64x800", "core": "64x800",
    },
}  # fmt: skip


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _prepare(env: dict[str, str]) -> str:
    """Migrate a throwaway database, load the catalog, and return a read-write API token."""
    manage = [sys.executable, "manage.py"]
    for args in (["migrate", "-v0"], ["setup_roles"], ["load_catalog"]):
        subprocess.run(manage + args, cwd=ROOT, env=env, check=True, capture_output=True)
    subprocess.run(
        [*manage, "shell", "-c",
         "from core.services import user_create; from core.roles import SALES_ENGINEER; "
         "user_create(username='bench', password='bench-pw-1', role=SALES_ENGINEER, "
         "team_name='Bench')"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    out = subprocess.run(
        [*manage, "api_token", "create", "--user", "bench", "--scope", "read-write"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return out.stdout.strip().splitlines()[-1]


async def _client(port: int, raw: bytes, stop_at: float, latencies: list[float]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            writer.write(raw)
            await writer.drain()
            status_line = await reader.readline()
            length = 0
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            await reader.readexactly(length)
            if b" 200 " not in status_line:
                raise RuntimeError(status_line.decode())
            latencies.append(time.perf_counter() - started)
    finally:
        writer.close()


async def _load(port: int, token: str, body: dict) -> tuple[list[float], float]:
    payload = json.dumps(body).encode()
    raw = (
        f"POST /api/v1/designs/preview/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    ).encode() + payload
    latencies: list[float] = []
    started = time.perf_counter()
    stop_at = started + DURATION_S
    await asyncio.gather(*(_client(port, raw, stop_at, latencies) for _ in range(CLIENTS)))
    return latencies, time.perf_counter() - started


WRK_SCRIPT = """
wrk.method = "POST"
wrk.body = [[%(body)s]]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer %(token)s"
done = function(summary, latency, requests)
  local bad = summary.errors.status + summary.errors.connect + summary.errors.read
  io.write(string.format("RESULT %%d %%d %%d %%d %%d\\n", latency:percentile(50),
    latency:percentile(95), summary.requests, summary.duration, bad))
end
"""


def _wrk(port: int, token: str, body: dict) -> tuple[float, float, float]:
    """wrk (C, two threads) loads the server with far less CPU than a Python client, so the
    figures are the server's, not the client's. Returns (median s, p95 s, requests/s)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT % {"body": json.dumps(body), "token": token})
    url = f"http://127.0.0.1:{port}/api/v1/designs/preview/"

    def wrk(seconds: float) -> str:
        args = ["wrk", "-t2", f"-c{CLIENTS}", f"-d{seconds:g}s", "-s", script.name, url]
        return subprocess.run(args, check=True, capture_output=True, text=True).stdout

    wrk(5)  # warm-up: caches, the catalog snapshot in every gunicorn process
    out = wrk(DURATION_S)
    p50_us, p95_us, requests, duration_us, bad = (int(x) for x in out.split("RESULT")[1].split())
    if bad:
        raise RuntimeError(f"{bad} failed requests under load")
    return p50_us / 1e6, p95_us / 1e6, requests / (duration_us / 1e6)


def run() -> list[tuple]:
    workdir = tempfile.mkdtemp(prefix="ezmax-bench-api-")
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DEBUG": "false",
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{workdir}/bench.sqlite3"),
        "API_THROTTLE_USER": "1000000/min",
        "LOG_LEVEL": "WARNING",
        "CELERY_DATA_DIR": f"{workdir}/celery",
    }
    env.pop("REDIS_URL", None)
    token = _prepare(env)
    # gunicorn reads gunicorn.conf.py from ROOT, as in the Dockerfile and docker-compose; only
    # the address and the access log (a line per request, the load's own cost) differ here.
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi:application",
         "--log-level", "warning"],
        cwd=ROOT, env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_ACCESS_LOG": ""},
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.2)
        results: list[tuple] = []
        for label, body in REQUESTS.items():
            if shutil.which("wrk"):
                median, p95, rate = _wrk(port, token, body)
                client = "wrk"
            else:
                asyncio.run(_load(port, token, body))  # warm-up: caches, catalog snapshot
                latencies, elapsed = asyncio.run(_load(port, token, body))
                latencies.sort()
                median = statistics.median(latencies)
                p95 = latencies[int(len(latencies) * 0.95) - 1]
                rate = len(latencies) / elapsed
                client = "asyncio client"
            results.append((f"preview {label}: median latency ({client})", median))
            results.append((f"preview {label}: p95 latency ({client})", p95))
            results.append((f"preview {label}: throughput ({client})", rate, "req/s"))
        return results
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(10)
