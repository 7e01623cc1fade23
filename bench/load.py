"""Load (issue 18, item 6): the lists and the wizard's preview under 20 connections, against
gunicorn with production settings (config.settings.production, gunicorn.conf.py's sync workers),
with 1,000 designs and 1,000 quotes in the database.

Goals on this 2-core machine: `GET /api/v1/designs/` and `GET /api/v1/quotes/` at >= 300 req/s
with p95 < 100 ms; `POST /api/v1/designs/preview/` of 1,024 GPUs >= 300 req/s with p95 < 50 ms;
and the same with a real Celery worker rendering proposal PDFs beside them, p95 < 150 ms.

The database is SQLite in a temporary directory unless BENCH_DATABASE_URL names another (a
PostgreSQL one is what production runs); cache and broker are the embedded ones unless
BENCH_REDIS_URL names a Redis database, which is emptied first (production runs Redis: every
request then reads its token and rate limit there). The load generator is Python threads with
http.client keep-alive connections, one per thread: it shares the two cores with the server, so
the figures understate what a C client (wrk) would measure. Each figure is the median of ROUNDS
rounds.

The tables are ANALYZEd after seeding: a database in service has its planner statistics
(PostgreSQL's autovacuum gathers them), and without them both databases chose other plans for
the lists than they do in service."""

import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CONNECTIONS = 20
ROUNDS = 3
ROUND_S = 5.0
DESIGNS = 1000
QUOTES = 1000
PREVIEW_1024 = {
    "gpus": 1024, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
    "leaf": "64x400", "spine": "64x400",
}  # fmt: skip
# Saved designs of three sizes (up to the largest the API accepts), copied to DESIGNS rows: the
# list must cost the same whatever the designs' size.
SEED_SCRIPT = """
import time
from django.contrib.auth import get_user_model
from core.roles import SALES_ENGINEER
from core.services import user_create
from customers.models import Customer
from planner.models import Design
from planner.services import design_create
from quotes.services import quote_create

started = time.monotonic()
user = user_create(username="bench", password="bench-pw-1", role=SALES_ENGINEER, team_name="Bench")
team = user.membership.team
customer = Customer.objects.create(name_en="Bench customer", team=team)
requests = [
    %(preview)s,
    {"gpus": 131072, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x800"},
    {"gpus": 1000000, "nic_speed": 400, "fabric": "rail", "leaf": "64x800", "planes": 8},
][:%(sized)d]
sized = [design_create(owner=user, name=f"seed {n}", request_data=r, customer=customer)
         for n, r in enumerate(requests)]
copies = []
for n in range(%(designs)d - len(sized)):
    source = sized[n %% len(sized)]
    copies.append(Design(
        name=f"design {n}", owner=user, team=team, customer=customer, scenario=source.scenario,
        is_draft=False, request=source.request, result=source.result, gpus=source.gpus,
        catalog_version=source.catalog_version, sizing_snapshot=source.sizing_snapshot,
    ))
Design.objects.bulk_create(copies, batch_size=100)
for n in range(%(quotes)d):
    quote_create(user=user, design=sized[0], customer=customer)
print(f"seeded in {time.monotonic() - started:.0f} s")
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def prepare(
    env: dict[str, str], *, designs: int = DESIGNS, quotes: int = QUOTES, sized: int = 3
) -> str:
    """Migrate, load the catalog, seed the rows (`sized` of them sized by the engine, up to the
    million-GPU one, the rest copies); returns a read-write API token. One process: each
    `manage.py` started apart cost its own second or two of Django start-up."""
    seed = SEED_SCRIPT % {
        "designs": designs, "quotes": quotes, "preview": json.dumps(PREVIEW_1024), "sized": sized,
    }  # fmt: skip
    script = "\n".join((
        "from django.core.management import call_command",
        "from django.db import connection",
        "call_command('migrate', verbosity=0)",
        "call_command('setup_roles')",
        "call_command('load_catalog')",
        seed,
        "connection.cursor().execute('ANALYZE')",
        "call_command('api_token', 'create', '--user', 'bench', '--scope', 'read-write')",
    ))  # fmt: skip
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return out.stdout.strip().splitlines()[-1]  # the token, printed last


def production_env(workdir: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "bench-" + "k" * 60,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{workdir}/bench.sqlite3"),
        "API_THROTTLE_USER": "10000000/min",
        # The bench queues 40 PDFs as one user: fair use (core.fair_use) would refuse the 11th.
        "JOBS_PER_USER_MAX": "1000",
        "JOBS_PER_TEAM_MAX": "1000",
        "LOG_LEVEL": "WARNING",
        "CELERY_DATA_DIR": f"{workdir}/celery",
        "MEDIA_ROOT": f"{workdir}/media",
    }
    # Production's queues: under pytest, the test settings put their own names in the
    # environment, and this server's broker is its own anyway.
    for name in ("REDIS_URL", "DOCUMENTS_QUEUE", "CELERY_TASK_DEFAULT_QUEUE"):
        env.pop(name, None)
    if os.environ.get("BENCH_REDIS_URL"):
        env["REDIS_URL"] = os.environ["BENCH_REDIS_URL"]
    return env


def empty_redis(env: dict[str, str]) -> None:
    """Messages and cached answers of an earlier run name rows this run's database lacks."""
    if env.get("REDIS_URL"):
        import redis

        redis.Redis.from_url(env["REDIS_URL"]).flushdb()


