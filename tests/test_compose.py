"""Deployment true to the code (issue 14, item 9): docker-compose.yml and the Dockerfile are read
as data and checked against the project. An `init` service prepares the database once (migrations,
role groups, the catalog, the demo users when asked) and everything else waits for it to succeed;
every command a service runs exists here (management commands, the Celery app, the queues the
settings route to, the WSGI application); the image installs the production lock, which carries
no development tool."""

import importlib
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from django.core.management import get_commands

from tests.conftest import load_seed_catalog

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
APP_SERVICES = ("web", "worker", "sweeps", "webhooks", "exports", "documents", "beat")
WORKERS = ("worker", "sweeps", "webhooks", "exports", "documents")
PROCFILE = dict(
    line.split(": ", 1) for line in (ROOT / "Procfile.dev").read_text().splitlines() if line
)
DEV_TOOLS = (
    "pytest", "pytest-django", "playwright", "mypy", "ruff", "django-stubs",
    "djangorestframework-stubs", "schemathesis", "hypothesis", "factory-boy", "import-linter",
    "honcho", "pypdf",
)  # fmt: skip


def script(service: str) -> list[str]:
    """The shell lines a service runs, with compose's `$$` turned back into `$`."""
    command = SERVICES[service]["command"]
    if isinstance(command, list):
        assert command[:2] == ["sh", "-ec"], command  # -e: the first failing step fails init
        return command[2].replace("$$", "$").splitlines()
    return [command]


def manage_commands(line: str) -> list[str]:
    return re.findall(r"python manage\.py (\w+)", line)


def pins(lock: str) -> dict[str, str]:
    text = (ROOT / lock).read_text()
    return dict(re.findall(r"(?m)^([a-z0-9][a-z0-9._-]*)==(\S+)", text))


