"""Settings for pytest. The database and broker still come from DATABASE_URL / REDIS_URL, so that
the same suite runs against SQLite and the filesystem broker on a bare machine, and against real
PostgreSQL and Redis in CI."""

import os

# The test broker folder (when no Redis) must be set before base.py derives the transport paths.
os.environ.setdefault(
    "CELERY_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "var", "celery-test")
)

from .base import *  # noqa: F403
from .base import BASE_DIR, DATABASES, env, task_routes

DEBUG = False
# Tests read English unless they ask for Chinese (the product's default is zh-hans).
LANGUAGE_CODE = "en"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MEDIA_ROOT = env("MEDIA_ROOT", default=str(BASE_DIR / "var" / "test-media" / str(os.getpid())))

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not :memory:, so that a real worker process can see what the test wrote.
    # One file per test process, so that concurrent runs never share (or delete) each other's.
    DATABASES["default"]["TEST"] = {
        "NAME": str(BASE_DIR / "var" / f"test-db-{os.getpid()}.sqlite3")
    }

# Each test process (each pytest-xdist worker too) gets its own queues, so that a worker started
# by a test never picks up messages left by another run or sent by another process's tests. The
# worker subprocess is told its test process's queues (tests/conftest.py `worker_env`); nothing is
# written to os.environ here, since xdist's workers would inherit the controller's queues.
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_TASK_DEFAULT_QUEUE", default=f"test-{os.getpid()}")
DOCUMENTS_QUEUE = env("DOCUMENTS_QUEUE", default=f"{CELERY_TASK_DEFAULT_QUEUE}-documents")
# The other kinds share the test process's default queue unless a test names theirs: the worker a
# test starts (tests/conftest.py) consumes the default and the documents queues. Production's
# routes (config.settings.base) are checked against docker-compose by tests/test_compose.py.
EXPORTS_QUEUE = env("EXPORTS_QUEUE", default=CELERY_TASK_DEFAULT_QUEUE)
WEBHOOKS_QUEUE = env("WEBHOOKS_QUEUE", default=CELERY_TASK_DEFAULT_QUEUE)
SWEEPS_QUEUE = env("SWEEPS_QUEUE", default=CELERY_TASK_DEFAULT_QUEUE)
CELERY_TASK_ROUTES = task_routes(
    {
        "documents": DOCUMENTS_QUEUE,
        "exports": EXPORTS_QUEUE,
        "webhooks": WEBHOOKS_QUEUE,
        "sweeps": SWEEPS_QUEUE,
    }
)

# The tests' webhook receivers listen on loopback over plain HTTP (tests/core/receiver.py),
# including for a real worker process, which reads these settings too. Tests of the refusals
# set the production defaults (https only, no private network) themselves.
WEBHOOK_ALLOW_HTTP = env.bool("WEBHOOK_ALLOW_HTTP", default=True)
WEBHOOK_ALLOWED_NETWORKS = env.list("WEBHOOK_ALLOWED_NETWORKS", default=["127.0.0.1/32"])

LOG_LEVEL = env("LOG_LEVEL", default="WARNING")
LOGGING["root"]["level"] = LOG_LEVEL  # type: ignore[index]  # noqa: F405

# Serve static files straight from the source folders; no collectstatic needed.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
