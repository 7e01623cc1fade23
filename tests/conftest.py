"""Shared fixtures. Integration tests that need a real service call `require_service`, which skips
with a visible reason on a bare machine and fails when CI=true (CI must never skip them)."""

import os
import shutil
import socket
from collections.abc import Callable
from urllib.parse import urlparse

import pytest

from core.roles import ADMINISTRATOR, CATALOG_MANAGER, SALES_ENGINEER, SALES_MANAGER
from tests.core.factories import UserFactory

IN_CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = "/usr/bin/chromium"


# Tests that need these fixtures start a browser, a worker process, a live server or rebuild
# the database between tests: seconds each. `make test-fast` leaves them out (`-m "not slow"`);
# `make test` runs everything.
SLOW_FIXTURES = frozenset(
    {
        "browser",
        "page",
        "start_worker",
        "live_server",
        "transactional_db",
        "django_db_serialized_rollback",
    }
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        marker = item.get_closest_marker("django_db")
        if fixtures & SLOW_FIXTURES or (marker is not None and marker.kwargs.get("transaction")):
            item.add_marker(pytest.mark.slow)


def require_service(available: bool, reason: str) -> None:
    if available:
        return
    if IN_CI:
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


def _reachable(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or default_port), 1
        ):
            return True
    except OSError:
        return False


@pytest.fixture
def postgres_required(settings):
    require_service(_on_postgresql(settings), "needs PostgreSQL: set DATABASE_URL=postgres://...")


def _on_postgresql(settings) -> bool:
    # By the engine's ending: METRICS_DATABASE swaps in django-prometheus' wrapper of the same
    # backend (django_prometheus.db.backends.postgresql).
    return settings.DATABASES["default"]["ENGINE"].endswith(".postgresql")


@pytest.fixture
def redis_required(settings):
    url = settings.REDIS_URL
    require_service(bool(url), "needs Redis: set REDIS_URL=redis://...")
    require_service(_reachable(url, 6379), f"Redis at {url} is not reachable")


@pytest.fixture
def chromium_required():
    require_service(
        os.path.exists(CHROMIUM) or shutil.which("chromium") is not None,
        "needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
    )


@pytest.fixture
def roles(db):
    from core.services import roles_apply

    return roles_apply()


@pytest.fixture
def engineer(roles):
    return UserFactory(username="engineer", role=SALES_ENGINEER, team_name="Team A")


@pytest.fixture
def teammate(roles):
    return UserFactory(username="teammate", role=SALES_ENGINEER, team_name="Team A")


@pytest.fixture
def other_engineer(roles):
    return UserFactory(username="outsider", role=SALES_ENGINEER, team_name="Team B")


@pytest.fixture
def manager(roles):
    return UserFactory(username="manager", role=SALES_MANAGER, team_name="Team A")


@pytest.fixture
def catalog_manager(roles):
    return UserFactory(username="catalogue", role=CATALOG_MANAGER, team_name="Catalog")


@pytest.fixture
def administrator(roles):
    return UserFactory(username="admin", role=ADMINISTRATOR, team_name="Ops")


@pytest.fixture
def engineer_client(client, engineer):
    client.force_login(engineer)
    return client


# --- A real Celery worker process ---------------------------------------------------------------


def worker_env(settings) -> dict[str, str]:
    """Environment for a worker subprocess that sees this test's database and broker queue."""
    from django.db import connection

    db = connection.settings_dict
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    env["CELERY_TASK_DEFAULT_QUEUE"] = settings.CELERY_TASK_DEFAULT_QUEUE
    env["DOCUMENTS_QUEUE"] = settings.DOCUMENTS_QUEUE
    env["JOB_LEASE_SECONDS"] = str(settings.JOB_LEASE_SECONDS)
    env["CELERY_DATA_DIR"] = str(settings.CELERY_DATA_DIR)
    env["MEDIA_ROOT"] = str(settings.MEDIA_ROOT)
    if _on_postgresql(settings):
        user = db.get("USER") or "postgres"
        password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
        host = db.get("HOST") or "127.0.0.1"
        port = db.get("PORT") or 5432
        env["DATABASE_URL"] = f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"
    else:
        env["DATABASE_URL"] = f"sqlite:///{db['NAME']}"
    return env


class WorkerProcess:
    def __init__(self, settings, *, queues: list[str] | None = None, log_path=None) -> None:
        import subprocess
        import sys
        from pathlib import Path

        self.queues = queues or [settings.CELERY_TASK_DEFAULT_QUEUE, settings.DOCUMENTS_QUEUE]
        self.log_path = Path(log_path or settings.BASE_DIR / "var" / "test-worker.log")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("ab")
        celery = Path(sys.executable).with_name("celery")
        self.proc = subprocess.Popen(
            [
                str(celery),
                "-A",
                "config",
                "worker",
                "--pool",
                "prefork",
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "-Q",
                ",".join(self.queues),
                "-n",
                f"test-{os.getpid()}-{id(self)}@%h",
            ],
            cwd=settings.BASE_DIR,
            env=worker_env(settings),
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self) -> None:
        """SIGKILL the whole process group: the worker dies mid-task, as on a crash or OOM."""
        import signal

        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        import signal

        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except Exception:
                self.kill()
        self._log.close()


