"""Several hosts, proven here (issue 30, item 4): two web hosts (gunicorn, two processes each) and
two worker hosts (Celery, one process each), each its own process group with its own settings
(port, node name, log), plus beat, against one PostgreSQL database and one Redis, behind nginx
running deploy/nginx.conf with both web hosts as its upstream. Mid-load, one web host and one
worker host are SIGKILLed (a host lost, not a graceful stop).

Shown: no request is lost beyond those in flight at the kill (nginx passes a refused or broken
connection to the other host; a document request carries an Idempotency-Key and is sent once more
if it got no answer), every job is done exactly once (taken once, except the render the killed
worker held, which is taken over once), and no document is written twice (one file per
document, each matching its SHA-256)."""

import hashlib
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from core.services import api_token_create
from customers.models import Customer
from planner.services import design_create
from quotes.models import Document, DocumentStatus
from quotes.services import quote_create
from tests.conftest import ARTIFACTS, load_seed_catalog, worker_env
from tests.core.test_degrade import _free_port
from tests.core.test_edge_proxy import NGINX, _wait_listening
from tests.waiting import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis, pytest.mark.worker]

ROOT = Path(__file__).resolve().parent.parent.parent
BIN = Path(sys.executable).parent
REQUEST = {"gpus": 32, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}
QUOTES = 4  # x 2 languages: 8 documents
LEASE_SECONDS = 6  # a killed worker's render is taken over within lease + sweep (6 + 2 s)


class Host:
    """One "machine": a process group with its own environment and log."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], logs: Path) -> None:
        self.name = name
        self.log_path = logs / f"{name}.log"
        self._log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            argv, cwd=ROOT, env={**env, "EZMAX_HOST": name}, stdout=self._log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()


def nginx_config(tmp_path: Path, port: int, upstreams: list[int]) -> Path:
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    servers = "\n".join(f"    server 127.0.0.1:{p};" for p in upstreams)
    site = site.replace("    server web:8000;", servers).replace(
        "listen 8000;", f"listen 127.0.0.1:{port};"
    )
    (tmp_path / "site.conf").write_text(site)
    temp = {n: tmp_path / n for n in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    (tmp_path / "nginx.conf").write_text(
        f"""
daemon off;
worker_processes 1;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    include {tmp_path}/site.conf;
}}
"""
    )
    return tmp_path / "nginx.conf"


class Load:
    """Clients through the balancer: readers list quotes in a loop; one writer asks for each
    document. Every request's outcome is kept, and how many were in flight at any moment."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.in_flight = 0
        self.outcomes: list[tuple[str, int | str]] = []  # (what, status or error)
        self.retried = 0
        self.documents: list[int] = []

    def _call(self, method: str, path: str, body: dict | None = None, key: str = "") -> int | str:
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        if key:
            headers["Idempotency-Key"] = key
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        with self.lock:
            self.in_flight += 1
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                payload = response.read()
                if method == "POST":
                    self.documents.append(json.loads(payload)["id"])
                return response.status
        except urllib.error.HTTPError as error:
            return error.code
        except (OSError, http.client.HTTPException) as error:
            # A refused connection, or an answer cut off by the host's death (IncompleteRead):
            # a request in flight at the kill. Caught, so the reader goes on counting.
            return type(error).__name__
        finally:
            with self.lock:
                self.in_flight -= 1

    def reader(self) -> None:
        while not self.stop.is_set():
            outcome = self._call("GET", "/api/v1/quotes/?limit=5")
            with self.lock:
                self.outcomes.append(("GET", outcome))

    def writer(self, quote_ids: list[int], between: float) -> None:
        for quote_id in quote_ids:
            for language in ("en", "zh-hans"):
                key = str(uuid.uuid4())
                path = f"/api/v1/quotes/{quote_id}/documents/"
                outcome = self._call("POST", path, {"language": language}, key)
                if outcome != 202:  # no answer: the same request again, under the same key
                    with self.lock:
                        self.retried += 1
                    outcome = self._call("POST", path, {"language": language}, key)
                with self.lock:
                    self.outcomes.append(("POST", outcome))
                time.sleep(between)