def start_gunicorn(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    """gunicorn as deployed (gunicorn.conf.py); only the address and the access log differ. Its
    own log (warnings: every 4xx the load or the fuzzing provokes) goes to server.log in the
    working directory.

    Server, worker and load client share this session (a process group of their own, not a
    session): Linux's autogroup scheduling shares the CPU equally between sessions whatever
    their processes' priorities, so a worker in a session of its own took as much CPU with
    WORKER_NICENESS as without, which no deployment does (docker-compose weighs the services'
    CPU shares, one scheduling domain as here)."""
    log = open(Path(env["MEDIA_ROOT"]).parent / "server.log", "ab")  # noqa: SIM115 (the server's)
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi:application",
         "--log-level", "warning"],
        cwd=ROOT, env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_ACCESS_LOG": ""},
        process_group=0, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return server
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def stop(process: subprocess.Popen[bytes], timeout: float = 15) -> None:
    """SIGTERM to the server's or worker's process group; waits for it to finish."""
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout)


def _headers(token: str) -> dict[str, str]:
    # TLS ends at the proxy in production: the header says so (SECURE_PROXY_SSL_HEADER), so the
    # production redirect to https does not apply.
    return {
        "Authorization": f"Bearer {token}",
        "X-Forwarded-Proto": "https",
        "Content-Type": "application/json",
    }


def load_round(
    port: int, token: str, method: str, path: str, body: bytes | None, seconds: float
) -> tuple[list[float], float, int]:
    """CONNECTIONS threads, each on its own keep-alive connection, for `seconds`; returns the
    latencies, the elapsed time and the count of answers other than 200."""
    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds
    headers = _headers(token)

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine: list[float] = []
        bad = 0
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            mine.append(time.perf_counter() - started)
            if response.status != 200:
                bad += 1
        conn.close()
        with lock:
            latencies.extend(mine)
            failures[0] += bad

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(CONNECTIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, time.perf_counter() - started, failures[0]


WRK_SCRIPT = """
wrk.method = %(method)s
wrk.body = %(body)s
%(headers)s
done = function(summary, latency, requests)
  io.stderr:write(string.format("RESULT %%d %%f %%f %%f %%d\\n", summary.requests,
    summary.duration / 1e6, latency:percentile(95) / 1e6, latency:percentile(50) / 1e6,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.timeout))
end
"""


def measure_wrk(
    port: int, token: str, method: str, path: str, body: bytes | None
) -> dict[str, float]:
    """The same load from wrk (a C client, 2 threads, CONNECTIONS connections): it takes far less
    of the two cores than Python threads, so its figures are nearer the server's own."""
    headers = "\n".join(
        f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}" for k, v in _headers(token).items()
    )
    script = WRK_SCRIPT % {
        "method": json.dumps(method),
        "body": json.dumps(body.decode()) if body else "nil",
        "headers": headers,
    }
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as lua:
        lua.write(script)
    url = f"http://127.0.0.1:{port}{path}"
    rates, p95s, medians = [], [], []
    for seconds in [2] + [int(ROUND_S)] * ROUNDS:  # the first round warms the workers
        out = subprocess.run(
            ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds}s", "-s", lua.name, url],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        line = next(x for x in out.stderr.splitlines() if x.startswith("RESULT"))
        count, elapsed, p95, median, errors = line.split()[1:]
        if int(errors):
            raise RuntimeError(f"{method} {path}: {errors} errors or answers other than 2xx")
        rates.append(int(count) / float(elapsed))
        p95s.append(float(p95))
        medians.append(float(median))
    os.unlink(lua.name)
    return {
        "rate": statistics.median(rates[1:]),
        "p95": statistics.median(p95s[1:]),
        "median": statistics.median(medians[1:]),
    }


