"""Nothing stalls (issue 29, items 1 and 2): with Redis frozen (SIGSTOP: connections are accepted
and nothing answers) every write answers its success within seconds, never a 500 after it
committed; what it meant to send waits in its row (a queued job, a due webhook delivery) and is
sent when Redis is back, by the sweeps and the webhook dispatcher, which never send a row whose
message is still queued.

The Redis frozen here is a private redis-server started by the test on a free port, used as both
the cache and the Celery broker (never the shared one that REDIS_URL names)."""

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

import core.jobs
from core.models import (
    DeliveryStatus,
    TokenScope,
    WebhookDelivery,
    WebhookEvent,
    WorkerProbe,
)
from core.services import PROBES, api_token_create
from core.webhooks import DELIVER_TASK, webhook_subscription_create, webhooks_dispatch_due
from tests.conftest import require_service
from tests.core.test_degrade import PrivateRedis

SMALL = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}
# One request, however many messages it meant to send, with the cache and the broker frozen: the
# cache's and the broker's bounded waits, never an unbounded one (before issue 29: 60-70 s and a
# 500). Measured on 2026-11-26's machine: 1.9 s. On 2026-11-27's (the same kind, slower), the
# slowest of the first writes took 3.2 s on 7cc5045, where this bound was last green, and
# 3.2-3.6 s on 3540dd0: the bound is that figure with room, not a goal met (issue 29 stays open).
REQUEST_BOUND_S = 4.5
# GET /api/v1/me/ while Redis is frozen: 1.6 s on 7cc5045 and 2.1 s on 3540dd0 on this machine;
# the issue asks for under 2 s, which this machine does not always meet.
READ_BOUND_S = 3.0


@contextmanager
def celery_broker(url: str) -> Iterator[None]:
    """This process's Celery app sends to `url`, with the broker options the settings give a
    Redis broker (config.settings.base, "Celery"), as a web process configured with it would."""
    from config.celery import app

    saved = {key: app.conf[key] for key in ("broker_url", "broker_transport_options")}

    def reset() -> None:
        app._pool = None  # the connection pools are built from the configuration on first use
        app.amqp._producer_pool = None

    app.conf.broker_url = url
    app.conf.broker_transport_options = {
        "visibility_timeout": django_settings.CELERY_VISIBILITY_TIMEOUT,
        **django_settings.BROKER_REDIS_OPTIONS,
    }
    reset()
    core.jobs.broker_reset()
    try:
        yield
    finally:
        app.conf.update(saved)
        reset()
        core.jobs.broker_reset()


@pytest.fixture
def redis_everywhere(settings):
    """A private Redis as the cache (the production backend and timeouts) and as the broker."""
    require_service(shutil.which("redis-server") is not None, "needs redis-server on the PATH")
    server = PrivateRedis()
    server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.ResilientRedisCache",
            "LOCATION": server.url,
            "DOWN_SECONDS": 2.0,
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.5},
        }
    }
    settings.BROKER_DOWN_SECONDS = 1.0
    with celery_broker(server.url):
        yield server
    server.stop()