# One story, long on purpose (over 80 lines): the hosts, the load, the kills and the counts of
# what was lost read in the order they happen; split, each piece would need all the others.
@pytest.mark.django_db(transaction=True)
def test_two_web_and_two_worker_hosts_lose_nothing_when_one_of_each_dies(
    postgres_required, redis_required, engineer, settings, tmp_path
):
    if not Path(NGINX).exists():
        pytest.skip("needs nginx (apt-get install nginx-light)")
    load_seed_catalog()
    customer = Customer.objects.create(
        name_en="Acme AI Lab", name_zh="极智算力实验室", team=engineer.membership.team
    )
    design = design_create(owner=engineer, name="Training cluster", request_data=REQUEST)
    quote_ids = [
        quote_create(user=engineer, design=design, customer=customer).pk for _ in range(QUOTES)
    ]
    _token, secret = api_token_create(user=engineer, name="load", scope="read-write")

    shared = {
        **worker_env(settings),
        "REDIS_URL": settings.REDIS_URL,
        "JOB_LEASE_SECONDS": str(LEASE_SECONDS),
        "JOB_SWEEP_SECONDS": "2",
        "JOBS_PER_USER_MAX": "100",
        "JOBS_PER_TEAM_MAX": "100",
        "API_THROTTLE_USER": "100000/min",
        "NUM_PROXIES": "1",
        # Each web host's access log (in its own log file) shows which requests it served.
        "GUNICORN_ACCESS_LOG": "-",
        "LOG_LEVEL": "INFO",
    }
    logs = tmp_path / "logs"
    logs.mkdir()
    queues = f"{settings.CELERY_TASK_DEFAULT_QUEUE},{settings.DOCUMENTS_QUEUE}"

    def web(name: str, port: int) -> Host:
        env = {**shared, "GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "2"}
        return Host(name, [str(BIN / "gunicorn"), "config.wsgi:application"], env, logs)

    def worker(name: str) -> Host:
        argv = [str(BIN / "celery"), "-A", "config", "worker", "--pool", "prefork",
                "--concurrency", "1", "--without-gossip", "--without-mingle",
                "--loglevel", "INFO", "-Q", queues, "-n", f"{name}-{os.getpid()}@%h"]  # fmt: skip
        return Host(name, argv, shared, logs)

    ports = [_free_port(), _free_port()]
    lb_port = _free_port()
    hosts: list[Host] = []
    nginx = None
    try:
        hosts += [web("web-a", ports[0]), web("web-b", ports[1])]
        beat_argv = [str(BIN / "celery"), "-A", "config", "beat", "--loglevel", "INFO",
                     "--schedule", str(tmp_path / "beat-schedule")]  # fmt: skip
        beat = Host("beat", beat_argv, shared, logs)
        worker_a = worker("worker-a")
        hosts += [beat, worker_a]
        for host, port in zip(hosts[:2], ports, strict=True):
            _wait_listening(port, host.name, host.log_path)
        nginx = subprocess.Popen(
            [NGINX, "-c", str(nginx_config(tmp_path, lb_port, ports)), "-p", str(tmp_path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        )  # fmt: skip
        _wait_listening(lb_port, "nginx", tmp_path / "error.log")

        load = Load(f"http://127.0.0.1:{lb_port}", secret)
        readers = [threading.Thread(target=load.reader) for _ in range(3)]
        writer = threading.Thread(target=load.writer, args=(quote_ids, 0.5))
        for thread in [*readers, writer]:
            thread.start()

        # Worker A alone takes the first document; once it renders, worker B joins, and web A
        # and worker A die with it held.
        def rendering() -> list[Document]:
            return list(Document.objects.filter(status=DocumentStatus.RENDERING))

        wait_for(lambda: rendering(), 90, "worker A never started a render")
        [held] = rendering()
        worker_b = worker("worker-b")
        hosts.append(worker_b)
        time.sleep(0.3)
        with load.lock:
            in_flight_at_kill = load.in_flight
            answered_before_kill = len(load.outcomes)
        hosts[0].kill()  # web A
        worker_a.kill()
        time.sleep(8)  # load goes on against what is left
        load.stop.set()
        for thread in [*readers, writer]:
            thread.join(120)

        expected = QUOTES * 2
        wait_for(
            lambda: Document.objects.filter(status=DocumentStatus.READY).count() == expected,
            240,
            f"not every document got ready: {list(Document.objects.values('pk', 'status'))}",
        )
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(20)
        for host in hosts:
            host.stop()

    lost = [outcome for outcome in load.outcomes if outcome[1] not in (200, 202)]
    gets = sum(1 for what, _ in load.outcomes if what == "GET")
    documents = list(Document.objects.order_by("pk"))
    files = sorted(p for p in Path(settings.MEDIA_ROOT, "documents").rglob("*") if p.is_file())
    served = {
        name: (logs / f"{name}.log").read_text().count("GET /api/v1/quotes/")
        for name in ("web-a", "web-b")
    }
    taken_twice = [d.pk for d in documents if d.attempts > 1 and d.pk != held.pk]
    held_now = next(d for d in documents if d.pk == held.pk)
    figures = {
        "requests": len(load.outcomes),
        "served_by": served,
        "answered_before_kill": answered_before_kill,
        "get_requests": gets,
        "in_flight_at_kill": in_flight_at_kill,
        "lost": len(lost),
        "resent_document_requests": load.retried,
        "documents": len(documents),
        "jobs_taken_twice": len(taken_twice),
        "files": len(files),
        "takeover_attempts": held_now.attempts,
        # The three the issue asks for, each 0 when the claim holds. A job is taken once, but
        # for the render the killed worker held (taken twice, done once: its first take died).
        "requests_lost_beyond_in_flight": max(len(lost) - in_flight_at_kill, 0),
        "jobs_done_twice": len(taken_twice) + max(held_now.attempts - 2, 0),
        "documents_written_twice": len(files) - len({d.file.name for d in documents}),
    }
    print("several hosts:", json.dumps(figures))
    # Kept for the record (test-artifacts/, beside the screenshots): -q does not show the print.
    os.makedirs(ARTIFACTS, exist_ok=True)
    Path(ARTIFACTS, "several-hosts.json").write_text(json.dumps(figures, indent=2) + "\n")
    zeros = ("requests_lost_beyond_in_flight", "jobs_done_twice", "documents_written_twice")
    assert {name: figures[name] for name in zeros} == dict.fromkeys(zeros, 0), figures
    # Nothing lost beyond the requests in flight when web A died (nginx re-sent the rest).
    assert len(lost) <= in_flight_at_kill, (lost, figures)
    assert gets > 10, figures
    # Both hosts served (the balancer spread the load), and web B served what A no longer could.
    assert served["web-a"] > 0, figures
    assert served["web-b"] > 0, figures
    # Every answered GET is in an access log, but for those web A was serving when it was
    # killed: gunicorn logs a request after sending its answer, and a SIGKILL between the two
    # leaves it answered and unlogged (CI, ae9dbc4: 730 answered, 729 logged, 3 in flight).
    assert sum(served.values()) >= gets - in_flight_at_kill, figures
    # Every document asked for exists once (its key made a re-sent request the same one) ...
    assert len(documents) == expected, figures
    assert sorted(set(load.documents)) == [d.pk for d in documents]
    # ... was done exactly once: taken once, but for the render worker A held, taken over once.
    assert taken_twice == [], figures
    assert held_now.attempts == 2, figures
    # ... and written once: one file per document, the bytes its hash names.
    assert len(files) == expected, files
    by_name = {d.file.name: d for d in documents}
    for path in files:
        name = path.relative_to(settings.MEDIA_ROOT).as_posix()
        assert hashlib.sha256(path.read_bytes()).hexdigest() == by_name[name].sha256