@pytest.fixture
def start_worker(settings):
    """Start real worker processes; every one is stopped at teardown."""
    workers: list[WorkerProcess] = []

    def start(**kwargs) -> WorkerProcess:
        worker = WorkerProcess(settings, **kwargs)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


# --- Headless Chromium --------------------------------------------------------------------------

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "test-artifacts")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    # While Playwright's sync API runs, ORM calls in a test body get database connections of
    # their own, which no fixture can close; left open, they keep PostgreSQL from dropping the
    # test database at the end of the run. Close them where they were opened.
    try:
        return (yield)
    finally:
        if "browser" in getattr(item, "fixturenames", ()):
            from django.db import connections

            connections.close_all()


@pytest.fixture
def browser(chromium_required, monkeypatch):
    # Playwright's sync API runs an event loop in this thread; the ORM calls the test makes
    # alongside it are still synchronous and safe.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
            headless=True,
            args=CHROMIUM_ARGS,
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


# htmx marks the element whose request is in flight (and, briefly, what it swaps and settles).
_HTMX_BUSY = ".htmx-request, .htmx-swapping, .htmx-settling"


def settle(page) -> None:
    """Wait until the page has loaded and no htmx request is in flight. Playwright's
    "networkidle" waits for 500 ms without traffic after every page, which cost the page walks
    more than their pages took to draw; htmx's own classes say when its requests are done (a
    `hx-trigger="load"` request starts while the document loads, before the load event)."""
    page.wait_for_load_state("load")
    page.wait_for_function(f"() => !document.querySelector({_HTMX_BUSY!r})")


def screenshot(page, name: str) -> str:
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, f"{name}.png")
    page.screenshot(path=path, full_page=True)
    return path


@pytest.fixture(autouse=True)
def _english_unless_asked():
    """A request leaves its language active in the thread; each test starts in English."""
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def _own_media_root(settings, tmp_path):
    """Each test stores files (documents) in its own folder; a worker it starts shares it."""
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture(autouse=True)
def _fresh_catalog_snapshot():
    """Each test sizes against its own database's catalog, not a snapshot cached by another."""
    import planner.selectors

    planner.selectors._snapshot = None
    yield
    planner.selectors._snapshot = None


# What a catalog load left in the catalog's tables, per load (the whole seed, or a subset of its
# SKUs): per model its columns and rows of database-ready values, and the loader's own result.
_loads: dict[object, tuple[list[tuple[type, str, list[tuple]]], object]] = {}


def load_catalog_once(key: object, load: Callable[[], object]) -> object:
    """Run `load` (a real catalog load, through the catalog's loader) the first time in a session
    for `key`; later, into the same empty tables, insert the very rows it wrote: about 50 ms
    against 0.5 to 0.6 s for the loader, which validates every row and writes its history one
    by one (most tests start with a catalog). A catalog that is not empty gets the real load."""
    from django.apps import apps
    from django.core.management.color import no_style
    from django.db import connection

    from catalog.models import Product

    models = list(apps.get_app_config("catalog").get_models())  # definition order: FKs resolve
    if key not in _loads or Product.objects.exists():
        result = load()
        if key not in _loads:
            _loads[key] = ([_table_rows(model, connection) for model in models], result)
        return result
    tables, result = _loads[key]
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        for model, columns, rows in tables:
            table = quote(model._meta.db_table)
            if connection.vendor == "postgresql" and rows:
                # COPY: psycopg parses a statement's placeholders in Python, 0.6 s for these
                # 24,000 values as INSERTs, against a few milliseconds streamed.
                with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    for values in rows:
                        copy.write_row(values)
                continue
            # 500 rows of ~12 values a statement stays under SQLite's limit of 32,766 values.
            for start in range(0, len(rows), 500):
                batch = rows[start : start + 500]
                row = f"({', '.join(['%s'] * len(batch[0]))})"
                cursor.execute(
                    f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * len(batch))}",
                    [value for values in batch for value in values],
                )
        for sql in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(sql)
    return result


def load_seed_catalog() -> None:
    """The seed catalog, loaded the way `make run` loads it (`load_catalog`)."""
    from django.core.management import call_command

    load_catalog_once("seed", lambda: call_command("load_catalog", stdout=StringIO()))


def _table_rows(model: type, connection) -> tuple[type, str, list[tuple]]:
    """The model's stored rows as the database took them (`get_db_prep_save`: JSON, decimals and
    dates converted as Django converts them on save), in primary-key order."""
    fields = model._meta.concrete_fields
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    rows = [
        tuple(field.get_db_prep_save(getattr(obj, field.attname), connection) for field in fields)
        for obj in model.objects.order_by("pk")
    ]
    return model, columns, rows


@pytest.fixture
def catalog(db):
    load_seed_catalog()


from io import StringIO  # noqa: E402
