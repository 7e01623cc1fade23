"""Celery worker metrics (issue 30, core.worker_metrics): a real worker process (prefork pool, so
the tasks run in a forked pool process and their figures reach the main process's endpoint
through PROMETHEUS_MULTIPROC_DIR) runs real tasks; its port then reports each task by name,
outcome and worker kind, exactly as many as ran, and answers only the readers /metrics answers."""

import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest
from celery.signals import task_postrun, task_prerun, worker_ready
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from core import worker_metrics
from core.models import JobStatus, WorkerProbe
from core.tasks import run_worker_probe
from tests.waiting import wait_for

TASK = "core.tasks.run_worker_probe"
TOKEN = "worker-scrape-token-0123456789"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def scrape(port: int, token: str | None = TOKEN) -> tuple[int, str]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, ""
    except urllib.error.URLError:
        return 0, ""  # not listening (yet)


def value(text: str, name: str, **labels: str) -> float:
    """The sum of the samples of that name whose labels include these (0 when there is none)."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and labels.items() <= sample.labels.items()
    )


@pytest.mark.slow
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_reports_each_task_it_ran_by_name_and_outcome(
    settings, start_worker, monkeypatch, tmp_path
):
    port = free_port()
    queue = f"metrics-{os.getpid()}"
    with monkeypatch.context() as env:  # the worker's environment only (worker_env copies it)
        env.setenv("WORKER_METRICS_PORT", str(port))
        env.setenv("WORKER_METRICS_ADDRESS", "127.0.0.1")
        env.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "prometheus"))
        env.setenv("METRICS_TOKEN", TOKEN)
        # A network loopback is not in: without the token, the test's own scrape is refused.
        env.setenv("METRICS_ALLOWED_NETWORKS", "192.0.2.0/24")
        worker = start_worker(queues=[queue], log_path=tmp_path / "worker.log")
    kind = f"test-{os.getpid()}-{id(worker)}"  # its node name before '@' (tests/conftest.py)

    wait_for(lambda: scrape(port)[0] == 200, 90, "the metrics port", log=worker.log_path)
    status, before = scrape(port)
    assert value(before, "ezmax_celery_tasks_total") == 0

    probes = [WorkerProbe.objects.create() for _ in range(3)]
    for probe in probes:
        run_worker_probe.apply_async(args=[probe.pk], queue=queue)
    missing = probes[-1].pk + 1000  # no such row: the task raises DoesNotExist
    for _ in range(2):
        run_worker_probe.apply_async(args=[missing], queue=queue)

    def counted() -> float:
        return value(scrape(port)[1], "ezmax_celery_tasks_total", task=TASK)

    wait_for(lambda: counted() >= 5, 120, "five tasks counted", log=worker.log_path)
    status, text = scrape(port)
    assert status == 200
    ours = {"task": TASK, "worker": kind}
    assert value(text, "ezmax_celery_tasks_total", outcome="succeeded", **ours) == 3
    assert value(text, "ezmax_celery_tasks_total", outcome="failed", **ours) == 2
    assert value(text, "ezmax_celery_tasks_total", outcome="retried", **ours) == 0
    assert value(text, "ezmax_celery_tasks_total") == 5  # nothing else, no other label
    assert value(text, "ezmax_celery_task_run_seconds_count", **ours) == 5
    assert value(text, "ezmax_celery_task_run_seconds_sum", **ours) > 0
    # Every run is below the largest finite bucket (the hard limit), so inside it.
    assert value(text, "ezmax_celery_task_run_seconds_bucket", le="360.0", **ours) == 5
    assert {p.status for p in WorkerProbe.objects.filter(pk__in=[p.pk for p in probes])} == {
        JobStatus.DONE
    }
    # Written by the pool process (the main process runs no task): its own file in the folder.
    writers = {int(path.stem.rsplit("_", 1)[1]) for path in (tmp_path / "prometheus").glob(
        "counter_*.db")}  # fmt: skip
    assert writers - {worker.proc.pid}, writers

    assert scrape(port, token=None)[0] == 404
    assert scrape(port, token="wrong")[0] == 404


def test_outcomes_are_counted_with_their_run_time():
    registry = CollectorRegistry()
    registry.register(worker_metrics.TASKS)
    registry.register(worker_metrics.RUN_SECONDS)
    task = SimpleNamespace(name="tests.some_task", request=SimpleNamespace(hostname="exports@pod"))

    def tasks(outcome: str) -> float:
        labels = {"task": "tests.some_task", "outcome": outcome, "worker": "exports"}
        return registry.get_sample_value("ezmax_celery_tasks_total", labels) or 0.0

    def runs() -> float:
        labels = {"task": "tests.some_task", "worker": "exports"}
        return registry.get_sample_value("ezmax_celery_task_run_seconds_count", labels) or 0.0

    before = {o: tasks(o) for o in ("succeeded", "failed", "retried", "ignored")}
    runs_before = runs()
    for n, state in enumerate(["SUCCESS", "RETRY", "RETRY", "FAILURE", "IGNORED"]):
        worker_metrics.task_started(task_id=f"id-{n}", task=task)
        worker_metrics.task_finished(task_id=f"id-{n}", task=task, state=state)
    assert {o: tasks(o) - before[o] for o in before} == {
        "succeeded": 1,
        "failed": 1,
        "retried": 2,
        "ignored": 1,
    }
    assert runs() - runs_before == 5
    assert worker_metrics._started == {}  # nothing kept once a task finished


def test_worker_kind_is_the_node_name_before_the_at():
    assert worker_metrics.worker_kind("documents@ezmax-worker-documents-7f9c") == "documents"
    assert worker_metrics.worker_kind("sweeps") == "sweeps"
    assert worker_metrics.worker_kind(None) == "unknown"


def _connected(signal, uid: str) -> bool:
    return any(key[0] == uid for key, _ in signal.receivers)


@pytest.fixture
def disconnected():
    signals = [
        (task_prerun, "ezmax-worker-metrics-prerun"),
        (task_postrun, "ezmax-worker-metrics-postrun"),
        (worker_ready, "ezmax-worker-metrics-serve"),
    ]
    for signal, uid in signals:
        signal.disconnect(dispatch_uid=uid)
    yield signals
    for signal, uid in signals:
        signal.disconnect(dispatch_uid=uid)


def test_nothing_is_counted_or_served_unless_a_port_is_set(settings, disconnected):
    settings.WORKER_METRICS_PORT = 0
    worker_metrics.worker_metrics_start()
    assert not any(_connected(signal, uid) for signal, uid in disconnected)
    settings.WORKER_METRICS_PORT = 9808
    worker_metrics.worker_metrics_start()
    assert all(_connected(signal, uid) for signal, uid in disconnected)


def test_the_files_of_dead_processes_are_forgotten_and_live_ones_kept(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead = int(gone.stdout)
    alive = os.getpid()
    for name in (f"counter_{dead}.db", f"histogram_{dead}.db", f"counter_{alive}.db"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "notes.txt").write_text("not a figure file")
    assert worker_metrics.forget_dead_processes(tmp_path) == 2
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == [f"counter_{alive}.db", "notes.txt"]


def test_compose_and_the_cluster_serve_every_workers_figures_under_its_kind():
    """Each worker is named `<its queue>@%h`, so its figures carry its kind (worker_kind), and
    serves them on the port its container exposes, with the folder a prefork pool needs."""
    import shlex

    import yaml

    from tests.deploy.test_manifests import OVERLAY, render, worker_deployments

    root = Path(__file__).resolve().parents[2]
    services = yaml.safe_load((root / "docker-compose.yml").read_text())["services"]
    commands = {}
    for name, service in services.items():
        command = service.get("command")
        if isinstance(command, str) and " worker " in command:
            env = service["environment"]
            assert service["expose"] == [env["WORKER_METRICS_PORT"]], name
            assert env["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/"), name
            commands[name] = shlex.split(command)
        elif "environment" in service:
            assert "WORKER_METRICS_PORT" not in service["environment"], name
    for deployment in worker_deployments(render(OVERLAY)).values():
        [container] = deployment["spec"]["template"]["spec"]["containers"]
        commands[deployment["metadata"]["name"]] = shlex.split(container["command"][-1])
    assert len(commands) == 10  # five kinds, in compose and in the cluster
    for name, argv in commands.items():
        queue = argv[argv.index("-Q") + 1]
        node = argv[argv.index("-n") + 1]
        assert worker_metrics.worker_kind(node) == queue, name
