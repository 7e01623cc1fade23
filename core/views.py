from datetime import timedelta
from pathlib import Path

import redis
from django.apps import apps
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from django.db import connection
from django.db.models import Min, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET
from django.views.defaults import bad_request as site_bad_request
from django.views.defaults import page_not_found
from django.views.defaults import permission_denied as site_permission_denied
from django.views.defaults import server_error as site_server_error

from core.errors import PROBLEM_CONTENT_TYPE, problem_body
from core.models import Job, SweepRun
from core.selectors import dashboard_for
from core.vocabulary import GLOSSARY

API_PREFIX = "/api/"


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The day's dashboard: drafts, quotes by status, expiring quotes, recent documents and, for
    approvers, the approval queue."""
    user = request.user
    assert isinstance(user, User)  # login_required
    return render(request, "core/home.html", {"dashboard": dashboard_for(user)})


@login_required
def help_page(request: HttpRequest) -> HttpResponse:
    """The glossary (rail-optimized, oversubscription, breakout, ...) in the reader's language;
    the wizard's hints link to its terms."""
    return render(request, "core/help.html", {"terms": GLOSSARY})


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """Each dependency's state, for load balancers, docker-compose and people.

    503 when the site cannot serve (the database does not answer); 200 otherwise, with `status`
    "degraded" when the cache or the broker is down (the API then authenticates from the
    database and rate-limits per process; documents wait for the broker), when the oldest queued
    job has waited longer than HEALTH_QUEUED_JOB_MAX_SECONDS, or when a sweep last ran longer
    ago than HEALTH_SWEEP_MAX_SECONDS (a killed job is then never taken over). The worker is
    reported as the last time a background job was started or finished, when one is recorded:
    information, not a verdict (an idle worker records nothing)."""
    checks: dict[str, dict[str, object]] = {
        "database": _check_database(),
        "cache": _check_cache(),
        "broker": _check_broker(),
    }
    if checks["database"]["status"] == "ok":
        checks["worker"] = _check_worker()
        checks["queue"] = _check_queue()
        checks["sweeps"] = _check_sweeps()
    if checks["database"]["status"] != "ok":
        status, code = "down", 503
    elif any(checks[name]["status"] != "ok" for name in ("cache", "broker")) or any(
        checks[name]["status"] == "late" for name in ("queue", "sweeps")
    ):
        status, code = "degraded", 200
    else:
        status, code = "ok", 200
    response = JsonResponse({"status": status, "checks": checks}, status=code)
    response["Cache-Control"] = "no-store"
    return response


def _error(exc: BaseException) -> str:
    # The exception's class only: its text may name hosts, users or paths.
    return type(exc).__name__


def _check_database() -> dict[str, object]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any failure means the site cannot serve
        return {"status": "down", "error": _error(exc)}
    return {"status": "ok"}


def _check_cache() -> dict[str, object]:
    backend = caches["default"]
    kind = "redis" if isinstance(backend, RedisCache) else "local"
    ping = getattr(backend, "ping", None)
    try:
        if callable(ping):
            ok = bool(ping())
        else:
            cache.set("health:probe", "1", 5)
            ok = cache.get("health:probe") == "1"
    except Exception as exc:
        return {"status": "down", "backend": kind, "error": _error(exc)}
    return {"status": "ok" if ok else "down", "backend": kind}


def _check_broker() -> dict[str, object]:
    url = str(getattr(settings, "CELERY_BROKER_URL", "") or "")
    if url.startswith(("redis://", "rediss://")):
        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=0.25, socket_timeout=0.5)
            try:
                client.ping()
            finally:
                client.close()
        except Exception as exc:
            return {"status": "down", "backend": "redis", "error": _error(exc)}
        return {"status": "ok", "backend": "redis"}
    if url.startswith("filesystem://"):
        folder = Path(settings.CELERY_DATA_DIR) / "queue"
        return {"status": "ok" if folder.is_dir() else "down", "backend": "filesystem"}
    return {"status": "ok", "backend": url.split(":", 1)[0] or "unknown"}