def canonical(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_web_workers_and_beat_wait_until_init_has_succeeded():
    init = SERVICES["init"]
    healthy = {"condition": "service_healthy"}
    assert init["depends_on"] == {"postgres": healthy, "redis": healthy}
    assert init["restart"] == "no"  # it runs to the end once per `up`, never in a loop
    for name in APP_SERVICES:
        service = SERVICES[name]
        assert service["depends_on"] == {
            "postgres": healthy,
            "redis": healthy,
            "init": {"condition": "service_completed_successfully"},
        }, name
        # The same image, database and settings as the database init prepared.
        assert service["image"] == init["image"]
        for variable in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL"):
            assert service["environment"][variable] == init["environment"][variable]


def test_init_migrates_then_sets_up_roles_then_loads_the_catalog_and_nothing_else_does():
    steps = [name for line in script("init") for name in manage_commands(line)]
    assert steps == ["migrate", "setup_roles", "shell", "load_catalog", "create_demo_user"]
    for name in APP_SERVICES:  # no race of several services migrating at once
        assert "manage.py" not in str(SERVICES[name]["command"]), name


def test_every_management_command_a_service_runs_exists():
    commands = get_commands()
    named = {name for service in SERVICES if "command" in SERVICES[service]
             for line in script(service) for name in manage_commands(line)}  # fmt: skip
    assert named
    assert named <= set(commands), named - set(commands)


@pytest.mark.django_db
def test_the_seed_catalog_is_loaded_into_an_empty_catalog_only():
    """init's test, run here: it exits 0 (load) on an empty catalog, 1 (skip) once one exists."""
    is_empty = SERVICES["init"]["environment"]["CATALOG_IS_EMPTY"]
    with pytest.raises(SystemExit) as empty:
        exec(is_empty, {})
    assert empty.value.code is False  # exit status 0: `if` takes the branch, load_catalog runs
    load_seed_catalog()
    with pytest.raises(SystemExit) as loaded:
        exec(is_empty, {})
    assert loaded.value.code is True  # exit status 1: skipped, the stored prices stand


def queues_of(argv: list[str]) -> set[str]:
    return set(argv[argv.index("-Q") + 1].split(","))


def test_celery_services_run_the_project_app_on_exactly_the_queues_the_settings_route_to():
    from config.celery import app
    from config.settings import base

    routed = {base.CELERY_TASK_DEFAULT_QUEUE} | {
        route["queue"] for route in base.CELERY_TASK_ROUTES.values()
    }
    consumed: dict[str, set[str]] = {}
    names: list[str] = []
    for name in (*WORKERS, "beat"):
        argv = shlex.split(SERVICES[name]["command"])
        assert argv[:3] == ["celery", "-A", "config"], argv
        assert importlib.import_module(argv[2]).celery_app is app
        if argv[3] == "worker":
            consumed[name] = queues_of(argv)
            names.append(argv[argv.index("-n") + 1])
    assert argv[3] == "beat"
    every = set().union(*consumed.values())
    # Nothing is routed to a queue no worker consumes; no worker waits on a queue nobody uses.
    assert every == routed == {"default", "documents", "exports", "webhooks", "sweeps"}
    # One worker service per kind of queue: none waits behind another kind's work.
    assert sum(len(queues) for queues in consumed.values()) == len(every), consumed
    assert len(set(names)) == len(names), names  # each worker's own node name
    app.autodiscover_tasks(force=True)  # what a worker does at start
    for entry in base.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in app.tasks, entry
    for task in base.CELERY_TASK_ROUTES:
        assert task in app.tasks, task


def test_sweeps_run_on_a_queue_nothing_else_uses_and_each_kind_on_its_own():
    """Issue 29: a hung webhook endpoint and a long export held the 15 s sweeps for minutes."""
    from config.celery import app
    from config.settings import base

    app.autodiscover_tasks(force=True)
    routes = {task: route["queue"] for task, route in base.CELERY_TASK_ROUTES.items()}
    project = [name for name in app.tasks if not name.startswith("celery.")]
    sweeps = [name for name in project if ".sweep_" in name] + ["core.tasks.dispatch_due_webhooks"]
    assert len(sweeps) >= 5, sweeps
    assert {routes.get(task) for task in sweeps} == {"sweeps"}
    assert sorted(task for task, queue in routes.items() if queue == "sweeps") == sorted(sweeps)
    assert queues_of(shlex.split(SERVICES["sweeps"]["command"])) == {"sweeps"}
    assert routes["core.tasks.deliver_webhook"] == "webhooks"
    assert [task for task, queue in routes.items() if queue == "webhooks"] == [
        "core.tasks.deliver_webhook"
    ]
    for task in ("planner.tasks.export_design_task", "planner.asbuilt.tasks.asbuilt_check_task"):
        assert routes[task] == "exports", task
    assert routes["quotes.tasks.render_document_task"] == "documents"
    # Every sweep scheduled by beat is one of them.
    scheduled = {entry["task"] for entry in base.CELERY_BEAT_SCHEDULE.values()}
    assert set(sweeps) <= scheduled


def test_make_run_consumes_every_routed_queue():
    """Procfile.dev (`make run`, the filesystem broker) starts workers for every queue."""
    from config.settings import base

    routed = {base.CELERY_TASK_DEFAULT_QUEUE} | {
        route["queue"] for route in base.CELERY_TASK_ROUTES.values()
    }
    consumed: set[str] = set()
    beats = 0
    for name, line in PROCFILE.items():
        argv = shlex.split(line)
        if not argv[0].endswith("celery"):
            continue
        assert argv[1:4] == ["-A", "config", "worker"], name
        assert queues_of(argv).isdisjoint(consumed), name
        consumed |= queues_of(argv)
        beats += "--beat" in argv
    assert consumed == routed
    assert beats == 1  # one scheduler, or every periodic task would run twice
    assert "sweeps" not in queues_of(shlex.split(PROCFILE["worker"]))


def test_a_buffering_proxy_is_the_only_way_in():
    """Slow clients hold nginx connections, never gunicorn's sync workers (issue 29)."""
    proxy = SERVICES["proxy"]
    assert proxy["image"].startswith("nginx:")
    assert proxy["depends_on"] == {"web": {"condition": "service_healthy"}}
    [mount] = proxy["volumes"]
    source, target, mode = mount.split(":")
    assert (target, mode) == ("/etc/nginx/conf.d/default.conf", "ro")
    conf = (ROOT / source).read_text()
    directives = dict(re.findall(r"(?m)^\s*(\w+)\s+([^;{]+);", conf))  # the last of each name wins
    assert directives["client_max_body_size"] == "25m"
    assert directives["proxy_request_buffering"] == "on"
    assert directives["proxy_buffering"] == "on"
    assert re.search(r"server web:8000;", conf)
    assert directives["proxy_pass"] == "http://app"
    # Longer than gunicorn's request timeout, which ends a request first.
    assert int(directives["proxy_read_timeout"].rstrip("s")) > 60
    assert [port.split(":")[-1] for port in proxy["ports"]] == ["8000"]
    # gunicorn is reached through the proxy only, and trusts exactly that one proxy's header.
    assert "ports" not in SERVICES["web"]
    assert SERVICES["web"]["environment"]["NUM_PROXIES"] == "1"
    for name in SERVICES:
        if name != "proxy":
            assert "ports" not in SERVICES[name], name


def test_web_and_the_image_serve_the_projects_wsgi_application():
    dockerfile = (ROOT / "Dockerfile").read_text()
    [cmd] = re.findall(r"(?m)^CMD (.+)$", dockerfile)
    for argv in (shlex.split(SERVICES["web"]["command"]), eval(cmd)):  # CMD is a JSON list
        assert argv[0] == "gunicorn"
        module, attribute = argv[1].split(":")
        assert callable(getattr(importlib.import_module(module), attribute))


def test_the_image_installs_the_production_lock_which_carries_no_development_tool():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.findall(r"pip install[^\n]* -r (\S+)", dockerfile) == ["requirements.lock"]
    instructions = [line for line in dockerfile.splitlines() if not line.startswith("#")]
    assert not [line for line in instructions if "requirements-dev.lock" in line]
    production, development = pins("requirements.lock"), pins("requirements-dev.lock")
    for tool in DEV_TOOLS:
        assert tool not in production, tool
        assert tool in development, tool
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for requirement in project["dependencies"]:
        assert canonical(requirement) in production, requirement
    for tool in project["optional-dependencies"]["dev"]:
        assert canonical(tool) in development, tool
    # Development is production plus the tools, at the same versions.
    assert {name: development[name] for name in production} == production
    # The build context leaves out the virtualenv (where the tools are installed) and the tests.
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", "tests", "var", ".git"} <= set(ignored)
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install -q -r requirements-dev.lock" in makefile


@pytest.mark.slow
def test_the_init_script_prepares_a_fresh_database_and_a_second_run_changes_nothing(tmp_path):
    """init's script as compose runs it, twice, with the production settings on a database of
    its own (SQLite here; the steps are the same on PostgreSQL)."""
    lines = script("init")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))},
        **{k: str(v) for k, v in SERVICES["init"]["environment"].items() if "${" not in str(v)},
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "k" * 20 + "-Zx8vQ2mN4pL7rT1yW5sD9fG3hJ6kB0cV-" + "q" * 10,
        "ALLOWED_HOSTS": "planner.example.com",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'init.sqlite3'}",
        "CELERY_DATA_DIR": str(tmp_path / "celery"),
        "REDIS_URL": "",
        "CREATE_DEMO_USER": "true",
    }

    def run() -> str:
        result = subprocess.run(["sh", "-ec", "\n".join(lines)], cwd=ROOT, env=env,
                                capture_output=True, text=True, timeout=300)  # fmt: skip
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        return result.stdout

    first = run()
    assert "Applying core.0001_initial... OK" in first
    assert "Created " in first  # the demo users, their passwords printed once
    assert "user 'demo'" in first
    catalog_lines = [line for line in first.splitlines() if "product" in line.lower()]
    assert catalog_lines, first[-2000:]
    second = run()
    assert "No migrations to apply." in second
    assert "Created " not in second
    assert not [line for line in second.splitlines() if "product" in line.lower()]