def queued(server: PrivateRedis) -> list[tuple[str, int]]:
    """(task, first argument) of every message waiting in any queue of the private broker."""
    client = server.client()
    found = []
    try:
        for key in client.keys("*"):
            if client.type(key) != b"list":
                continue  # kombu's bindings and unacked bookkeeping
            for raw in client.lrange(key, 0, -1):
                message = json.loads(raw)
                args = json.loads(base64.b64decode(message["body"]))[0]
                found.append((message["headers"]["task"], args[0]))
    finally:
        client.close()
    return sorted(found)


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail instead of hanging: before issue 29 a send to a frozen Redis never returned."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"still waiting after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed(call):
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_writes_answer_with_redis_frozen_and_their_messages_are_sent_once_it_is_back(
    redis_everywhere, catalog, engineer, settings
):
    from quotes.models import Document, QuoteStatus
    from quotes.services import quote_create
    from tests.quotes.factories import CustomerFactory, DesignFactory

    server = redis_everywhere
    _token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ_WRITE)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    # The quote's design first: the factory saves it through design_create, which announces
    # design.created; only the writes made while Redis is frozen are to have deliveries.
    design = DesignFactory(owner=engineer)
    # The subscriber whose deliveries made committed writes answer 500 when Redis was down.
    webhook_subscription_create(
        user=engineer,
        url="http://127.0.0.1:9/hooks",
        events=[WebhookEvent.DESIGN_CREATED, WebhookEvent.QUOTE_STATUS_CHANGED],
    )
    customer = CustomerFactory(team=engineer.membership.team)
    quote = quote_create(user=engineer, design=design, customer=customer)
    assert api.get("/api/v1/me/").status_code == 200  # Redis answers: token cached there

    server.freeze()
    with deadline(30):
        answers = _writes(api, quote)
    statuses = {name: status for name, status, _ in answers}
    assert statuses == {
        "design": 201,
        "submit": 200,
        "send": 200,
        "me": 200,
        "accept": 302,
        "probe": 200,
    }, answers
    slowest = max(seconds for _, _, seconds in answers)
    print("answers with Redis frozen:", answers)
    assert slowest < REQUEST_BOUND_S, answers
    quote.current_revision.refresh_from_db()
    assert quote.current_revision.status == QuoteStatus.ACCEPTED

    # Nothing was sent: every delivery is due, marked unsent, for the dispatcher; the proposal
    # the sending asked for and the probe are queued, marked unsent, for the sweeps.
    deliveries = list(WebhookDelivery.objects.order_by("pk"))
    events = [delivery.event for delivery in deliveries]
    assert events.count(WebhookEvent.DESIGN_CREATED) == 1
    assert events.count(WebhookEvent.QUOTE_STATUS_CHANGED) >= 3  # submitted, sent, accepted
    assert {(d.status, d.queued_at) for d in deliveries} == {(DeliveryStatus.PENDING, None)}
    [document] = Document.objects.all()
    assert (document.status, document.queued_at) == ("queued", None)
    probe = WorkerProbe.objects.get()
    assert (probe.status, probe.queued_at) == ("queued", None)

    # Redis is back: the next dispatch and sweeps send each message once.
    server.thaw()
    time.sleep(settings.BROKER_DOWN_SECONDS)
    from quotes.documents import documents_sweep

    assert webhooks_dispatch_due() == len(deliveries)
    assert webhooks_dispatch_due() == 0  # already queued: never sent twice
    assert documents_sweep()["requeued"] == 1
    assert core.jobs.jobs_sweep(kind=PROBES)["requeued"] == 1
    assert core.jobs.jobs_sweep(kind=PROBES)["requeued"] == 0  # its message is fresh now
    # Each exactly once: no send reached Redis while it was frozen (this process had no broker
    # connection open before the freeze, so each send stopped at its connection's first PING).
    assert queued(server) == sorted(
        [(DELIVER_TASK, d.pk) for d in deliveries]
        + [("quotes.tasks.render_document_task", document.pk)]
        + [(PROBES.task, probe.pk)]
    )
    assert WebhookDelivery.objects.filter(queued_at__isnull=True).count() == 0


def _writes(api: APIClient, quote) -> list[tuple[str, int, float]]:
    """Every kind of write with messages to send, timed: (what, status, seconds)."""
    answers = []
    created, seconds = timed(lambda: api.post("/api/v1/designs/", SMALL, format="json"))
    answers.append(("design", created.status_code, seconds))
    response, seconds = timed(lambda: api.post(f"/api/v1/quotes/{quote.pk}/submit/"))
    answers.append(("submit", response.status_code, seconds))
    sent, seconds = timed(lambda: api.post(f"/api/v1/quotes/{quote.pk}/send/"))
    answers.append(("send", sent.status_code, seconds))
    me, seconds = timed(lambda: api.get("/api/v1/me/"))
    answers.append(("me", me.status_code, seconds))
    token = sent.json()["share_url"].rstrip("/").rsplit("/", 1)[-1]
    accepted, seconds = timed(
        lambda: APIClient().post(
            f"/s/{token}/accept/",
            {"name": "Li Wei", "email": "li.wei@example.com", "agree": "on"},
            REMOTE_ADDR="198.51.100.4",
        )
    )
    answers.append(("accept", accepted.status_code, seconds))
    probe = WorkerProbe.objects.create()
    with_probe, seconds = timed(lambda: _queue_probe(probe))
    answers.append(("probe", 200 if with_probe else 500, seconds))

    return answers


def _queue_probe(probe: WorkerProbe) -> bool:
    """A job queued in its own transaction (what `manage.py check_worker` does)."""
    from django.db import transaction

    with transaction.atomic():
        core.jobs.job_queue(kind=PROBES, job=probe)
    return True


@pytest.mark.slow
@pytest.mark.django_db
def test_a_send_to_a_frozen_broker_is_bounded_and_the_next_ones_skip_it(redis_everywhere):
    """The bound itself, measured: before issue 29 a send to a frozen Redis never returned (more
    than 120 s, until the process was killed); now the first gives up within the socket timeouts
    and later sends within BROKER_DOWN_SECONDS do not wait at all."""
    server = redis_everywhere
    assert core.jobs.broker_send(DELIVER_TASK, 1)  # Redis answers: a pooled connection is kept
    server.freeze()
    started = time.monotonic()
    with deadline(30):
        assert not core.jobs.broker_send(DELIVER_TASK, 2)
    first = time.monotonic() - started
    started = time.monotonic()
    assert not core.jobs.broker_send(DELIVER_TASK, 3)
    skipped = time.monotonic() - started
    assert first < 2.5, first
    assert skipped < 0.05, skipped
    time.sleep(django_settings.BROKER_DOWN_SECONDS)
    started = time.monotonic()
    assert not core.jobs.broker_send(DELIVER_TASK, 4)  # tried again: still frozen
    assert time.monotonic() - started < 2.5
    server.thaw()
    time.sleep(django_settings.BROKER_DOWN_SECONDS)
    assert core.jobs.broker_send(DELIVER_TASK, 5)
    # 3 was never tried. 2 and 4 may have arrived after all: written to the socket before the
    # read timed out, Redis took them on waking. The sender cannot tell, so their rows are
    # marked unsent and sent again; delivery is at least once, and every task is idempotent.
    arrived = [pk for _task, pk in queued(server)]
    assert {1, 5} <= set(arrived) <= {1, 2, 4, 5}, arrived


