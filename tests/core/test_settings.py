"""Production settings refuse to start without their required values, and pass Django's
deployment checks when given them. Each check runs in a fresh interpreter, as production would."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gunicorn.workers.sync import SyncWorker

from config.gunicorn_worker import ProblemSyncWorker
from core.http_limits import REQUEST_LINE_MAX_BYTES

ROOT = Path(__file__).resolve().parents[2]
GOOD = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "SECRET_KEY": "k" * 20 + "-Zx8vQ2mN4pL7rT1yW5sD9fG3hJ6kB0cV-" + "q" * 10,
    "ALLOWED_HOSTS": "planner.example.com",
    "DATABASE_URL": "sqlite:///" + str(ROOT / "var" / "deploy-check.sqlite3"),
}


def _manage(*args, env):
    base = {
        k: v for k, v in os.environ.items() if k not in GOOD and k != "DJANGO_ALLOW_ASYNC_UNSAFE"
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("missing", ["SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL"])
def test_production_refuses_to_start_without(missing):
    env = {k: v for k, v in GOOD.items() if k != missing}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert f"Set the environment variable {missing}" in result.stderr


@pytest.mark.slow
def test_production_passes_deploy_checks():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=GOOD)
    assert result.returncode == 0, result.stdout + result.stderr


def test_docker_compose_describes_the_five_services_with_the_same_settings():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"web", "worker", "beat", "postgres", "redis"} <= set(services)
    for name in ("web", "worker", "beat", "documents"):
        env = services[name]["environment"]
        assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["REDIS_URL"].startswith("redis://redis:")
    assert "celery -A config worker" in services["worker"]["command"]
    assert "-Q documents" in services["documents"]["command"]
    assert "celery -A config beat" in services["beat"]["command"]
    assert "gunicorn config.wsgi:application" in services["web"]["command"]


def test_gunicorn_runs_sync_workers_from_its_config_file_everywhere():
    # The Dockerfile, docker-compose and bench.api start gunicorn with no worker options, so
    # gunicorn.conf.py (read from the working directory) decides for all three.
    result = subprocess.run(
        [str(Path(sys.executable).with_name("gunicorn")), "--print-config",
         "config.wsgi:application"],
        cwd=ROOT, env={**os.environ, "WEB_CONCURRENCY": "5"}, capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    config = {
        line.split("=", 1)[0].strip(): line.split("=", 1)[1].strip()
        for line in result.stdout.splitlines()
        if "=" in line
    }
    # gunicorn's sync worker, whose own refusals are problem+json (config.gunicorn_worker)
    assert config["worker_class"] == "config.gunicorn_worker.ProblemSyncWorker"
    assert issubclass(ProblemSyncWorker, SyncWorker)
    assert config["workers"] == "5"
    assert config["limit_request_line"] == str(REQUEST_LINE_MAX_BYTES)
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    dockerfile = (ROOT / "Dockerfile").read_text()
    for command in (compose["services"]["web"]["command"], dockerfile):
        assert "--workers" not in command
        assert "--worker-class" not in command
