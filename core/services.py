"""Writes for users, teams and background jobs."""

import hashlib
import logging
import secrets
import socket
import threading
from collections.abc import Collection
from datetime import timedelta
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission, User
from django.core.cache import cache
from django.db import IntegrityError, connection, models, transaction
from django.utils import timezone

from core.cache import CACHE_ERRORS
from core.models import (
    ApiToken,
    IdempotencyKey,
    Job,
    JobStatus,
    Membership,
    Team,
    TokenScope,
    WorkerProbe,
)
from core.roles import ROLES, Role

logger = logging.getLogger(__name__)

STAFF_ROLES = frozenset({"sales-manager", "catalog-manager", "administrator"})


class UnknownPermission(LookupError):
    pass


def _permissions_for(role: Role) -> list[Permission]:
    if role.permissions == ("*",):
        return list(Permission.objects.all())
    found: list[Permission] = []
    for dotted in role.permissions:
        app_label, codename = dotted.split(".", 1)
        try:
            found.append(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )
        except Permission.DoesNotExist as exc:
            raise UnknownPermission(f"Role {role.group_name}: no permission {dotted}") from exc
    return found


@transaction.atomic
def roles_apply() -> list[Group]:
    """Create or update one group per role with exactly the role's permissions. Idempotent."""
    groups = []
    for role in ROLES:
        group, _created = Group.objects.get_or_create(name=role.group_name)
        group.permissions.set(_permissions_for(role))
        groups.append(group)
    return groups


@transaction.atomic
def user_create(
    *,
    username: str,
    password: str,
    role: Role,
    team_name: str,
    email: str = "",
    first_name: str = "",
) -> User:
    user_model = get_user_model()
    user: User = user_model.objects.create_user(
        username=username, password=password, email=email, first_name=first_name
    )
    # Managers work in the admin (catalog, prices, discount policy); their permissions still
    # decide what they may change there.
    if role.group_name in STAFF_ROLES:
        user.is_staff = True
        user.is_superuser = role.group_name == "administrator"
        user.save(update_fields=["is_staff", "is_superuser"])
    group, _created = Group.objects.get_or_create(name=role.group_name)
    user.groups.add(group)
    team, _created = Team.objects.get_or_create(name=team_name)
    Membership.objects.create(user=user, team=team)
    return user


# --- Background jobs -----------------------------------------------------------------------------


class JobAbandoned(RuntimeError):
    """The job was delivered more often than allowed: a worker died on it every time."""


class Lease(StrEnum):
    """What `lease_take` found on a job row."""

    TAKEN = "taken"  # this worker now holds it
    HELD = "held"  # another worker holds a live lease
    FINISHED = "finished"  # nothing left to do
    EXHAUSTED = "exhausted"  # delivered more often than JOB_MAX_ATTEMPTS allows


def lease_take(*, row: Any, running: str, finished: Collection[str], lease_seconds: int) -> Lease:
    """The lease rule every job row follows (worker probes, documents): a row is taken unless it
    is finished or another worker's lease is still live, and each take counts as an attempt.
    A lease not renewed for longer than its period is dead (its worker was killed) and is taken
    over. Sets status, start, lease and a new `lease_owner` token on a take; the caller saves.
    The row must be locked (select_for_update) in the caller's transaction."""
    now = timezone.now()
    if row.status in finished:
        return Lease.FINISHED
    if row.status == running and row.lease_expires_at and row.lease_expires_at > now:
        return Lease.HELD
    row.attempts += 1
    if row.attempts > settings.JOB_MAX_ATTEMPTS:
        return Lease.EXHAUSTED
    row.status = running
    row.started_at = now
    row.lease_expires_at = now + timedelta(seconds=lease_seconds)
    row.lease_owner = secrets.token_hex(16)
    return Lease.TAKEN


def lease_renew(
    *, model: type[models.Model], pk: int, owner: str, running: str, lease_seconds: float
) -> bool:
    """Extend a lease its holder still holds: one UPDATE, no lock. False once the job finished or
    another worker took it over (the holder then must not store its result)."""
    renewed = model._default_manager.filter(pk=pk, status=running, lease_owner=owner).update(
        lease_expires_at=timezone.now() + timedelta(seconds=lease_seconds)
    )
    return bool(renewed)


