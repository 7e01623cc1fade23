"""Settings shared by every environment. Everything that differs between machines comes from the
environment (django-environ); see `.env.example` for the full list."""

from datetime import timedelta
from pathlib import Path
from typing import Any

import django_stubs_ext
import environ
from csp.constants import NONE, SELF
from django.utils.translation import gettext_lazy as _
from django_guid.integrations import CeleryIntegration
from rest_framework import fields as _drf_fields
from rest_framework import serializers as _drf_serializers

# Django's generic classes subscriptable at run time, as the type checker reads them, and DRF's
# serializers and fields (ModelSerializer[Product], Field[...]), which DRF's stubs make generic.
# DRF's views are not listed: they inherit django.views.View, patched by default (and importing
# rest_framework.views reads settings, which must not happen while they are being defined).
django_stubs_ext.monkeypatch(
    extra_classes=[
        _drf_fields.Field,
        _drf_serializers.BaseSerializer,
        _drf_serializers.Serializer,
        _drf_serializers.ModelSerializer,
        _drf_serializers.ListSerializer,
    ]
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

SECRET_KEY = env("SECRET_KEY", default="dev-only-insecure-key-change-me")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "django_htmx",
    "django_guid",
    "axes",
    "csp",
    "import_export",
    "simple_history",
    "core",
    "catalog",
    "planner",
    "customers",
    "quotes",
]

MIDDLEWARE = [
    "django_guid.middleware.guid_middleware",
    # A NUL byte in a path or query is a 400 before anything looks it up.
    "core.middleware.NulByteMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # An expired session: htmx gets HX-Redirect, `next` is the page, never a 405 (issue 27).
    "core.middleware.SessionExpiryMiddleware",
    "core.middleware.IdempotencyMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Axes must come last: it reads the outcome of authentication.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.context_processors.navigation",
            ],
        },
    },
]

# SQLite by default so that a bare machine runs; DATABASE_URL switches to PostgreSQL (psycopg 3).
# The web server and the workers write to the same SQLite file: wait up to 20 s for the lock
# instead of failing, and take it when a transaction begins. A deferred transaction that reads
# and then writes cannot wait (SQLite answers "database is locked" at once, whatever the
# timeout) when another process wrote in between: several gunicorn writers hit it (issue 29).
SQLITE_OPTIONS: dict[str, Any] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(SQLITE_OPTIONS)
# A connection per process, kept between requests: opening one (and, for PostgreSQL, its TLS
# and authentication) cost more than a list request's own queries.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Reverse proxies in front of the site that append the client's address to X-Forwarded-For; 0
# (the default) trusts no header and uses the connection's address. Used by login lockout, share
# page throttling and the API's anonymous rate limit.
NUM_PROXIES = env.int("NUM_PROXIES", default=0)

