"""Degrade, don't fall over: with the cache's Redis stopped the API authenticates from the
database, rate-limits per process and answers; /health/ says what is down; when Redis is back,
the shared cache is used again.

The Redis stopped here is a private redis-server started by the test on a free port (never the
shared one that REDIS_URL names)."""

import shutil
import signal
import socket
import subprocess
import time
from collections import Counter

import pytest
import redis
from django.db import OperationalError
from rest_framework.test import APIClient
from rest_framework.throttling import UserRateThrottle

from core.models import TokenScope
from core.services import api_token_create
from core.throttling import UserRateLimit, local_counters
from tests.conftest import require_service

pytestmark = pytest.mark.django_db

LIST = "/api/v1/designs/"
PREVIEW = "/api/v1/designs/preview/"
ME = "/api/v1/me/"
SMALL = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateRedis:
    """A throwaway redis-server without persistence, stopped and started by the test."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                shutil.which("redis-server") or "redis-server",
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server did not start on port {self.port}") from None
                time.sleep(0.05)
        client.close()

    def freeze(self) -> None:
        """SIGSTOP: the port still accepts connections (the kernel's backlog) and nothing answers,
        as with a hung host or a full network path: the fault no refused connection reveals."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        """SIGTERM, as an orchestrator stops a container, and wait until the port is closed."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a frozen server acts on SIGTERM only then
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(10)
        self.proc = None

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_connect_timeout=0.2)


@pytest.fixture
def private_redis(settings):
    require_service(shutil.which("redis-server") is not None, "needs redis-server on the PATH")
    server = PrivateRedis()
    server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.ResilientRedisCache",
            "LOCATION": server.url,
            "DOWN_SECONDS": 0.5,
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.5},
        }
    }
    local_counters.clear()
    yield server
    server.stop()
    local_counters.clear()


def _bearer(user) -> APIClient:
    _token, secret = api_token_create(user=user, name="crm", scope=TokenScope.READ_WRITE)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def _calls(client: APIClient, count: int) -> tuple[Counter[int], float]:
    """Alternate the design list and a preview; the statuses and the slowest call (s)."""
    statuses: Counter[int] = Counter()
    slowest = 0.0
    for i in range(count):
        started = time.perf_counter()
        response = client.post(PREVIEW, SMALL, format="json") if i % 2 else client.get(LIST)
        slowest = max(slowest, time.perf_counter() - started)
        statuses[response.status_code] += 1
    return statuses, slowest


def test_the_api_serves_through_a_redis_outage_and_resumes_after_it(
    private_redis, catalog, engineer, client, monkeypatch
):
    api = _bearer(engineer)

    # Normal operation: tokens and throttle counters are in the private Redis.
    statuses, _ = _calls(api, 6)
    assert statuses == Counter({200: 6})
    keys = [k.decode() for k in private_redis.client().keys("*")]
    assert any("api-token:" in k for k in keys), keys
    assert any("throttle_user" in k for k in keys), keys
    health = client.get("/health/")
    assert health.status_code == 200
    assert health.json()["checks"]["cache"]["status"] == "ok"

    private_redis.stop()

    # The outage: every call answers (no 500), from the database and per-process limits; the
    # catalog snapshot is rebuilt once for the outage, not on every preview.
    import planner.selectors

    builds = []
    build = planner.selectors.catalog_snapshot
    monkeypatch.setattr(planner.selectors, "catalog_snapshot", lambda: builds.append(1) or build())
    statuses, slowest = _calls(api, 30)
    assert statuses == Counter({200: 30}), statuses
    assert slowest < 5, slowest
    assert len(builds) <= 1
    health = client.get("/health/")
    assert health.status_code == 200
    body = health.json()
    assert body["status"] == "degraded"
    assert body["checks"]["cache"]["status"] == "down"
    assert body["checks"]["database"]["status"] == "ok"

    # Throttling still limits a burst, in this process, with 429 + Retry-After.
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "10/min", "anon": "10/min"})
    monkeypatch.setattr(UserRateLimit, "timer", lambda self: 6_000_000.0 + 45)
    local_counters.clear()
    burst = [api.get(ME) for _ in range(15)]
    assert [r.status_code for r in burst] == [200] * 10 + [429] * 5
    assert burst[-1]["Retry-After"] == "15"
    assert burst[-1]["Content-Type"] == "application/problem+json"
    monkeypatch.undo()

    # Redis is back (empty: no persistence): shared caching and counting resume.
    private_redis.start()
    time.sleep(0.6)  # DOWN_SECONDS: the backend asks Redis again after this
    statuses, _ = _calls(api, 6)
    assert statuses == Counter({200: 6})
    keys = [k.decode() for k in private_redis.client().keys("*")]
    assert any("api-token:" in k for k in keys), keys
    assert any("throttle_user" in k for k in keys), keys
    health = client.get("/health/")
    assert health.status_code == 200
    assert health.json()["checks"]["cache"]["status"] == "ok"


