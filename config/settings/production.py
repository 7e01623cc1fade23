"""Production settings. Values that must not silently default are checked here, at start-up,
with a message that says what to set."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env

DEBUG = False


def _required(name: str, hint: str) -> str:
    value: str = env(name, default="")
    if not value:
        raise ImproperlyConfigured(f"Set the environment variable {name}: {hint}")
    return value


SECRET_KEY = _required("SECRET_KEY", "a long random string, e.g. `openssl rand -base64 48`.")
if SECRET_KEY.startswith("dev-only") or len(SECRET_KEY) < 50:
    raise ImproperlyConfigured("SECRET_KEY must be a random string of at least 50 characters.")
ALLOWED_HOSTS = _required(
    "ALLOWED_HOSTS", "the host names this site answers, comma-separated."
).split(",")
_required("DATABASE_URL", "e.g. postgres://user:password@db:5432/ezmax.")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