# Failed logins (core.lockout): lock a username at an address after 5 failures, and an address
# after 20 failures whatever the usernames (password spraying), each for 15 minutes.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
LOGIN_IP_FAILURE_LIMIT = env.int("LOGIN_IP_FAILURE_LIMIT", default=20)
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_HANDLER = "core.lockout.LoginLockoutHandler"
AXES_CLIENT_IP_CALLABLE = "core.lockout.client_ip"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("Simplified Chinese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["core.formats"]  # zh-Hans groups digits like en
TIME_ZONE = env("TIME_ZONE", default="Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env("MEDIA_ROOT", default=str(BASE_DIR / "media")))
STORAGES: dict[str, dict[str, Any]] = {
    # Generated documents are private: they are served through an authorising view, never MEDIA_URL.
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# S3-compatible object storage (AWS, MinIO, OSS...) for generated documents when a bucket is set.
if env("AWS_STORAGE_BUCKET_NAME", default=""):
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env("AWS_STORAGE_BUCKET_NAME"),
            "endpoint_url": env("AWS_S3_ENDPOINT_URL", default=None),
            "region_name": env("AWS_S3_REGION_NAME", default=None),
            "default_acl": "private",
            "file_overwrite": True,
        },
    }

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# No inline scripts anywhere: every script is a file under static/.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Bearer first: its WWW-Authenticate header makes an anonymous call a 401, not a 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "core.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "core.authentication.TokenScopePermission",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # The API speaks JSON only: integrators send JSON, and one body format means one schema.
    # Nesting is limited (API_JSON_MAX_DEPTH) and NUL characters are refused (core.parsers).
    "DEFAULT_PARSER_CLASSES": ["core.parsers.LimitedJSONParser"],
    # OPTIONS names the view and its media types; bodies are documented in the schema.
    "DEFAULT_METADATA_CLASS": "core.metadata.ApiMetadata",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PAGINATION_CLASS": "core.pagination.ApiCursorPagination",
    "PAGE_SIZE": 25,
    "EXCEPTION_HANDLER": "core.api.problem_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "core.throttling.UserRateLimit",
        "core.throttling.AnonRateLimit",
    ],
    # The anonymous rate limit counts per client address, from X-Forwarded-For only behind
    # NUM_PROXIES trusted proxies (DRF's default trusts whatever the client sends).
    "NUM_PROXIES": NUM_PROXIES,
    "DEFAULT_THROTTLE_RATES": {
        "user": env("API_THROTTLE_USER", default="1200/min"),
        "anon": env("API_THROTTLE_ANON", default="60/min"),
    },
}
# The customer's share pages (/s/<token>/...), per client address.
SHARE_THROTTLE_RATE = env("SHARE_THROTTLE_RATE", default="60/min")
API_JSON_MAX_DEPTH = env.int("API_JSON_MAX_DEPTH", default=32)
EXPORT_SYNC_MAX_ROWS = env.int("EXPORT_SYNC_MAX_ROWS", default=100_000)  # larger: a job
# The BOM workbook (BOM and cabling sheets): openpyxl writes about 4,500 of its rows a second
# here (a 100,000-row cabling sheet took 22 s, a million-GPU design's 47 s through the page), so
# past this many rows a worker writes it.
EXPORT_XLSX_SYNC_MAX_ROWS = env.int("EXPORT_XLSX_SYNC_MAX_ROWS", default=10_000)
# Label sheets: up to this many cables the page renders the PDF in the request, above it a worker
# does. Measured (bench.handover) at about 9 ms of CPU a cable (two labels) through WeasyPrint,
# the fallback without the Noto CJK fonts: 300 cables is under 3 s even on a loaded machine.
LABELS_SYNC_MAX_CABLES = env.int("LABELS_SYNC_MAX_CABLES", default=300)
# The launch-kit topology and the InfraGraph document are written in the request up to this many
# cables (planner.handover.files): 131,072 GPUs (385,024 cables) took 4-6 s each on an idle
# machine and 11-16 s on a busy one, so the bound is the cable-by-cable exports' own.
HANDOVER_SYNC_MAX_CABLES = env.int("HANDOVER_SYNC_MAX_CABLES", default=100_000)

# Webhook targets (core.webhooks): https to public addresses only. http:// only when allowed;
# private networks (an on-premises CRM, e.g. 10.20.0.0/16) only when listed here.
WEBHOOK_ALLOW_HTTP = env.bool("WEBHOOK_ALLOW_HTTP", default=False)
WEBHOOK_ALLOWED_NETWORKS = env.list("WEBHOOK_ALLOWED_NETWORKS", default=[])
SPECTACULAR_SETTINGS = {
    "TITLE": "EZMAX Fabric Planner API",
    "DESCRIPTION": "Size GPU-cluster networks, browse the catalog and quote them.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and its docs are public: they describe the API, they grant nothing.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.schema.add_problem_responses",
    ],
    # Swagger UI from the sidecar package: the site has no CDN access and a strict CSP.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # One name per choice set, where several fields share one (or one name, several sets).
    "ENUM_NAME_OVERRIDES": {
        "FormFactorEnum": "catalog.models.FORM_FACTOR_CHOICES",
        "ConnectorEnum": "catalog.models.CONNECTOR_CHOICES",
        "AlternativeLabelEnum": "planner.api.serializers.LABELS",
        "CatalogMediaEnum": "catalog.models.MediaChoices",
        "CableKindEnum": "catalog.models.CableKind",
        "MediaPolicyEnum": "planner.serializers.MEDIA_POLICY_CHOICES",
        "LanguageEnum": "config.settings.base.LANGUAGES",
        "WebhookEventEnum": "core.models.WebhookEvent",
        "DeliveryStatusEnum": "core.models.DeliveryStatus",
        "QuoteStatusEnum": "quotes.models.QuoteStatus",
        "LineKindEnum": "quotes.models.LineKind",
        "DocumentKindEnum": "quotes.models.DocumentKind",
        "DocumentStatusEnum": "quotes.models.DocumentStatus",
        "JobStatusEnum": "core.models.JobStatus",
    },
}