def measure(port: int, token: str, method: str, path: str, body: bytes | None) -> dict[str, float]:
    load_round(port, token, method, path, body, 2.0)  # warm-up: every worker's caches
    rates, p95s, medians = [], [], []
    for _ in range(ROUNDS):
        latencies, elapsed, bad = load_round(port, token, method, path, body, ROUND_S)
        if bad:
            raise RuntimeError(f"{method} {path}: {bad} answers were not 200")
        latencies.sort()
        rates.append(len(latencies) / elapsed)
        p95s.append(latencies[int(len(latencies) * 0.95) - 1])
        medians.append(statistics.median(latencies))
    return {
        "rate": statistics.median(rates),
        "p95": statistics.median(p95s),
        "median": statistics.median(medians),
    }


SINGLE_REQUESTS = 100


def single_thread(
    port: int, token: str, method: str, path: str, body: bytes | None, requests: int
) -> dict[str, float]:
    """One connection, one request after another: the server's own cost of a request (median
    and p95, in seconds) and the size of the answer. On a shared machine this moves far less
    than the 20-connection figures, which count every other process's use of the two cores."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = _headers(token)
    latencies, size = [], 0
    for _ in range(requests + 5):  # the first five warm the worker's caches
        started = time.perf_counter()
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        size = len(response.read())
        latencies.append(time.perf_counter() - started)
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status}")
    conn.close()
    latencies = sorted(latencies[5:])
    return {
        "median": statistics.median(latencies),
        "p95": latencies[int(len(latencies) * 0.95) - 1],
        "bytes": float(size),
    }


ENDPOINTS = [
    ("GET /api/v1/designs/ (goal >= 300 req/s, p95 < 100 ms)", "GET", "/api/v1/designs/", None),
    ("GET /api/v1/quotes/ (goal >= 300 req/s, p95 < 100 ms)", "GET", "/api/v1/quotes/", None),
    (
        "preview 1,024 GPUs (goal >= 300 req/s, p95 < 50 ms)",
        "POST",
        "/api/v1/designs/preview/",
        json.dumps(PREVIEW_1024).encode(),
    ),
]


def selected_endpoints() -> list[tuple[str, str, str, bytes | None]]:
    """ENDPOINTS, or those whose path holds one of BENCH_LOAD_ONLY's comma-separated words
    (`BENCH_LOAD_ONLY=quotes python -m bench load`): one list measured again after a change,
    without the minutes the others take."""
    words = [w.strip() for w in os.environ.get("BENCH_LOAD_ONLY", "").split(",") if w.strip()]
    return [e for e in ENDPOINTS if not words or any(w in e[2] for w in words)]


def database_vendor(env: dict[str, str]) -> str:
    """The database the figures are of: the goals are PostgreSQL's (production runs it)."""
    return env["DATABASE_URL"].split(":", 1)[0]


# --- Beside a worker rendering PDFs --------------------------------------------------------------

DOCUMENTS_QUEUED = 40  # at about 2 s of CPU each, more than the measurement can finish