class LeaseHeartbeat:
    """Renews a lease every `interval` seconds from a thread while the work runs, so that a lease
    can be short (a killed worker's job is taken over soon after) however long the work takes.

        with LeaseHeartbeat(model=Document, pk=..., owner=..., running=..., lease_seconds=30):
            render()

    `lost` is set when the lease turns out to be someone else's. The thread has its own database
    connection, so the take must be committed: inside an atomic block (a test's transaction) the
    thread is not started and renewing is left to the caller."""

    def __init__(
        self,
        *,
        model: type[models.Model],
        pk: int,
        owner: str,
        running: str,
        lease_seconds: float,
        interval: float,
    ) -> None:
        self.model, self.pk, self.owner, self.running = model, pk, owner, running
        self.lease_seconds = lease_seconds
        self.interval = interval
        self.lost = threading.Event()
        self.renewals = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "LeaseHeartbeat":
        if not connection.in_atomic_block:
            self._thread = threading.Thread(
                target=self._run, name=f"lease-{self.model.__name__}-{self.pk}", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    held = lease_renew(
                        model=self.model,
                        pk=self.pk,
                        owner=self.owner,
                        running=self.running,
                        lease_seconds=self.lease_seconds,
                    )
                except Exception:  # a database blip: the next beat tries again
                    logger.warning("lease %s %s: renewal failed", self.model.__name__, self.pk)
                    continue
                if not held:
                    logger.warning("lease %s %s: taken over", self.model.__name__, self.pk)
                    self.lost.set()
                    return
                self.renewals += 1
        finally:
            connection.close()  # this thread's own connection


def job_start(*, job: Job, lease_seconds: int | None = None) -> bool:
    """Claim a job for this worker. Returns False when there is nothing to do (already finished, or
    another worker holds a live lease). Raises JobAbandoned once the delivery cap is exceeded.

    Must run inside a transaction that locked the job row (select_for_update)."""
    lease = lease_seconds if lease_seconds is not None else settings.CELERY_TASK_TIME_LIMIT
    outcome = lease_take(
        row=job,
        running=JobStatus.RUNNING,
        finished=(JobStatus.DONE, JobStatus.FAILED),
        lease_seconds=lease,
    )
    if outcome == Lease.EXHAUSTED:
        job_finish(job=job, error=f"Gave up after {settings.JOB_MAX_ATTEMPTS} attempts.")
        raise JobAbandoned(job.error)
    if outcome == Lease.TAKEN:
        job.save()
        return True
    return False


def job_finish(*, job: Job, error: str = "") -> None:
    job.status = JobStatus.FAILED if error else JobStatus.DONE
    job.error = error
    job.finished_at = timezone.now()
    job.lease_expires_at = None
    job.save()


def worker_probe_request() -> WorkerProbe:
    """Create a probe row and queue the task once the row is committed."""
    from core.tasks import run_worker_probe

    with transaction.atomic():
        probe = WorkerProbe.objects.create()
        run_worker_probe.delay_on_commit(probe.pk)
    return probe


def worker_probe_run(*, probe_id: int) -> WorkerProbe:
    with transaction.atomic():
        probe = WorkerProbe.objects.select_for_update().get(pk=probe_id)
        if not job_start(job=probe):
            return probe
        probe.worker_hostname = socket.gethostname()
        job_finish(job=probe)
    return probe


# --- API tokens ----------------------------------------------------------------------------------


def _token_hash(secret: str) -> str:
    # A token carries 256 bits of randomness, so a fast hash is enough (no brute force possible).
    return hashlib.sha256(secret.encode()).hexdigest()


def api_token_create(*, user: User, name: str, scope: str) -> tuple[ApiToken, str]:
    """Returns the row and the secret. Only a hash is stored: the secret cannot be shown again."""
    if scope not in TokenScope.values:
        raise ValueError(f"scope must be one of {', '.join(TokenScope.values)}")
    prefix = secrets.token_hex(4)
    secret = f"ezm_{prefix}_{secrets.token_urlsafe(32)}"
    token = ApiToken.objects.create(
        user=user, name=name, prefix=prefix, key_hash=_token_hash(secret), scope=scope
    )
    return token, secret


# A token, its user and the user's permissions are cached this long: an API call then costs no
# query for loading them or checking permissions; a change of role reaches tokens within this
# time. Whether the token still stands (not revoked, its user active) is read from the database
# on every call, one indexed query, so that revoking a token or deactivating its user, however
# it is done (the admin, a bulk update, another process), stops the token at once.
TOKEN_CACHE_SECONDS = 15


def _token_cache_key(key_hash: str) -> str:
    return f"api-token:{key_hash}"


# The token cache is an optimisation: when the cache is down (Redis unreachable), the error is
# logged and the token is read from the database, as on a cache miss. (The configured backend,
# core.cache.ResilientRedisCache, already degrades; these guards keep authentication working with
# any backend.)


def _token_cache_get(key_hash: str) -> ApiToken | None:
    try:
        token: ApiToken | None = cache.get(_token_cache_key(key_hash))
    except CACHE_ERRORS as exc:
        logger.warning("token cache unavailable, reading the database", extra={"error": str(exc)})
        return None
    return token


def _token_cache_set(key_hash: str, token: ApiToken) -> None:
    try:
        cache.set(_token_cache_key(key_hash), token, TOKEN_CACHE_SECONDS)
    except CACHE_ERRORS as exc:
        logger.warning("token cache unavailable, not cached", extra={"error": str(exc)})


def _token_cache_delete(key_hash: str) -> None:
    # A stale entry left behind is harmless: every call re-checks the token in the database.
    try:
        cache.delete(_token_cache_key(key_hash))
    except CACHE_ERRORS as exc:
        logger.warning("token cache unavailable, not invalidated", extra={"error": str(exc)})


def api_token_authenticate(*, secret: str) -> ApiToken | None:
    key_hash = _token_hash(secret)
    token = _token_cache_get(key_hash)
    if token is None:
        token = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=key_hash, revoked_at__isnull=True, user__is_active=True)
            .first()
        )
        if token is None:
            return None
        token.user.get_all_permissions()  # fills the user's permission caches before caching
        _token_cache_set(key_hash, token)
    elif not ApiToken.objects.filter(
        pk=token.pk, revoked_at__isnull=True, user__is_active=True
    ).exists():
        _token_cache_delete(key_hash)
        return None
    now = timezone.now()
    # Written at most once a minute: the hot path of every API call should not always write.
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
        _token_cache_set(key_hash, token)
    return token