# Throttling counters, cached API tokens and the catalog revision live here: Redis when
# configured, so that every gunicorn worker shares them; otherwise per process. Everything in it
# has a slower source, so a Redis outage degrades the API instead of failing it
# (core.cache.ResilientRedisCache): tokens are read from the database, rate limits count per
# process. Short socket timeouts keep an unreachable (not just stopped) Redis from holding
# requests; after a failure Redis is not asked again for CACHE_DOWN_SECONDS. Both backends count
# their gets, hits and misses for /metrics (core.cache_metrics).
CACHES = {
    "default": (
        {
            "BACKEND": "core.cache_metrics.MeteredResilientRedisCache",
            "LOCATION": env("REDIS_URL"),
            "DOWN_SECONDS": env.float("CACHE_DOWN_SECONDS", default=2.0),
            "OPTIONS": {
                "socket_connect_timeout": env.float("CACHE_CONNECT_TIMEOUT", default=0.25),
                "socket_timeout": env.float("CACHE_SOCKET_TIMEOUT", default=0.5),
            },
        }
        if env("REDIS_URL", default="")
        else {"BACKEND": "core.cache_metrics.MeteredLocMemCache"}
    )
}

# --- Requests -----------------------------------------------------------------------------------
# gunicorn kills a request that runs longer than this (gunicorn.conf.py reads the same variable).
GUNICORN_TIMEOUT = env.int("GUNICORN_TIMEOUT", default=60)
# An Idempotency-Key still "in progress" after the request timeout (plus the few seconds gunicorn
# takes to kill the worker) belongs to a killed request: a retry with it then proceeds (409 before).
IDEMPOTENCY_IN_FLIGHT_SECONDS = env.int(
    "IDEMPOTENCY_IN_FLIGHT_SECONDS", default=GUNICORN_TIMEOUT + 5
)

