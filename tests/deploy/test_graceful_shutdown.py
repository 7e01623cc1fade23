"""Graceful shutdown of a worker pod (issue 30, item 2): the documents worker, run with the
production overlay's own command (`sh -c "exec celery ... --concurrency 1 ..."`, so Celery is the
container's PID 1), against Redis.

Two documents are asked for. While the worker renders the first, the second's message is still in
the broker's list: the worker holds no more than it runs (CELERY_WORKER_PREFETCH_MULTIPLIER=1,
CELERY_TASK_ACKS_LATE), so a pod KEDA adds can take it. Then the worker gets SIGTERM, as the
kubelet sends it on a scale-in, a drain or a rollout: it finishes the render it holds (ready,
taken once), within the pod's terminationGracePeriodSeconds, and exits without taking the
second, which stays queued in the broker for the next pod, which renders it once."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from quotes.documents import document_request, documents_sweep
from quotes.models import Document, DocumentStatus
from tests.conftest import load_seed_catalog, worker_env
from tests.deploy.test_manifests import OVERLAY, one, render
from tests.quotes.test_documents import REQUEST_64, make_quote
from tests.waiting import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.worker, pytest.mark.redis]

ROOT = Path(__file__).resolve().parent.parent.parent
BIN = Path(sys.executable).parent
# Several seconds to render (tests/quotes/test_document_recovery.py): long enough to be stopped
# in the middle of it.
LONG_RENDER = {**REQUEST_64, "gpus": 65536, "leaf": "64x800"}


def documents_worker() -> tuple[str, int]:
    """The documents worker's shell command and grace period, as the overlay renders them."""
    deployment = one(render(OVERLAY), "Deployment", "ezmax-worker-documents")
    pod = deployment["spec"]["template"]["spec"]
    [container] = pod["containers"]
    shell, flag, command = container["command"]
    assert (shell, flag) == ("sh", "-c")
    assert command.startswith("exec celery ")  # Celery itself receives the kubelet's SIGTERM
    return command, pod["terminationGracePeriodSeconds"]


class Pod:
    """The container's command in a process group of its own; `pid` is the container's PID 1."""

    def __init__(self, command: str, env: dict[str, str], log_path: Path) -> None:
        self.log_path = log_path
        self._log = log_path.open("ab")
        self.proc = subprocess.Popen(
            ["sh", "-c", command], cwd=ROOT, env=env, stdout=self._log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def ready(self) -> bool:
        return b" ready" in self.log_path.read_bytes()

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self._log.close()


@pytest.mark.django_db(transaction=True)
def test_a_stopped_documents_worker_finishes_its_render_and_leaves_the_queued_one(
    redis_required, engineer, settings, tmp_path
):
    command, grace = documents_worker()
    queue = settings.DOCUMENTS_QUEUE  # this test process's own, in place of `documents`
    ours = command.replace("-Q documents ", f"-Q {queue} ")
    assert ours != command, command
    env = {**worker_env(settings), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    broker = redis.Redis.from_url(settings.REDIS_URL)
    broker.delete(queue)

    load_seed_catalog()
    quote = make_quote(engineer, request=LONG_RENDER)
    pods: list[Pod] = []

    def pod(name: str) -> Pod:
        started = Pod(ours.replace("-n documents@%h", f"-n {name}-{os.getpid()}@%h"), env,
                      tmp_path / f"{name}.log")  # fmt: skip
        pods.append(started)
        wait_for(started.ready, 60, f"{name} never got ready: {started.log_path.read_text()}")
        return started

    try:
        first = pod("pod-a")
        asked = [
            document_request(user=engineer, revision=quote.current_revision, language=language)
            for language in ("en", "zh-hans")
        ]

        def rendering() -> list[Document]:
            return list(Document.objects.filter(status=DocumentStatus.RENDERING))

        wait_for(rendering, 60, f"no render started: {first.log_path.read_text()}")
        [running] = rendering()
        [waiting] = [d for d in asked if d.pk != running.pk]
        time.sleep(0.5)  # time enough to take a second message, if it were going to
        # Not prefetched: the second message is still the broker's, for any pod to take.
        assert broker.llen(queue) == 1
        assert Document.objects.get(pk=waiting.pk).status == DocumentStatus.QUEUED

        os.kill(first.proc.pid, signal.SIGTERM)  # the kubelet's, to the container's PID 1
        stopped_at = time.monotonic()
        assert Document.objects.get(pk=running.pk).status == DocumentStatus.RENDERING
        first.proc.wait(grace)
        took = time.monotonic() - stopped_at
        print(f"\nstopped mid-render: exited after {took:.1f} s (grace {grace} s)")
        log = first.log_path.read_text()
        assert "Warm shutdown" in log, log
        # It finished what it held, once, before it exited, and took nothing more.
        finished = Document.objects.get(pk=running.pk)
        assert finished.status == DocumentStatus.READY, (finished.error, log)
        assert finished.attempts == 1
        left = Document.objects.get(pk=waiting.pk)
        assert (left.status, left.attempts) == (DocumentStatus.QUEUED, 0)
        if broker.llen(queue) == 0:
            # Under load (CI, 1 run in 3 there) the worker, its render done, took the next
            # message while shutting down and left it in the transport's unacknowledged set,
            # which Redis hands back only after the visibility timeout. Nothing is lost: the
            # document is still queued and untouched, and the sweep (beat, every
            # JOB_SWEEP_SECONDS) sends a queued job's message again once it is stale.
            settings.JOB_QUEUE_STALE_SECONDS = 0
            assert documents_sweep() == {"requeued": 1, "failed": 0}
        assert broker.llen(queue) == 1  # in the broker, for the next pod

        second = pod("pod-b")
        wait_for(
            lambda: Document.objects.get(pk=waiting.pk).status == DocumentStatus.READY,
            120,
            f"the next pod did not render it: {second.log_path.read_text()}",
        )
        assert Document.objects.get(pk=waiting.pk).attempts == 1
        assert broker.llen(queue) == 0
    finally:
        for started in pods:
            started.close()