def test_token_auth_and_throttling_survive_a_plain_redis_cache_that_raises(
    settings, engineer, client
):
    """Without the degrading backend (any cache that raises), the call sites still degrade."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{_free_port()}/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.25},
        }
    }
    local_counters.clear()
    api = _bearer(engineer)
    assert [api.get(ME).status_code for _ in range(3)] == [200, 200, 200]
    assert APIClient().get(ME, HTTP_AUTHORIZATION="Bearer ezm_nope_nope").status_code == 401
    health = client.get("/health/")
    assert health.status_code == 200
    assert health.json()["checks"]["cache"]["status"] == "down"
    local_counters.clear()


def test_health_is_503_when_the_database_does_not_answer(client, monkeypatch):
    from django.db import connections

    def refuse(self, *args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(type(connections["default"]), "cursor", refuse)
    response = client.get("/health/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down"
    assert body["checks"]["database"] == {"status": "down", "error": "OperationalError"}
    assert "worker" not in body["checks"]


def test_health_reports_every_dependency(client):
    body = client.get("/health/").json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "broker", "worker", "queue", "sweeps"}
    assert body["checks"]["worker"]["status"] in {"unknown", "seen"}
    assert body["checks"]["queue"] == {"status": "ok", "oldest_queued_seconds": 0}
    assert body["checks"]["sweeps"] == {"status": "unknown"}  # no sweep has run yet


def _ago(seconds: float):
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() - timedelta(seconds=seconds)


def test_health_is_degraded_when_a_queued_job_waits_too_long(client, settings):
    """Issue 29: a queue no worker took said "ok" throughout. The sweep's re-sends (which renew
    `queued_at`) must not hide it: a re-sent job counts from its creation."""
    from core.models import WorkerProbe

    settings.HEALTH_QUEUED_JOB_MAX_SECONDS = 300
    fresh = WorkerProbe.objects.create(queued_at=_ago(5))
    body = client.get("/health/").json()
    assert body["status"] == "ok"
    assert 4 <= body["checks"]["queue"]["oldest_queued_seconds"] <= 10

    # Created 10 minutes ago, its message re-sent by the sweep a moment ago: still waiting.
    resent = WorkerProbe.objects.create(queued_at=_ago(2), step="requeued")
    WorkerProbe.objects.filter(pk=resent.pk).update(created_at=_ago(600))
    body = client.get("/health/").json()
    assert body["status"] == "degraded"
    assert body["checks"]["queue"]["status"] == "late"
    assert body["checks"]["queue"]["oldest_queued_seconds"] >= 600

    # Taken by a worker: the queue is back to the fresh job alone.
    WorkerProbe.objects.filter(pk=resent.pk).update(status=WorkerProbe.RUNNING)
    assert client.get("/health/").json()["status"] == "ok"
    # A message never sent (broker down) counts from the job's creation too.
    WorkerProbe.objects.filter(pk=fresh.pk).update(queued_at=None, created_at=_ago(301))
    body = client.get("/health/").json()
    assert body["status"] == "degraded"
    assert body["checks"]["queue"]["status"] == "late"


def test_health_is_degraded_when_a_sweep_is_late(client, settings):
    """Issue 29: no sweep ran for 48 minutes and a killed render sat at 75 % while /health/ said
    "ok". Every sweep records its run (core.jobs.jobs_sweep)."""
    from core.jobs import jobs_sweep
    from core.models import SweepRun
    from core.services import PROBES

    settings.HEALTH_SWEEP_MAX_SECONDS = 60
    jobs_sweep(kind=PROBES)
    body = client.get("/health/").json()
    assert body["status"] == "ok"
    sweeps = body["checks"]["sweeps"]
    assert sweeps["status"] == "ok"
    assert sweeps["each_seconds"] == {"core.WorkerProbe": 0}
    SweepRun.objects.filter(name="core.WorkerProbe").update(finished_at=_ago(61))
    body = client.get("/health/").json()
    assert body["status"] == "degraded"
    assert body["checks"]["sweeps"]["status"] == "late"
    assert body["checks"]["sweeps"]["last_run_seconds"] >= 61
    jobs_sweep(kind=PROBES)  # beat and the sweeps worker are back
    assert client.get("/health/").json()["status"] == "ok"


def test_the_backend_stands_in_while_redis_is_down_and_forgets_it_after(private_redis):
    from django.core.cache import cache

    from core.cache import CacheUnavailable

    cache.set("kept", "shared")
    private_redis.stop()
    assert cache.get("kept") is None  # what Redis held is not there
    assert cache.add("k", "local") is True
    assert cache.get("k") == "local"  # the process's own cache stands in
    with pytest.raises(CacheUnavailable):
        cache.incr("k")  # counters must know nothing was counted in the shared cache
    assert cache.ping() is False  # type: ignore[attr-defined]
    private_redis.start()
    assert cache.ping() is True  # type: ignore[attr-defined]
    assert cache.get("k") is None  # the stand-in's entries are dropped on recovery
    cache.set("n", 1)
    assert cache.incr("n") == 2


def test_the_backend_builds_one_redis_client_not_one_per_call(private_redis, monkeypatch):
    """Django's backend made a `redis.Redis` (some 170 callbacks filled in) on every call: a
    third of a millisecond of each API request, three calls a request. One per pool now."""
    from django.core.cache import cache

    built: list[int] = []
    real_init = redis.Redis.__init__

    def counting_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counting_init)
    for n in range(20):
        cache.set(f"k{n}", n)
        assert cache.get(f"k{n}") == n
    assert cache.incr("k1") == 2
    # One client for writes and one for reads (Django picks a replica for reads), at most.
    assert 1 <= len(built) <= 2


def test_the_rate_limit_counts_in_redis_in_one_round_trip(private_redis, engineer, monkeypatch):
    """A shared window's counter is one INCR and one EXPIRE, pipelined: 3 calls a minute pass,
    the 4th is refused, and the counter lives a window and a second (61 s), no longer."""
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/min", "anon": "3/min"})
    api = _bearer(engineer)
    sent: list[int] = []
    real_execute = redis.client.Pipeline.execute

    def counting_execute(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        sent.append(len(self.command_stack))
        return real_execute(self, *args, **kwargs)

    monkeypatch.setattr(redis.client.Pipeline, "execute", counting_execute)
    assert [api.get(ME).status_code for _ in range(4)] == [200, 200, 200, 429]
    assert sent == [2, 2, 2, 2]  # one round trip of two commands per call
    client = private_redis.client()
    [key] = [k for k in client.keys("*") if b"throttle" in k]
    assert int(client.get(key)) == 4
    assert 0 < client.ttl(key) <= 61
    client.close()


def test_local_counters_keep_windows_of_different_lengths_apart():
    from core.throttling import _LocalCounters

    counters = _LocalCounters()
    assert counters.incr("hourly", 3600.0, 100.0) == 1
    assert counters.incr("minutely", 120.0, 100.0) == 1
    assert counters.incr("minutely", 180.0, 121.0) == 1  # a new minute: the old one is dropped
    assert counters.incr("hourly", 3600.0, 121.0) == 2  # the open hour is kept