def start_worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A real Celery worker on both queues, as Procfile.dev runs it (one process, so one render
    at a time as docker-compose's `documents` service), at its configured priority."""
    log = open(Path(env["MEDIA_ROOT"]).parent / "worker.log", "ab")  # noqa: SIM115 (the worker's)
    return subprocess.Popen(
        [str(Path(sys.executable).with_name("celery")), "-A", "config", "worker",
         "--concurrency", "1", "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
         "-Q", "default,documents", "-n", f"bench-{os.getpid()}@%h"],
        cwd=ROOT, env=env, process_group=0, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip


def _api(port: int, token: str, method: str, path: str, body: dict[str, Any] | None) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=json.dumps(body) if body else None, headers=_headers(token))
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    if response.status >= 300:
        raise RuntimeError(f"{method} {path}: {response.status} {answer}")
    return answer


def queue_documents(port: int, token: str, count: int, start_date: str = "2027-01-04") -> list[int]:
    """Ask for `count` proposals (of as many quotes, so none is an existing document) through the
    API, as a sales engineer does; returns the documents' ids. Another `start_date` asks for
    new documents of the same quotes."""
    quotes = _api(port, token, "GET", f"/api/v1/quotes/?limit={count}", None)["results"]
    request = {"kind": "proposal", "language": "zh-hans", "start_date": start_date}
    return [
        _api(port, token, "POST", f"/api/v1/quotes/{quote['id']}/documents/", request)["id"]
        for quote in quotes
    ]


def documents_ready(port: int, token: str, ids: list[int]) -> int:
    return sum(
        _api(port, token, "GET", f"/api/v1/documents/{pk}/", None)["status"] == "ready"
        for pk in ids
    )


def proc_stat(pid: int | str) -> list[str]:
    """A process's /proc/<pid>/stat fields after its name (proc(5): the state is [0], the
    process group [2], user and system time [11] and [12], the nice value [16])."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2 :].split()


def group_cpu_seconds(pgid: int) -> float:
    """User and system CPU time of the live processes of one process group (the worker and its
    pool process)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = proc_stat(entry)
        except OSError:
            continue
        if int(fields[2]) == pgid:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def measure_beside_worker(port: int, token: str, env: dict[str, str]) -> list[tuple]:
    """Each endpoint again while the worker renders proposals. Reported beside the figures: how
    many renders finished and how much CPU the worker had, so a worker that sat idle (or one
    that starved the requests) shows."""
    worker = start_worker(env)
    results: list[tuple] = []
    try:
        ids = queue_documents(port, token, DOCUMENTS_QUEUED)
        deadline = time.monotonic() + 60
        while group_cpu_seconds(worker.pid) < 2.0:  # loaded Django and started a render
            if time.monotonic() > deadline:
                raise RuntimeError("the worker did not start rendering within 60 s")
            time.sleep(0.5)
        for label, method, path, body in selected_endpoints():
            short = label.split(" (")[0]
            cpu_before, started = group_cpu_seconds(worker.pid), time.monotonic()
            if shutil.which("wrk"):
                figures = measure_wrk(port, token, method, path, body)
            else:
                figures = measure(port, token, method, path, body)
            cores = (group_cpu_seconds(worker.pid) - cpu_before) / (time.monotonic() - started)
            results.append((f"{short} beside a rendering worker (goal p95 < 150 ms): p95",
                            figures["p95"]))  # fmt: skip
            results.append((f"{short} beside a rendering worker: throughput", figures["rate"],
                            "req/s"))  # fmt: skip
            results.append((f"{short} beside a rendering worker: the worker's CPU", cores,
                            "cores"))  # fmt: skip
        results.append(("proposals rendered while measuring beside the worker",
                        documents_ready(port, token, ids), "documents"))  # fmt: skip
    finally:
        stop(worker, timeout=30)
    return results


def load_average() -> float:
    """The machine's 1-minute load average: the conditions of a measurement. On 2 cores, above 2
    means other processes (a CI run) took CPU time from the server and the load generator."""
    return os.getloadavg()[0]


def run() -> list[tuple]:
    workdir = tempfile.mkdtemp(prefix="ezmax-bench-load-")
    env = production_env(workdir)
    empty_redis(env)
    seeded = time.monotonic()
    token = prepare(env)
    results: list[tuple] = [
        (f"seeding 1,000 designs and 1,000 quotes ({database_vendor(env)})",
         time.monotonic() - seeded, "s")
    ]  # fmt: skip
    port = _free_port()
    server = start_gunicorn(env, port)
    results.append(("load average (1 min) before measuring, 2 cores", load_average(), "load"))
    try:
        for label, method, path, body in selected_endpoints():
            short = label.split(" (")[0]
            alone = single_thread(port, token, method, path, body, SINGLE_REQUESTS)
            results.append((f"{short}, one connection: median per request", alone["median"]))
            results.append((f"{short}, one connection: p95 per request", alone["p95"]))
            results.append((f"{short}: answer size", alone["bytes"], "bytes"))
            if os.environ.get("BENCH_LOAD_SINGLE_ONLY"):
                continue
            figures = measure(port, token, method, path, body)
            results.append((f"{label}: throughput", figures["rate"], "req/s"))
            results.append((f"{short}: p95", figures["p95"]))
            results.append((f"{short}: median", figures["median"]))
            if shutil.which("wrk"):
                figures = measure_wrk(port, token, method, path, body)
                results.append((f"{short}, wrk: throughput", figures["rate"], "req/s"))
                results.append((f"{short}, wrk: p95", figures["p95"]))
                results.append((f"{short}, wrk: median", figures["median"]))
        if not os.environ.get("BENCH_LOAD_SINGLE_ONLY"):
            results += measure_beside_worker(port, token, env)
        results.append(("load average (1 min) after measuring, 2 cores", load_average(), "load"))
        return results
    finally:
        stop(server)


if __name__ == "__main__":
    for figure in run():
        print(figure)
