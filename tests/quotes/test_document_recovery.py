"""Fault tests with real processes (issue 18, item 2), at the production timings: a 30 s render
lease renewed every 10 s, the sweep every 15 s, a queued message stale after 60 s.

- A rendering worker killed with SIGKILL: another worker takes the document over within 60 s.
- A render longer than its lease is not taken over: the heartbeat keeps the lease.
- Redis restarted without persistence loses a queued job's message: the sweep sends it again
  once it is stale (within 2 minutes at the production defaults; the test runs it at shorter
  ones). With append-only persistence the message survives the restart.

Each ends with the document ready exactly once, in exactly one file whose bytes match its hash.
The times measured are printed (pytest -s) for the record."""

import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from celery import current_app
from django.core.files.storage import default_storage

from quotes.documents import document_request, documents_sweep
from quotes.models import Document, DocumentStatus
from tests.conftest import load_seed_catalog, require_service, worker_env
from tests.quotes.test_documents import REQUEST_64, make_quote
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.redis]

BIG = {**REQUEST_64, "gpus": 16384, "leaf": "64x800"}  # a few seconds to render
BIGGER = {**REQUEST_64, "gpus": 65536, "leaf": "64x800"}  # several seconds more


@pytest.fixture
def full_catalog(transactional_db):
    load_seed_catalog()


def row(document: Document) -> Document:
    return Document.objects.get(pk=document.pk)


def one_file_matching(document: Document) -> None:
    document.refresh_from_db()
    assert document.status == DocumentStatus.READY, document.error
    _dirs, files = default_storage.listdir(f"documents/{document.revision.quote.number}")
    assert [f"documents/{document.revision.quote.number}/{name}" for name in files] == [
        document.file.name
    ]
    with default_storage.open(document.file.name, "rb") as stored:
        assert hashlib.sha256(stored.read()).hexdigest() == document.sha256


class Beat:
    """`celery beat`, as docker-compose runs it: it sends the sweep every JOB_SWEEP_SECONDS."""

    def __init__(self, settings, tmp_path: Path) -> None:
        self.log_path = tmp_path / "beat.log"
        self._log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("celery")), "-A", "config", "beat",
             "--loglevel", "INFO", "--schedule", str(tmp_path / "beat-schedule")],
            cwd=settings.BASE_DIR, env=worker_env(settings), stdout=self._log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self._log.close()


@pytest.fixture
def start_beat(settings, tmp_path):
    beats: list[Beat] = []

    def start() -> Beat:
        beat = Beat(settings, tmp_path)
        beats.append(beat)
        return beat

    yield start
    for beat in beats:
        beat.stop()


def worker_ready(worker) -> bool:
    return worker.log_path.exists() and b" ready" in worker.log_path.read_bytes()


def rendered_by(worker) -> bool:
    """The worker received the render (the only one sent in the test)."""
    log = worker.log_path.read_bytes() if worker.log_path.exists() else b""
    return b"render_document_task[" in log


