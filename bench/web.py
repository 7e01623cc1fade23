"""Server-side page timings through Django's full middleware stack, on a throwaway SQLite DB."""

import os
import tempfile

from bench import median_seconds

_ready = False


def setup_django() -> None:
    """Point Django at a fresh SQLite file and migrate it (once per process)."""
    global _ready
    if _ready:
        return
    path = os.path.join(tempfile.mkdtemp(prefix="ezmax-bench-"), "bench.sqlite3")
    os.environ["DATABASE_URL"] = f"sqlite:///{path}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("setup_roles", verbosity=0, stdout=open(os.devnull, "w"))
    _ready = True


def run() -> list[tuple[str, float]]:
    setup_django()
    from django.test import Client

    from core.roles import SALES_ENGINEER
    from core.services import user_create

    user = user_create(
        username="bench", password="bench-pw-123", role=SALES_ENGINEER, team_name="Bench"
    )
    client = Client()
    client.force_login(user)
    return [
        ("GET /health/", median_seconds(lambda: client.get("/health/"), runs=21)),
        ("GET / (home, logged in)", median_seconds(lambda: client.get("/"), runs=21)),
    ]
