"""Several writers on the embedded SQLite database (issue 29): `make run` puts gunicorn's workers
and a Celery worker on one SQLite file. Two connections, each in a transaction that reads and
then writes while the other does the same, must both succeed: with SQLite's default deferred
transactions the second to write gets "database is locked" at once (it holds a read lock the
first writer waits on, so SQLite refuses rather than deadlock), whatever the busy timeout. The
connections use the options the settings give every SQLite database (SQLITE_OPTIONS)."""

import threading
import time

from django.db.backends.sqlite3.base import DatabaseWrapper

from config.settings.base import SQLITE_OPTIONS

WRITERS = 4
ROUNDS = 5


def _connection(path: str, options: dict) -> DatabaseWrapper:
    settings = {
        "ENGINE": "django.db.backends.sqlite3", "NAME": path, "OPTIONS": dict(options),
        "ATOMIC_REQUESTS": False, "AUTOCOMMIT": True, "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False, "TIME_ZONE": None, "USER": "", "PASSWORD": "", "HOST": "",
        "PORT": "", "TEST": {},
    }  # fmt: skip
    return DatabaseWrapper(settings, alias=f"writer-{threading.get_ident()}")


def _writers(path: str, options: dict) -> list[str]:
    """WRITERS threads, each ROUNDS times: in one transaction read the count, pause while the
    others do the same, then write. Returns the errors."""
    setup = _connection(path, options)
    with setup.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS tally (n INTEGER)")
    setup.close()
    errors: list[str] = []
    start = threading.Barrier(WRITERS)

    def write() -> None:
        connection = _connection(path, options)
        start.wait()
        try:
            for _ in range(ROUNDS):
                with _Transaction(connection), connection.cursor() as cursor:
                    cursor.execute("SELECT COUNT(*) FROM tally")
                    (seen,) = cursor.fetchone()
                    time.sleep(0.02)  # the others read meanwhile
                    cursor.execute("INSERT INTO tally (n) VALUES (%s)", [seen])
        except Exception as exc:  # collected: the test reports every one
            errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            connection.close()

    threads = [threading.Thread(target=write) for _ in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return errors


class _Transaction:
    """A transaction begun as Django's `atomic` begins one on SQLite ("BEGIN" in the configured
    transaction mode), on a connection of our own (`atomic` takes a configured alias only)."""

    def __init__(self, connection: DatabaseWrapper) -> None:
        self.connection = connection

    def __enter__(self) -> None:
        self.connection.ensure_connection()
        self.connection._start_transaction_under_autocommit()

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.connection.connection.commit()
        else:
            self.connection.connection.rollback()


def _count(path: str) -> int:
    connection = _connection(path, SQLITE_OPTIONS)
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM tally")
        (count,) = cursor.fetchone()
    connection.close()
    return count


def test_the_settings_writers_all_succeed(tmp_path, django_db_blocker):
    path = str(tmp_path / "shared.sqlite3")
    with django_db_blocker.unblock():  # a file of the test's own, not the test database
        assert _writers(path, SQLITE_OPTIONS) == []
        assert _count(path) == WRITERS * ROUNDS  # every write recorded once


def test_deferred_transactions_fail_so_the_setting_matters(tmp_path, django_db_blocker):
    """The same load with SQLite's default (deferred) transactions: some writer is refused,
    which is what the setting prevents. If SQLite ever stops refusing, this says so."""
    path = str(tmp_path / "shared.sqlite3")
    deferred = {key: value for key, value in SQLITE_OPTIONS.items() if key != "transaction_mode"}
    with django_db_blocker.unblock():
        errors = _writers(path, deferred)
    assert errors, "deferred transactions no longer conflict"
    assert all("database is locked" in error for error in errors), errors
