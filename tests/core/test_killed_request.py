"""A request killed while it holds an Idempotency-Key (issue 18, item 2), with real processes:
gunicorn (gunicorn.conf.py, a 5 s timeout here) in front of PostgreSQL. The request is held on a
table lock, then its worker is SIGKILLed (out of memory) or aborted by gunicorn's own timeout.
A retry with the same key proceeds once the request timeout has passed (IDEMPOTENCY_IN_FLIGHT_
SECONDS = GUNICORN_TIMEOUT + 5) instead of getting 409 for 24 hours, and does the work once."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import connection, transaction

from core.models import IdempotencyKey, TokenScope, WebhookSubscription
from core.services import api_token_create
from tests.conftest import worker_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

TIMEOUT = 5
BODY = json.dumps({"url": "https://crm.example.com/hooks", "events": ["design.created"]})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Gunicorn:
    def __init__(self, settings, log_path: Path) -> None:
        self.port = free_port()
        self._log = log_path.open("ab")
        env = {
            **worker_env(settings),
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "GUNICORN_ACCESS_LOG": "",
            "GUNICORN_TIMEOUT": str(TIMEOUT),
            "WEB_CONCURRENCY": "1",
        }
        env.pop("IDEMPOTENCY_IN_FLIGHT_SECONDS", None)  # derived from GUNICORN_TIMEOUT
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi:application"],
            cwd=settings.BASE_DIR, env=env, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while self.workers() == [] or not self._listening():
            assert time.monotonic() < deadline, log_path.read_text()[-2000:]
            time.sleep(0.2)

    def _listening(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), 0.2).close()
            return True
        except OSError:
            return False

    def workers(self) -> list[int]:
        found = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True)
        return [int(pid) for pid in found.stdout.split()]

    def post(self, secret: str, key: str) -> tuple[int, dict]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/api/v1/webhooks/", data=BODY.encode(), method="POST",
            headers={"Authorization": f"Bearer {secret}", "Idempotency-Key": key,
                     "Content-Type": "application/json"},
        )  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            body = error.read()
            return error.code, json.loads(body) if body.startswith(b"{") else {}

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self._log.close()


@pytest.fixture
def gunicorn(settings, tmp_path, postgres_required):
    server = Gunicorn(settings, tmp_path / "gunicorn.log")
    yield server
    server.stop()


@pytest.mark.parametrize("killed_by", ["sigkill", "gunicorn-timeout"])
def test_a_retry_after_a_killed_request_proceeds(gunicorn, engineer, killed_by):
    _token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ_WRITE)
    assert gunicorn.post(secret, "warm-up")[0] == 201  # caches, catalog: no first-call delays
    WebhookSubscription.objects.all().delete()
    outcome: dict[str, object] = {}

    def first_request() -> None:
        try:
            outcome["first"] = gunicorn.post(secret, "killed")
        except OSError as error:  # the connection dies with the worker
            outcome["first"] = error

    with transaction.atomic():
        # The request stalls on this lock while it holds its key, as on a slow database.
        with connection.cursor() as cursor:
            cursor.execute("LOCK TABLE core_webhooksubscription IN ACCESS EXCLUSIVE MODE")
        client = threading.Thread(target=first_request)
        client.start()
        deadline = time.monotonic() + 20
        while not IdempotencyKey.objects.filter(key="killed", in_flight=True).exists():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        if killed_by == "sigkill":  # out of memory, or a kill -9
            [worker] = gunicorn.workers()
            os.kill(worker, signal.SIGKILL)
        else:  # gunicorn aborts the worker past its timeout
            client.join(TIMEOUT + 10)
        killed_at = time.monotonic()
        client.join(15)
    assert not isinstance(outcome["first"], tuple) or outcome["first"][0] >= 500
    assert WebhookSubscription.objects.count() == 0  # the killed request did nothing

    # A retry at once: while the key may still belong to a live request, 409 (or 201 when
    # the aborted request released it on its way out).
    status, _body = gunicorn.post(secret, "killed")
    assert status in (201, 409)
    while status == 409:
        assert time.monotonic() - killed_at < TIMEOUT + 5 + 5, "still 409 past the timeout"
        time.sleep(0.5)
        status, _body = gunicorn.post(secret, "killed")
    recovered = time.monotonic() - killed_at
    print(f"\n{killed_by}: the retry proceeded {recovered:.1f} s after the kill")
    assert status == 201
    assert WebhookSubscription.objects.count() == 1
    replay_status, _replay = gunicorn.post(secret, "killed")
    assert replay_status == 201
    assert WebhookSubscription.objects.count() == 1
