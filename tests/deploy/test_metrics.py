"""/metrics (issue 30): Prometheus' text format with django-prometheus' request figures and the job
table's (by kind and status, oldest queued age, recent run times), answered only to an address in
METRICS_ALLOWED_NETWORKS or a caller with METRICS_TOKEN; everyone else gets a 404."""

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from core.models import WorkerProbe
from core.services import worker_probe_request, worker_probe_run

ROOT = Path(__file__).resolve().parent.parent.parent


def scrape(client, **extra) -> dict[tuple[str, tuple], float]:
    response = client.get("/metrics", **extra)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def requests_to(samples, view: str) -> float:
    return sum(
        value
        for (name, labels), value in samples.items()
        if name == "django_http_requests_total_by_view_transport_method_total"
        and dict(labels).get("view") == view
    )


@pytest.mark.django_db
def test_request_figures_per_view_count_each_request(client):
    before = requests_to(scrape(client), "health")
    for _ in range(3):
        assert client.get("/health/").status_code == 200
    after = scrape(client)
    assert requests_to(after, "health") == before + 3
    # Latencies per view are there too (a histogram with its buckets).
    assert any(
        name == "django_http_requests_latency_seconds_by_view_method_count"
        and dict(labels).get("view") == "health"
        for name, labels in after
    )


@pytest.mark.django_db
def test_job_figures_by_kind_and_status_oldest_queued_and_recent_runs(client):
    queued = [worker_probe_request() for _ in range(3)]
    # The oldest was asked for ten minutes ago.
    WorkerProbe.objects.filter(pk=queued[0].pk).update(
        created_at=timezone.now() - timedelta(minutes=10)
    )
    done = worker_probe_request()
    worker_probe_run(probe_id=done.pk)  # in this process: claimed, worked, stored
    # A run of 42 s that finished a minute ago.
    WorkerProbe.objects.filter(pk=done.pk).update(
        started_at=timezone.now() - timedelta(seconds=102),
        finished_at=timezone.now() - timedelta(seconds=60),
    )
    samples = scrape(client)
    kind = ("kind", "core.workerprobe")

    def jobs(status: str) -> float:
        return samples[("ezmax_jobs", (kind, ("status", status)))]

    assert (jobs("queued"), jobs("running"), jobs("done"), jobs("failed")) == (3, 0, 1, 0)
    # Ten minutes, give or take the test's own seconds.
    assert 600 <= samples[("ezmax_job_oldest_queued_seconds", (kind,))] < 660
    assert samples[("ezmax_job_recent_run_seconds_count", (kind,))] == 1
    assert samples[("ezmax_job_recent_run_seconds_sum", (kind,))] == pytest.approx(42, abs=1)
    assert samples[("ezmax_job_recent_run_seconds_max", (kind,))] == pytest.approx(42, abs=1)
    # Documents speak their own words (rendering, ready) and are counted in the scheme's.
    document = ("kind", "quotes.document")
    assert samples[("ezmax_jobs", (document, ("status", "running")))] == 0
    assert ("ezmax_jobs", (document, ("status", "rendering"))) not in samples


@pytest.mark.django_db
def test_refused_to_an_address_outside_the_allowed_networks(client, settings):
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    refused = client.get("/metrics", REMOTE_ADDR="10.20.30.40")
    assert refused.status_code == 404
    assert b"ezmax_jobs" not in refused.content
    settings.METRICS_ALLOWED_NETWORKS = ["10.20.0.0/16"]
    assert client.get("/metrics", REMOTE_ADDR="10.20.30.40").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 404


@pytest.mark.django_db
def test_behind_a_proxy_the_client_behind_it_is_judged_not_the_proxy(client, settings):
    """The proxy itself is on loopback; the client it forwards is not, whatever it claims."""
    settings.NUM_PROXIES = 1
    forwarded = client.get(
        "/metrics", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="127.0.0.1, 203.0.113.9"
    )
    assert forwarded.status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200


@pytest.mark.django_db
def test_a_bearer_token_admits_a_scraper_from_anywhere_and_only_the_right_one(client, settings):
    outside = {"REMOTE_ADDR": "10.9.8.7"}
    settings.METRICS_TOKEN = "a-long-random-scrape-token"
    ok = client.get("/metrics", HTTP_AUTHORIZATION="Bearer a-long-random-scrape-token", **outside)
    assert ok.status_code == 200
    assert b"ezmax_jobs" in ok.content
    for wrong in ("Bearer a-long-random-scrape-tokem", "a-long-random-scrape-token", ""):
        assert client.get("/metrics", HTTP_AUTHORIZATION=wrong, **outside).status_code == 404
    settings.METRICS_TOKEN = ""  # no token set: no header admits anyone
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ", **outside).status_code == 404


