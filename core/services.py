"""Writes for users, teams, worker probes, API tokens and idempotency keys."""

import hashlib
import logging
import secrets
import socket
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, Group, Permission, User
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy

from core.cache import CACHE_ERRORS
from core.jobs import JobKind, Progress, job_queue, job_run
from core.models import (
    ApiToken,
    IdempotencyKey,
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


def user_signed_in(user: User | AnonymousUser) -> User:
    """The caller as a stored user: writes that record who made them refuse anyone else (the
    views in front of them already require a login; this holds for every caller)."""
    if isinstance(user, AnonymousUser):
        raise PermissionDenied
    return user


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


# --- Worker probes ------------------------------------------------------------------------------


def _probe_work(probe: WorkerProbe, progress: Progress) -> str:
    return socket.gethostname()


def _probe_store(probe: WorkerProbe, hostname: str) -> None:
    probe.worker_hostname = hostname


# A probe proves the whole pipeline (web -> broker -> worker process -> database) and runs through
# the same job scheme as documents.
PROBES: JobKind[WorkerProbe, str] = JobKind(
    model=WorkerProbe,
    task="core.tasks.run_worker_probe",
    work=_probe_work,
    store=_probe_store,
    exhausted=gettext_lazy("The worker died on this probe too many times."),
    timed_out=gettext_lazy("The probe took too long."),
    crashed=gettext_lazy("The probe failed; the log has the details."),
)


def worker_probe_request() -> WorkerProbe:
    """Create a probe row and queue its task once the row is committed."""
    with transaction.atomic():
        probe = WorkerProbe.objects.create()
        job_queue(kind=PROBES, job=probe)
    return probe


def worker_probe_run(*, probe_id: int) -> WorkerProbe:
    return job_run(kind=PROBES, job_id=probe_id)


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