# --- Background jobs: every time limit in one place ---------------------------------------------
# Documents and worker probes run through one scheme (core.jobs). A worker holds a short lease on
# its job, renewed by a heartbeat thread every third of it; a lease that runs out means the worker
# died, and the sweep (every JOB_SWEEP_SECONDS) queues the job again: a killed job is taken over
# within lease + sweep period (30 + 15 s), up to JOB_MAX_ATTEMPTS takes. A queued job whose
# message went to the broker longer ago than JOB_QUEUE_STALE_SECONDS is sent again (the broker may
# have lost it: a Redis restart without persistence); a duplicate message is harmless (tasks are
# idempotent). Lost jobs are sent again within stale + sweep period (60 + 15 s).
JOB_SOFT_TIME_LIMIT_SECONDS = env.int("JOB_SOFT_TIME_LIMIT_SECONDS", default=300)
JOB_TIME_LIMIT_SECONDS = env.int("JOB_TIME_LIMIT_SECONDS", default=360)
JOB_LEASE_SECONDS = env.float("JOB_LEASE_SECONDS", default=30.0)
JOB_HEARTBEAT_SECONDS = env.float("JOB_HEARTBEAT_SECONDS", default=JOB_LEASE_SECONDS / 3)
JOB_SWEEP_SECONDS = env.int("JOB_SWEEP_SECONDS", default=15)
JOB_QUEUE_STALE_SECONDS = env.int("JOB_QUEUE_STALE_SECONDS", default=60)
JOB_MAX_ATTEMPTS = env.int("JOB_MAX_ATTEMPTS", default=3)
# A webhook delivery whose message went to the broker is not sent again by the dispatcher until
# this long has passed without an attempt (the broker may have lost it): re-sending what was
# still queued grew the queue to 14,765 messages behind a hung endpoint.
WEBHOOK_QUEUE_STALE_SECONDS = env.int("WEBHOOK_QUEUE_STALE_SECONDS", default=600)
# A webhook endpoint whose last WEBHOOK_BREAKER_FAILURES attempts all timed out or could not
# connect gets no attempt for WEBHOOK_BREAKER_SECONDS (core.webhooks.endpoint_failing): its
# deliveries wait instead of each holding a webhooks worker for the 10 s timeout. 0: no breaker.
WEBHOOK_BREAKER_FAILURES = env.int("WEBHOOK_BREAKER_FAILURES", default=3)
WEBHOOK_BREAKER_SECONDS = env.int("WEBHOOK_BREAKER_SECONDS", default=300)
# /health/ answers "degraded" when a queued job has waited longer than this (no worker takes its
# queue, or the queue is far behind), or when a sweep has not run for this long (beat or the
# sweeps worker stopped; a killed job is then never taken over).
HEALTH_QUEUED_JOB_MAX_SECONDS = env.int("HEALTH_QUEUED_JOB_MAX_SECONDS", default=300)
HEALTH_SWEEP_MAX_SECONDS = env.int("HEALTH_SWEEP_MAX_SECONDS", default=4 * JOB_SWEEP_SECONDS)
# The broker must not hand a message to another worker while the first may still be running it,
# so its visibility timeout is far longer than the hard limit.
CELERY_VISIBILITY_TIMEOUT = env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)

# --- Celery -------------------------------------------------------------------------------------
# Redis when REDIS_URL is set; otherwise kombu's filesystem transport, so that a bare machine still
# runs a real worker process with no server to install.
REDIS_URL = env("REDIS_URL", default="")
CELERY_DATA_DIR = Path(env("CELERY_DATA_DIR", default=str(VAR_DIR / "celery")))
CELERY_TASK_SOFT_TIME_LIMIT = JOB_SOFT_TIME_LIMIT_SECONDS
CELERY_TASK_TIME_LIMIT = JOB_TIME_LIMIT_SECONDS
# Every call to the broker's Redis is bounded: a frozen Redis (accepting connections, answering
# nothing) held each request that sent a message, with no timeout, until gunicorn killed it. A
# send now gives up after one socket timeout (0.5 s measured with a SIGSTOPped Redis, on a pooled
# connection or a new one; before, it never returned), and the sender (core.jobs.broker_send)
# then leaves the broker alone for BROKER_DOWN_SECONDS: the rows it meant to announce stay queued
# (jobs) or due (webhook deliveries) and the sweeps send them once the broker answers. A worker's
# BRPOP is read when its socket is readable (kombu's event loop), so the short timeout does not
# cut its 1 s poll.
BROKER_CONNECT_TIMEOUT = env.float("BROKER_CONNECT_TIMEOUT", default=0.5)
BROKER_SOCKET_TIMEOUT = env.float("BROKER_SOCKET_TIMEOUT", default=0.5)
BROKER_DOWN_SECONDS = env.float("BROKER_DOWN_SECONDS", default=5.0)
BROKER_REDIS_OPTIONS: dict[str, object] = {
    "socket_connect_timeout": BROKER_CONNECT_TIMEOUT,
    "socket_timeout": BROKER_SOCKET_TIMEOUT,
    "socket_keepalive": True,
    "retry_on_timeout": False,
}
# No retry by kombu (its default is three): redis-py already reconnects a pooled connection that
# a Redis restart broke (2 ms measured), and each of kombu's retries cost two more socket timeouts
# against a frozen Redis (1.5 s instead of 0.5 s).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": env.int("BROKER_PUBLISH_RETRIES", default=0),
    "interval_start": 0,
    "interval_step": 0.1,
    "interval_max": 0.1,
}
CELERY_BROKER_CONNECTION_TIMEOUT = BROKER_CONNECT_TIMEOUT
# Nothing reads a task's return value (jobs report through their rows): sending never subscribes
# to the result store, whose reconnection loop held requests for 20 s when Redis was down.
CELERY_TASK_IGNORE_RESULT = True
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
        **BROKER_REDIS_OPTIONS,
    }
    CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
        "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
        "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.2},
    }
    CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = BROKER_CONNECT_TIMEOUT
    CELERY_REDIS_SOCKET_TIMEOUT = BROKER_SOCKET_TIMEOUT
    CELERY_REDIS_RETRY_ON_TIMEOUT = False