@pytest.fixture
def production_timings(settings, monkeypatch):
    """The defaults of config.settings.base, for this process and every worker and beat."""
    settings.JOB_LEASE_SECONDS = 30
    settings.JOB_HEARTBEAT_SECONDS = 10
    settings.JOB_SWEEP_SECONDS = 15
    settings.JOB_QUEUE_STALE_SECONDS = 60
    for name in ("JOB_HEARTBEAT_SECONDS", "JOB_SWEEP_SECONDS",
                 "JOB_QUEUE_STALE_SECONDS"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


def test_a_killed_render_is_taken_over_within_60_seconds(
    full_catalog, engineer, settings, production_timings, start_worker, start_beat, tmp_path,
    redis_required,
):  # fmt: skip
    quote = make_quote(engineer, request=BIG)
    workers = [start_worker(log_path=tmp_path / f"worker-{n}.log") for n in (1, 2)]
    start_beat()
    assert wait_until(lambda: all(worker_ready(w) for w in workers), 60)
    document = document_request(user=engineer, revision=quote.current_revision, language="en")
    assert wait_until(lambda: row(document).status == DocumentStatus.RENDERING, 60, every=0.02)
    [doomed] = [w for w in workers if rendered_by(w)]
    doomed.kill()
    killed_at = time.monotonic()
    assert row(document).status == DocumentStatus.RENDERING  # as the dead worker left it

    assert wait_until(lambda: row(document).attempts == 2, 90, every=0.2)
    taken_over = time.monotonic() - killed_at
    print(f"\nkilled render taken over after {taken_over:.1f} s")
    assert taken_over <= 60
    assert wait_until(lambda: row(document).status == DocumentStatus.READY, 120, every=0.2)
    print(f"killed render ready after {time.monotonic() - killed_at:.1f} s")
    one_file_matching(document)
    assert row(document).attempts == 2


def test_a_render_longer_than_its_lease_keeps_it(
    full_catalog, engineer, settings, monkeypatch, start_worker, redis_required
):
    """A 0.6 s lease renewed every 0.15 s by the worker's heartbeat; a render of several seconds
    (6-7 s here for 65,536 GPUs); the sweep runs all along and never takes the document away."""
    settings.JOB_LEASE_SECONDS = 0.6
    monkeypatch.setenv("JOB_HEARTBEAT_SECONDS", "0.15")
    quote = make_quote(engineer, request=BIGGER)
    start_worker()
    document = document_request(user=engineer, revision=quote.current_revision, language="en")
    assert wait_until(lambda: row(document).status == DocumentStatus.RENDERING, 60, every=0.02)
    started = time.monotonic()
    sweeps = 0
    while row(document).status == DocumentStatus.RENDERING and time.monotonic() - started < 120:
        assert documents_sweep() == {"requeued": 0, "failed": 0}
        sweeps += 1
        time.sleep(0.1)
    took = time.monotonic() - started
    print(f"\nrender took {took:.1f} s under a 0.6 s lease; {sweeps} sweeps took nothing")
    # Longer than its lease: without the heartbeat the sweep would have taken it over.
    assert took > settings.JOB_LEASE_SECONDS
    one_file_matching(document)
    assert row(document).attempts == 1


# --- A Redis of the test's own, restarted -------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """redis-server on a port of its own, as docker-compose runs it (`--appendonly yes`) or
    without persistence; `restart` stops it as `docker restart` does (SIGTERM) and starts it."""

    def __init__(self, tmp_path: Path, *, appendonly: bool) -> None:
        self.port = free_port()
        self.dir = tmp_path / "redis"
        self.dir.mkdir()
        self.args = [
            "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.dir), "--save", "", "--appendonly", "yes" if appendonly else "no",
        ]  # fmt: skip
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def cli(self, *args: str) -> str:
        return subprocess.run(
            ["redis-cli", "-p", str(self.port), *args], capture_output=True, text=True, timeout=10
        ).stdout.strip()

    def start(self) -> None:
        self.proc = subprocess.Popen(
            self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        assert wait_until(lambda: self.cli("ping") == "PONG", 10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(15)

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture
def own_redis(tmp_path, monkeypatch):
    """Workers and beat use it (REDIS_URL in their environment); this process sends to it."""
    import shutil

    require_service(shutil.which("redis-server") is not None, "needs redis-server")
    servers: list[RedisServer] = []

    def start(*, appendonly: bool) -> RedisServer:
        server = RedisServer(tmp_path, appendonly=appendonly)
        servers.append(server)
        monkeypatch.setenv("REDIS_URL", server.url)

        def send(task: str, job_id: int) -> None:
            with current_app.connection_for_write(server.url) as connection:
                current_app.send_task(task, args=[job_id], connection=connection)

        monkeypatch.setattr("core.jobs.task_send", send)
        return server

    yield start
    for server in servers:
        server.stop()


# A lost message is sent again within stale + sweep period. At the production defaults that is
# 60 + 15 = 75 s, under the 2 minutes promised; the restart test runs the same path at a tenth
# of it (a message stale after 6 s, a sweep every 2 s), which saves a minute of every test run.
SHORT_STALE_SECONDS = 6
SHORT_SWEEP_SECONDS = 2


def test_the_production_defaults_send_a_lost_job_again_within_2_minutes():
    from config.settings import base

    # The worker's start and the render itself (a few seconds) fit in what is left of the 120 s.
    assert base.JOB_QUEUE_STALE_SECONDS + base.JOB_SWEEP_SECONDS <= 120 - 30


@pytest.fixture
def short_timings(settings, monkeypatch):
    """Production's lease and heartbeat, a shorter stale age and sweep period, for this process
    and every worker and beat."""
    settings.JOB_LEASE_SECONDS = 30
    settings.JOB_HEARTBEAT_SECONDS = 10
    settings.JOB_SWEEP_SECONDS = SHORT_SWEEP_SECONDS
    settings.JOB_QUEUE_STALE_SECONDS = SHORT_STALE_SECONDS
    monkeypatch.delenv("JOB_HEARTBEAT_SECONDS", raising=False)
    monkeypatch.setenv("JOB_SWEEP_SECONDS", str(SHORT_SWEEP_SECONDS))
    monkeypatch.setenv("JOB_QUEUE_STALE_SECONDS", str(SHORT_STALE_SECONDS))


@pytest.mark.parametrize("appendonly", [False, True], ids=["no-persistence", "append-only"])
def test_a_job_lost_with_a_redis_restart_is_queued_again(
    full_catalog, engineer, settings, short_timings, own_redis, start_worker, start_beat,
    appendonly,
):  # fmt: skip
    redis = own_redis(appendonly=appendonly)
    quote = make_quote(engineer, request=REQUEST_64)
    document = document_request(user=engineer, revision=quote.current_revision, language="en")
    assert redis.cli("llen", settings.DOCUMENTS_QUEUE) == "1"  # sent; no worker yet
    redis.restart()
    restarted_at = time.monotonic()
    assert redis.cli("llen", settings.DOCUMENTS_QUEUE) == ("1" if appendonly else "0")
    worker = start_worker()
    start_beat()

    assert wait_until(lambda: row(document).attempts >= 1, 150, every=0.2), (
        worker.log_path.read_text()[-3000:]
    )
    picked_up = time.monotonic() - restarted_at
    print(f"\n{'append-only' if appendonly else 'no persistence'}: job picked up {picked_up:.1f} s "
          "after the Redis restart")  # fmt: skip
    # Stale age plus one sweep period, and up to 10 s for a worker to start on a busy machine.
    assert picked_up <= SHORT_STALE_SECONDS + SHORT_SWEEP_SECONDS + 10
    if not appendonly:  # the message was lost: only the sweep can have sent it again
        assert picked_up >= SHORT_STALE_SECONDS - 3  # sent a moment before the restart
    assert wait_until(lambda: row(document).status == DocumentStatus.READY, 60, every=0.2)
    one_file_matching(document)
    assert row(document).attempts == 1