@pytest.mark.django_db
def test_answered_whatever_the_host_and_scheme_a_scraper_uses(client, settings):
    """Prometheus reaches a pod by its address over plain HTTP: neither ALLOWED_HOSTS nor the
    HTTPS redirect may turn it away (both would, for any page)."""
    settings.ALLOWED_HOSTS = ["planner.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/metrics", HTTP_HOST="10.1.2.3:8000").status_code == 200
    assert client.get("/health/", HTTP_HOST="10.1.2.3:8000").status_code == 400


def test_database_figures_when_asked_for(tmp_path):
    """METRICS_DATABASE=true wraps the same backend with django-prometheus' query counters."""
    script = (
        "import django; django.setup()\n"
        "from django.db import connection\n"
        "from django.conf import settings\n"
        "print(settings.DATABASES['default']['ENGINE'])\n"
        "with connection.cursor() as c: c.execute('SELECT 1')\n"
        "from prometheus_client import REGISTRY, generate_latest\n"
        "print(generate_latest(REGISTRY).decode())\n"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "METRICS_DATABASE": "true",
    }
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    engine, _, text = out.stdout.partition("\n")
    assert engine == "django_prometheus.db.backends.sqlite3", out.stderr[-2000:]
    assert 'django_db_execute_total{alias="default",vendor="sqlite"} 1.0' in text, out.stderr[
        -2000:
    ]


@pytest.mark.slow
@pytest.mark.django_db
def test_the_clusters_database_figures_on_postgresql(postgres_required, settings):
    """The ConfigMap turns the figures on; the wrapper runs on PostgreSQL's driver (psycopg 3)."""
    from tests.conftest import worker_env
    from tests.deploy.test_manifests import OVERLAY, one, render

    config = one(render(OVERLAY), "ConfigMap", "ezmax-config")["data"]
    script = (
        "import django; django.setup()\n"
        "from django.db import connection\n"
        "from django.conf import settings\n"
        "print(settings.DATABASES['default']['ENGINE'])\n"
        "with connection.cursor() as c: c.execute('SELECT 1'); c.fetchone()\n"
        "from prometheus_client import REGISTRY, generate_latest\n"
        "print(generate_latest(REGISTRY).decode())\n"
    )
    env = {**worker_env(settings), "METRICS_DATABASE": config["METRICS_DATABASE"]}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    engine, _, text = out.stdout.partition("\n")
    assert engine == "django_prometheus.db.backends.postgresql", out.stderr[-2000:]
    assert 'django_db_execute_total{alias="default",vendor="postgresql"}' in text, text[-2000:]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_under_gunicorn_every_scrape_reports_the_whole_pod(tmp_path):
    """Two gunicorn processes, as in a pod (WEB_CONCURRENCY=2, gunicorn.conf.py): whichever one
    answers the scrape reports the requests both served (PROMETHEUS_MULTIPROC_DIR). The database
    has no tables: the job figures say they failed, the request figures still come."""
    import time
    import urllib.request

    port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "REDIS_URL": "",
        "WEB_CONCURRENCY": "2",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_ACCESS_LOG": "",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prometheus"),
    }
    gunicorn = Path(sys.executable).with_name("gunicorn")
    log = (tmp_path / "gunicorn.log").open("wb")
    server = subprocess.Popen(
        [str(gunicorn), "config.wsgi:application"], cwd=ROOT, env=env, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:  # /metrics: counted under no view, so /health/'s count starts at 0 here
                urllib.request.urlopen(f"{base}/metrics", timeout=30).read()
                break
            except OSError:
                assert time.monotonic() < deadline, (tmp_path / "gunicorn.log").read_text()
                time.sleep(0.5)
        for _ in range(20):
            urllib.request.urlopen(f"{base}/health/", timeout=10).read()
        for _ in range(4):
            text = urllib.request.urlopen(f"{base}/metrics", timeout=10).read().decode()
            samples = {
                (s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(text)
                for s in family.samples
            }
            assert requests_to(samples, "health") == 20
            assert samples[("ezmax_job_figures_failed", ())] == 1
        written = {p.name.split("_")[0] for p in (tmp_path / "prometheus").glob("*.db")}
        assert "counter" in written
    finally:
        os.killpg(server.pid, 15)
        server.wait(20)
        log.close()


def test_compose_serves_metrics_from_web_to_the_readers_the_settings_name():
    """docker-compose (the embedded default) gains the endpoint: web sums its gunicorn processes
    and reads who may scrape from the environment; outside clients reach it only through the
    proxy, whose X-Forwarded-For (NUM_PROXIES=1) never makes them loopback."""
    import yaml

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    web = services["web"]
    env = web["environment"]
    assert web["command"].startswith("gunicorn ")
    assert env["METRICS_TOKEN"] == "${METRICS_TOKEN:-}"
    assert env["METRICS_ALLOWED_NETWORKS"].startswith("${METRICS_ALLOWED_NETWORKS:-")
    assert env["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")
    assert env["NUM_PROXIES"] == "1"
    assert web["expose"] == ["8000"]  # a scraper on the compose network; no published port
    assert "ports" not in web
    assert services["proxy"]["ports"] == ["8000:8000"]