else:
    _queue_dir = str(CELERY_DATA_DIR / "queue")
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": _queue_dir,
        "data_folder_out": _queue_dir,
        "processed_folder": str(CELERY_DATA_DIR / "processed"),
        "control_folder": str(CELERY_DATA_DIR / "control"),
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = f"file://{CELERY_DATA_DIR / 'results'}"
    for _folder in ("queue", "processed", "results", "control"):
        (CELERY_DATA_DIR / _folder).mkdir(parents=True, exist_ok=True)
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXPIRES = timedelta(days=1)
CELERY_WORKER_MAX_MEMORY_PER_CHILD = env.int("CELERY_WORKER_MAX_MEMORY_PER_CHILD", default=800_000)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE


def _sweep(task: str) -> dict[str, object]:
    # Sweeps sent while no worker ran are dropped, not run one after another on its return.
    return {"task": task, "schedule": JOB_SWEEP_SECONDS, "options": {"expires": JOB_SWEEP_SECONDS}}


# Periodic work scans the database (never delayed tasks): expiring quotes, due webhook attempts,
# and the job sweeps.
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "expire-quotes": {"task": "quotes.tasks.expire_quotes", "schedule": 15 * 60},
    # Like the sweeps: a dispatch nobody ran within its minute is dropped, the next one scans.
    "dispatch-due-webhooks": {
        "task": "core.tasks.dispatch_due_webhooks",
        "schedule": 60,
        "options": {"expires": 60},
    },
    "purge-idempotency-keys": {"task": "core.tasks.purge_idempotency_keys", "schedule": 60 * 60},
    # Files no row names and finished webhook deliveries (core.retention; README, retention).
    "retention-sweep": {"task": "core.tasks.retention_sweep", "schedule": 60 * 60},
    "sweep-documents": _sweep("quotes.tasks.sweep_documents"),
    "sweep-worker-probes": _sweep("core.tasks.sweep_worker_probes"),
    "sweep-exports": _sweep("planner.tasks.sweep_exports"),
    "sweep-asbuilt-checks": _sweep("planner.asbuilt.tasks.sweep_asbuilt_checks"),
}
# Queues by kind, each with its own worker (docker-compose.yml), so that no kind of work waits
# behind another: one hung CRM endpoint with 40 webhook events held the default queue, and with it
# the 15 s sweeps (expired while they waited) and a 13 s export, for minutes. Sweeps (and the
# webhook dispatcher, a sweep of due deliveries) are short database scans on a queue nothing else
# uses; webhook deliveries (10 s timeout each) on theirs; exports and as-built checks on theirs;
# PDFs on theirs (one at a time, memory-capped). Everything else (worker probes, quote expiry,
# purges) stays on the default queue.
DOCUMENTS_QUEUE = env("DOCUMENTS_QUEUE", default="documents")
EXPORTS_QUEUE = env("EXPORTS_QUEUE", default="exports")
WEBHOOKS_QUEUE = env("WEBHOOKS_QUEUE", default="webhooks")
SWEEPS_QUEUE = env("SWEEPS_QUEUE", default="sweeps")
# Each routed task and the kind of queue it goes to; `task_routes` names the queues.
TASK_QUEUE_KINDS = {
    "quotes.tasks.render_document_task": "documents",
    "planner.tasks.export_design_task": "exports",
    "planner.tasks.warm_design_pages_task": "exports",
    "planner.asbuilt.tasks.asbuilt_check_task": "exports",
    "core.tasks.deliver_webhook": "webhooks",
    "core.tasks.dispatch_due_webhooks": "sweeps",
    "quotes.tasks.sweep_documents": "sweeps",
    "core.tasks.sweep_worker_probes": "sweeps",
    "planner.tasks.sweep_exports": "sweeps",
    "planner.asbuilt.tasks.sweep_asbuilt_checks": "sweeps",
}


