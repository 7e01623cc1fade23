"""The real pipeline: a task queued on commit travels through the broker to a separate worker
process, which writes its result to the database. Against PostgreSQL and Redis when they are
configured (always in CI), else SQLite and the filesystem broker that `make run` uses."""

import time

import pytest

from core.models import JobStatus, WorkerProbe
from core.services import worker_probe_request
from tests.conftest import IN_CI, require_service

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def _wait_for(predicate, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.slow
def test_worker_process_runs_task_and_writes_result(settings, start_worker):
    if IN_CI:
        # CI must prove the production pipeline, not the embedded fallback.
        require_service(bool(settings.REDIS_URL), "needs Redis: REDIS_URL is not set")
        require_service(
            settings.DATABASES["default"]["ENGINE"].endswith(".postgresql"),
            "needs PostgreSQL: DATABASE_URL is not set",
        )
    worker = start_worker()
    probe = worker_probe_request()

    def done():
        return WorkerProbe.objects.get(pk=probe.pk).status == JobStatus.DONE

    finished = _wait_for(done, 60)
    assert finished, worker.log_path.read_text()[-3000:]
    probe.refresh_from_db()
    assert probe.worker_hostname
    assert probe.attempts == 1
    assert probe.finished_at >= probe.created_at


@pytest.mark.slow
def test_nothing_is_queued_when_the_transaction_rolls_back(settings, start_worker):
    from django.db import transaction

    worker = start_worker()

    class Abort(Exception):
        pass

    def request_then_abort():
        with transaction.atomic():
            worker_probe_request()
            raise Abort

    with pytest.raises(Abort):
        request_then_abort()
    assert WorkerProbe.objects.count() == 0
    # A probe that does commit is still processed by the same worker afterwards.
    probe = worker_probe_request()
    assert _wait_for(lambda: WorkerProbe.objects.get(pk=probe.pk).status == JobStatus.DONE, 60), (
        worker.log_path.read_text()[-3000:]
    )