def api_token_revoke(*, token: ApiToken) -> ApiToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    _token_cache_delete(token.key_hash)
    return token


# --- Idempotency keys ----------------------------------------------------------------------------

IDEMPOTENCY_TTL = timedelta(hours=24)


def idempotency_in_flight_limit() -> timedelta:
    """How long a key may stay "in progress": past the request timeout (gunicorn's `timeout`,
    IDEMPOTENCY_IN_FLIGHT_SECONDS) its request was killed without releasing it (timeout, out of
    memory, SIGKILL), so a retry takes the key over instead of getting 409 for 24 hours."""
    return timedelta(seconds=settings.IDEMPOTENCY_IN_FLIGHT_SECONDS)


class IdempotencyConflict(Exception):
    """The key is in use: `in_flight` (409) or for a different request body (422)."""

    def __init__(self, *, in_flight: bool) -> None:
        super().__init__("in flight" if in_flight else "different request")
        self.in_flight = in_flight


def idempotency_begin(*, principal: str, key: str, request_hash: str) -> IdempotencyKey | None:
    """Reserve the key for this request. Returns None when the request should run, the stored
    row when its response should be replayed; raises IdempotencyConflict otherwise. A key left
    in flight for longer than the request timeout belongs to a killed request: the first retry
    takes it over (one conditional UPDATE, so of simultaneous retries exactly one runs)."""
    now = timezone.now()
    cutoff = now - IDEMPOTENCY_TTL
    IdempotencyKey.objects.filter(principal=principal, key=key, created_at__lt=cutoff).delete()
    try:
        with transaction.atomic():
            IdempotencyKey.objects.create(principal=principal, key=key, request_hash=request_hash)
        return None
    except IntegrityError:
        existing = IdempotencyKey.objects.get(principal=principal, key=key)
    if existing.request_hash != request_hash:
        raise IdempotencyConflict(in_flight=False)
    if existing.in_flight:
        if existing.created_at < now - idempotency_in_flight_limit():
            taken = IdempotencyKey.objects.filter(
                pk=existing.pk, in_flight=True, created_at=existing.created_at
            ).update(created_at=now)
            if taken:
                logger.warning("idempotency key of a killed request taken over by its retry")
                return None
        raise IdempotencyConflict(in_flight=True)
    return existing


def idempotency_finish(
    *,
    principal: str,
    key: str,
    status_code: int,
    content_type: str,
    body: bytes,
    location: str = "",
) -> None:
    # Only while in flight: the first response stored for the key is the one replayed.
    IdempotencyKey.objects.filter(principal=principal, key=key, in_flight=True).update(
        in_flight=False,
        status_code=status_code,
        content_type=content_type,
        body=body,
        location=location,
    )


def idempotency_abandon(*, principal: str, key: str) -> None:
    """A request that failed on our side (5xx) releases its key so the client may retry."""
    IdempotencyKey.objects.filter(principal=principal, key=key, in_flight=True).delete()


def idempotency_keys_purge() -> int:
    deleted, _ = IdempotencyKey.objects.filter(
        created_at__lt=timezone.now() - IDEMPOTENCY_TTL
    ).delete()
    return deleted