def task_routes(queues: dict[str, str]) -> dict[str, dict[str, str]]:
    return {task: {"queue": queues[kind]} for task, kind in TASK_QUEUE_KINDS.items()}


CELERY_TASK_ROUTES = task_routes(
    {
        "documents": DOCUMENTS_QUEUE,
        "exports": EXPORTS_QUEUE,
        "webhooks": WEBHOOKS_QUEUE,
        "sweeps": SWEEPS_QUEUE,
    }
)
# The worker logs through Django's LOGGING (JSON lines) instead of replacing the root logger.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- Logging: one JSON object per line, with the request id on every line ----------------------
DJANGO_GUID = {
    "GUID_HEADER_NAME": "X-Request-ID",
    "RETURN_HEADER": True,
    "EXPOSE_HEADER": True,
    "VALIDATE_GUID": False,
    # Carries the request id into the Celery tasks a request queues.
    "INTEGRATIONS": [CeleryIntegration(log_parent=True)],
}
LOG_LEVEL = env("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "django_guid.log_filters.CorrelationId"},
        # Share-link tokens (/s/<token>/) never reach a log line.
        "redact_share_tokens": {"()": "core.log_filters.RedactShareTokens"},
    },
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s %(correlation_id)s",
            "rename_fields": {"correlation_id": "request_id", "levelname": "level"},
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "filters": ["request_id", "redact_share_tokens"],
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "celery": {"level": LOG_LEVEL},
        # django-axes announces its version at INFO whenever Django starts: a second line under
        # every `manage.py` error, which is to be one line (lockouts still log, at WARNING).
        "axes.apps": {"level": "WARNING"},
    },
}

# Media selection prefers the seller's own brand (EZMAX) when it costs at most this fraction
# more per link than the cheapest part that fits (issue: "Media chosen by cost").
OWN_BRAND_MARGIN = env.float("OWN_BRAND_MARGIN", default=0.05)

