"""Settings for pytest. The database and broker still come from DATABASE_URL / REDIS_URL, so that
the same suite runs against SQLite and the filesystem broker on a bare machine, and against real
PostgreSQL and Redis in CI."""

import os

from .base import *  # noqa: F403
from .base import BASE_DIR, DATABASES, env

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MEDIA_ROOT = BASE_DIR / "var" / "test-media" / str(os.getpid())

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not :memory:, so that a real worker process can see what the test wrote.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "var" / "test-db.sqlite3")}

LOG_LEVEL = env("LOG_LEVEL", default="WARNING")
LOGGING["root"]["level"] = LOG_LEVEL  # type: ignore[index]  # noqa: F405