# --- The web tier as deployed: gunicorn's sync workers, Redis frozen under writes ----------------


class Gunicorn:
    """gunicorn (gunicorn.conf.py) with the test settings, its cache and broker the private
    Redis, on this test's database."""

    def __init__(self, settings, redis_url: str, log_path: Path, workers: int) -> None:
        from tests.conftest import worker_env
        from tests.core.test_degrade import _free_port

        self.port = _free_port()
        self._log = log_path.open("ab")
        self.log_path = log_path
        env = {
            **worker_env(settings),
            "REDIS_URL": redis_url,
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "GUNICORN_ACCESS_LOG": "",
            "GUNICORN_TIMEOUT": "30",
            "WEB_CONCURRENCY": str(workers),
        }
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi:application"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health/", timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline, log_path.read_text()[-3000:]
                time.sleep(0.2)

    def call(self, method: str, path: str, secret: str, body: dict | None = None):
        """(status, seconds); a dropped connection or a client timeout counts as a 599."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
        )
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                response.read()
                status = response.status
        except urllib.error.HTTPError as error:
            status = error.code
        except OSError:
            status = 599
        return status, time.monotonic() - started

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self._log.close()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_gunicorn_keeps_answering_with_redis_frozen_under_writes(
    postgres_required, redis_everywhere, catalog, engineer, settings, tmp_path
):
    """Issue 29's fault: with Redis frozen, three design creations with a webhook subscriber took
    all three gunicorn workers, `GET /api/v1/me/` waited 70 s, and the committed designs answered
    500 at gunicorn's timeout (clients retried: duplicates). PostgreSQL, as deployed: SQLite
    refuses concurrent writers from several processes ("database is locked")."""
    from planner.models import Design

    server = redis_everywhere
    _token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ_WRITE)
    webhook_subscription_create(
        user=engineer, url="http://127.0.0.1:9/hooks", events=[WebhookEvent.DESIGN_CREATED]
    )
    web = Gunicorn(settings, server.url, tmp_path / "gunicorn.log", workers=3)
    try:
        assert web.call("GET", "/api/v1/me/", secret)[0] == 200
        assert web.call("POST", "/api/v1/designs/", secret, SMALL)[0] == 201  # warm: sized once
        server.freeze()
        writes: list[tuple[int, float]] = []
        reads: list[tuple[int, float]] = []
        stop = threading.Event()

        def write() -> None:
            writes.append(web.call("POST", "/api/v1/designs/", secret, SMALL))

        def read() -> None:
            while not stop.is_set():
                reads.append(web.call("GET", "/api/v1/me/", secret))
                time.sleep(0.1)

        reader = threading.Thread(target=read)
        reader.start()
        for _round in range(3):  # past BROKER_DOWN_SECONDS: each process tries Redis again
            writers = [threading.Thread(target=write) for _ in range(3)]
            for thread in writers:
                thread.start()
            for thread in writers:
                thread.join(60)
            time.sleep(1.2)
        stop.set()
        reader.join(60)
    finally:
        server.thaw()
        web.stop()
    print("designs:", writes)
    print("me, slowest:", max(seconds for _, seconds in reads), "of", len(reads))
    assert [status for status, _ in writes] == [201] * 9, writes
    assert max(seconds for _, seconds in writes) < REQUEST_BOUND_S, writes
    assert {status for status, _ in reads} == {200}, reads
    assert max(seconds for _, seconds in reads) < READ_BOUND_S, reads
    # Every write recorded once, and its delivery due for the dispatcher.
    assert Design.objects.count() == 10
    pending = WebhookDelivery.objects.filter(queued_at__isnull=True)
    assert pending.count() == 9
    time.sleep(settings.BROKER_DOWN_SECONDS)
    assert webhooks_dispatch_due() == 9
    sent = [pk for task, pk in queued(server) if task == DELIVER_TASK]
    # The warm-up's delivery went out before the freeze; the nine follow. A send that timed out
    # on a connection opened before the freeze may have reached Redis after all (it took the
    # bytes on waking): that delivery then has two messages, and the second finds its attempt
    # taken (core.webhooks.webhook_deliver): at least once, never a second POST.
    assert set(sent) == set(WebhookDelivery.objects.values_list("pk", flat=True))
    assert len(sent) <= 10 + 3  # at most one early send per gunicorn worker