# --- Issue 29: bounded request bodies, fair use of the workers, retention -----------------------
# Request bodies (core.body_limits): refused by their declared length before any byte is read,
# 413 above the cap of their path (411 without a length). Uploads (the as-built check, the catalog
# import) take 20 MB of files plus room for the form around them; everything else 1 MB. The files'
# bytes are counted again as they arrive (CappedUploadHandler, before any is spooled to disk).
UPLOAD_FILE_MAX_BYTES = env.int("UPLOAD_FILE_MAX_BYTES", default=20 * 1024 * 1024)
UPLOAD_BODY_MAX_BYTES = env.int(
    "UPLOAD_BODY_MAX_BYTES", default=UPLOAD_FILE_MAX_BYTES + 1024 * 1024
)
REQUEST_BODY_MAX_BYTES = env.int("REQUEST_BODY_MAX_BYTES", default=1024 * 1024)
UPLOAD_BODY_PATHS = [
    r"^/designs/\d+/handover/as-built/$",
    r"^/api/v1/designs/[^/]+/as-built/$",
    r"^/admin/catalog/\w+/(process_)?import/$",
]
FILE_UPLOAD_HANDLERS = [
    "core.body_limits.CappedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# Before the CSRF check and the idempotency middleware, which both read the body.
MIDDLEWARE.insert(
    MIDDLEWARE.index("core.middleware.NulByteMiddleware") + 1,
    "core.body_limits.BodyLimitMiddleware",
)
# A JSON body's keys, counted in every object, before any serializer looks at them (core.parsers).
API_JSON_MAX_KEYS = env.int("API_JSON_MAX_KEYS", default=200)

# Fair use (core.fair_use): documents and exports one user, and one team, may have queued or
# running at once; one more is 429 with Retry-After (one render's typical time).
JOBS_PER_USER_MAX = env.int("JOBS_PER_USER_MAX", default=10)
JOBS_PER_TEAM_MAX = env.int("JOBS_PER_TEAM_MAX", default=30)
JOBS_RETRY_AFTER_SECONDS = env.int("JOBS_RETRY_AFTER_SECONDS", default=30)
MIDDLEWARE.insert(
    MIDDLEWARE.index("axes.middleware.AxesMiddleware"), "core.middleware.RetryAfterMiddleware"
)

# Retention (core.retention, `manage.py retention_sweep`): webhook deliveries and their attempts
# are deleted this long after they succeeded or finally failed; a stored file no row names is
# deleted once older than the grace period (a file is written just before its row commits).
WEBHOOK_DELIVERY_RETENTION_DAYS = env.int("WEBHOOK_DELIVERY_RETENTION_DAYS", default=30)
ORPHAN_FILE_GRACE_HOURS = env.int("ORPHAN_FILE_GRACE_HOURS", default=24)

# --- Issue 30: metrics for the operator's Prometheus (core.metrics) -----------------------------
# /metrics answers an address in these networks (the client's, behind NUM_PROXIES trusted
# proxies), or a caller sending `Authorization: Bearer <METRICS_TOKEN>` when a token is set;
# anyone else gets a 404. docker-compose keeps loopback unless told otherwise (a Prometheus on its
# network sends the token); in Kubernetes only the token admits (deploy/k8s ConfigMap).
METRICS_ALLOWED_NETWORKS = env.list("METRICS_ALLOWED_NETWORKS", default=["127.0.0.1/32", "::1/128"])
METRICS_TOKEN = env("METRICS_TOKEN", default="")
# Request figures per view: django-prometheus' first middleware outermost (it times everything
# below it), then the endpoint itself, before any middleware that checks the host or the scheme;
# its second middleware innermost but for Axes, which must stay last.
MIDDLEWARE.insert(0, "django_prometheus.middleware.PrometheusBeforeMiddleware")
MIDDLEWARE.insert(1, "core.metrics.MetricsMiddleware")
MIDDLEWARE.insert(
    MIDDLEWARE.index("axes.middleware.AxesMiddleware"),
    "django_prometheus.middleware.PrometheusAfterMiddleware",
)
# gunicorn runs several processes per pod: with this folder set, each writes its figures there
# and a scrape sums them (prometheus_client's multiprocess mode). It must exist before the first
# figure is written, in whichever process reads these settings first.
if env("PROMETHEUS_MULTIPROC_DIR", default=""):
    Path(env("PROMETHEUS_MULTIPROC_DIR")).mkdir(parents=True, exist_ok=True)
# Each Celery worker's task counts and run times (core.worker_metrics), served by its main
# process on this port to the same readers as /metrics; 0, the default, serves nothing. A prefork
# pool's processes report through PROMETHEUS_MULTIPROC_DIR, which must then be set too.
WORKER_METRICS_PORT = env.int("WORKER_METRICS_PORT", default=0)
# Every interface: Prometheus scrapes the pod's or the container's own address.
WORKER_METRICS_ADDRESS = env("WORKER_METRICS_ADDRESS", default="0.0.0.0")
# Query counts, durations and errors per database (django-prometheus' wrapper of Django's own
# backend, same driver): opt-in, so that the engine the tests run is the one production runs
# unless an operator asks for the figures.
if env.bool("METRICS_DATABASE", default=False):
    _engine = DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    if _engine in ("postgresql", "sqlite3"):
        DATABASES["default"]["ENGINE"] = f"django_prometheus.db.backends.{_engine}"
