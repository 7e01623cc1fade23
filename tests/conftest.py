"""Shared fixtures. Integration tests that need a real service call `require_service`, which skips
with a visible reason on a bare machine and fails when CI=true (CI must never skip them)."""

import os
import shutil
import socket
from urllib.parse import urlparse

import pytest

from core.roles import ADMINISTRATOR, CATALOG_MANAGER, SALES_ENGINEER, SALES_MANAGER
from tests.core.factories import UserFactory

IN_CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = "/usr/bin/chromium"


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
    engine = settings.DATABASES["default"]["ENGINE"]
    require_service(
        engine == "django.db.backends.postgresql",
        "needs PostgreSQL: set DATABASE_URL=postgres://...",
    )


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