def _check_worker() -> dict[str, object]:
    """The latest start or finish of a background job (worker probes, documents: every concrete
    core.models.Job), read from the newest started row of each kind."""
    last_seen = None
    try:
        for model in _job_models():
            row = (
                model._default_manager.filter(started_at__isnull=False)
                .order_by("-pk")
                .values_list("started_at", "finished_at")
                .first()
            )
            for moment in row or ():
                if moment is not None and (last_seen is None or moment > last_seen):
                    last_seen = moment
    except Exception as exc:
        return {"status": "unknown", "error": _error(exc)}
    if last_seen is None:
        return {"status": "unknown"}
    age = (timezone.now() - last_seen).total_seconds()
    return {"status": "seen", "last_seen": last_seen.isoformat(), "age_seconds": round(age)}


def _job_models() -> list[type[Job]]:
    return [model for model in apps.get_models() if issubclass(model, Job)]


def _check_queue() -> dict[str, object]:
    """The job that has waited longest for a worker, of every kind: "late" past
    HEALTH_QUEUED_JOB_MAX_SECONDS. A job counts from its last message while that message is
    fresh; once it was sent again (stale, or its worker died) or could not be sent at all, it
    counts from its creation: the sweep's re-sends must not hide a queue that no worker takes."""
    now = timezone.now()
    stale_before = now - timedelta(seconds=settings.JOB_QUEUE_STALE_SECONDS)
    oldest = None
    try:
        for model in _job_models():
            waiting = model._default_manager.filter(status=model.QUEUED)
            again = Q(queued_at__isnull=True) | Q(queued_at__lt=stale_before) | Q(step="requeued")
            for moment in (
                waiting.exclude(again).aggregate(first=Min("queued_at"))["first"],
                waiting.filter(again).aggregate(first=Min("created_at"))["first"],
            ):
                if moment is not None and (oldest is None or moment < oldest):
                    oldest = moment
    except Exception as exc:
        return {"status": "unknown", "error": _error(exc)}
    if oldest is None:
        return {"status": "ok", "oldest_queued_seconds": 0}
    age = round((now - oldest).total_seconds())
    late = age > settings.HEALTH_QUEUED_JOB_MAX_SECONDS
    return {"status": "late" if late else "ok", "oldest_queued_seconds": age}


def _check_sweeps() -> dict[str, object]:
    """When each kind of job was last swept (core.jobs records every run): "late" when any
    sweep's last run is older than HEALTH_SWEEP_MAX_SECONDS, "unknown" before the first one."""
    try:
        runs = dict(SweepRun.objects.values_list("name", "finished_at"))
    except Exception as exc:
        return {"status": "unknown", "error": _error(exc)}
    if not runs:
        return {"status": "unknown"}
    now = timezone.now()
    ages = {name: round((now - moment).total_seconds()) for name, moment in sorted(runs.items())}
    oldest = max(ages.values())
    return {
        "status": "late" if oldest > settings.HEALTH_SWEEP_MAX_SECONDS else "ok",
        "last_run_seconds": oldest,
        "last_run": min(runs.values()).isoformat(),
        "each_seconds": ages,
    }


# --- Errors Django answers itself (not DRF's exception handler): problem+json under /api/, where
# integrators parse them, and the site's pages elsewhere. ---------------------------------------


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def problem_response(status: int, title: str, detail: str) -> JsonResponse:
    return JsonResponse(
        problem_body(status, title, detail), status=status, content_type=PROBLEM_CONTENT_TYPE
    )


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A request Django refused before any view (too large a body, a disallowed host...)."""
    if is_api(request):
        return problem_response(400, "Bad Request", _("The request could not be read."))
    return site_bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return problem_response(403, "Forbidden", _("You may not do this."))
    return site_permission_denied(request, exception)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A 404 as problem+json under /api/ (integrators parse it); the site's page elsewhere."""
    if is_api(request):
        return problem_response(404, "Not Found", _("No such resource."))
    return page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """An unhandled error: no detail leaves the server (the log has it, under the request id that
    the X-Request-ID response header carries)."""
    if is_api(request):
        return problem_response(
            500,
            "Internal Server Error",
            _("The server failed to answer this request; the X-Request-ID header identifies it."),
        )
    return site_server_error(request)
