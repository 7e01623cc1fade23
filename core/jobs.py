"""The one scheme every background job follows (documents, worker probes): queue, lease, heartbeat,
retry, sweep. A kind of job is a `Job` model plus a `JobKind` naming its task and what its worker
does; everything else is here, once.

- Queued: the row is written and its message sent when the transaction commits (`queued_at`).
  A message the broker does not take within its bounded timeouts is not an error for the
  request: the row stays queued, marked unsent (`queued_at` cleared), and the next sweep sends
  it. After such a failure this process leaves the broker alone for BROKER_DOWN_SECONDS.
- Taken: a worker locks the row and takes a short lease (`JOB_LEASE_SECONDS`), renewed by a
  heartbeat thread while the work runs, so a killed worker's job is taken over soon after.
- Finished: only the lease's holder stores a result or fails the job; a worker that stalled past
  its lease and was taken over drops its result.
- Swept: every `JOB_SWEEP_SECONDS` a job whose lease ran out is queued again, or failed after
  `JOB_MAX_ATTEMPTS` takes; a queued job whose message is older than `JOB_QUEUE_STALE_SECONDS`
  (the broker may have lost it) is sent again. Tasks are idempotent, so a duplicate message does
  no harm. Each sweep records its run (`SweepRun`), which /health/ reports."""

import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Generic, TypeVar

from celery import current_app
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.functional import Promise

from core.models import Job, SweepRun

logger = logging.getLogger(__name__)

J = TypeVar("J", bound=Job)
R = TypeVar("R")
Progress = Callable[[int, str], None]


class JobFailed(Exception):
    """Raised by a kind's `work` (it refuses) or `store` (the result cannot be kept); `message` is
    for the user and becomes the failed job's error."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _nothing(job: Job) -> None:
    return None


@dataclass(frozen=True)
class JobKind(Generic[J, R]):
    """A kind of background job.

    `work` runs in the worker outside any transaction, under the heartbeat, and returns a result;
    `store` keeps it, inside the transaction that marks the job done and only while this worker
    holds the lease (raise JobFailed to fail the job instead); `announce` runs in the transaction
    that finishes or fails the job (a webhook event, written with the change). The messages are
    what the user reads when the job fails."""

    model: type[J]
    task: str  # the Celery task that runs one job, given its id
    work: Callable[[J, Progress], R]
    store: Callable[[J, R], None]
    exhausted: str | Promise  # interrupted JOB_MAX_ATTEMPTS times (its worker kept dying)
    timed_out: str | Promise  # past JOB_SOFT_TIME_LIMIT_SECONDS
    crashed: str | Promise  # the work raised
    announce: Callable[[J], None] = field(default=_nothing)


class Lease(StrEnum):
    """What `lease_take` found on a job row."""

    TAKEN = "taken"  # this worker now holds it
    HELD = "held"  # another worker holds a live lease
    FINISHED = "finished"  # nothing left to do
    EXHAUSTED = "exhausted"  # taken more often than JOB_MAX_ATTEMPTS allows


def lease_seconds() -> float:
    return float(settings.JOB_LEASE_SECONDS)


def lease_take(*, job: Job, seconds: float | None = None) -> Lease:
    """A job is taken unless it is finished or another worker's lease is still live; each take
    counts as an attempt. A lease not renewed for longer than its period is dead (its worker was
    killed) and is taken over. Sets status, start, lease and a new `lease_owner` token on a take;
    the caller saves. The row must be locked (select_for_update) in the caller's transaction."""
    now = timezone.now()
    if job.status in (job.DONE, job.FAILED):
        return Lease.FINISHED
    if job.status == job.RUNNING and job.lease_expires_at and job.lease_expires_at > now:
        return Lease.HELD
    job.attempts += 1
    if job.attempts > settings.JOB_MAX_ATTEMPTS:
        return Lease.EXHAUSTED
    job.status = job.RUNNING
    job.started_at = now
    job.lease_expires_at = now + timedelta(seconds=lease_seconds() if seconds is None else seconds)
    job.lease_owner = secrets.token_hex(16)
    return Lease.TAKEN


def lease_renew(*, model: type[Job], pk: int, owner: str, seconds: float | None = None) -> bool:
    """Extend a lease its holder still holds: one UPDATE, no lock. False once the job finished or
    another worker took it over (the holder then must not store its result)."""
    period = lease_seconds() if seconds is None else seconds
    renewed = model._default_manager.filter(pk=pk, status=model.RUNNING, lease_owner=owner).update(
        lease_expires_at=timezone.now() + timedelta(seconds=period)
    )
    return bool(renewed)


class LeaseHeartbeat:
    """Renews a lease every `interval` seconds from a thread while the work runs, so that a lease
    can be short however long the work takes. `lost` is set when the lease turns out to be
    someone else's. The thread has its own database connection, so the take must be committed:
    inside an atomic block (a test's transaction) the thread is not started."""

    def __init__(
        self,
        *,
        model: type[Job],
        pk: int,
        owner: str,
        seconds: float | None = None,
        interval: float | None = None,
    ) -> None:
        self.model, self.pk, self.owner = model, pk, owner
        self.seconds = lease_seconds() if seconds is None else seconds
        self.interval = float(settings.JOB_HEARTBEAT_SECONDS) if interval is None else interval
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
                        model=self.model, pk=self.pk, owner=self.owner, seconds=self.seconds
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


# --- Queueing -----------------------------------------------------------------------------------

# Until when (time.monotonic) this process leaves the broker alone after a failed send: during an
# outage a request costs nothing extra, not even one more bounded wait, and its rows wait for
# the sweeps. Per process, like the cache's own outage window (core.cache).
_broker_down_until = 0.0


def broker_available() -> bool:
    return time.monotonic() >= _broker_down_until


def broker_failed(exc: BaseException) -> None:
    """A send failed: the broker is left alone for BROKER_DOWN_SECONDS. The first failure of an
    outage is a warning, not every skipped send."""
    global _broker_down_until
    first = broker_available()
    _broker_down_until = time.monotonic() + float(settings.BROKER_DOWN_SECONDS)
    if first:
        logger.warning(
            "broker unavailable: messages wait in their rows for the sweeps",
            extra={"error": f"{type(exc).__name__}: {exc}"},
        )


def broker_reset() -> None:
    """Forget an outage (tests; the next send tries the broker at once)."""
    global _broker_down_until
    _broker_down_until = 0.0


def task_send(task: str, job_id: int) -> None:
    """Send one message; raises when the broker does not take it (within the bounded timeouts of
    settings, "Celery"). By name, so that services never import their tasks module (which
    imports them); CELERY_TASK_ROUTES still picks the queue."""
    current_app.send_task(task, args=[job_id], ignore_result=True)


def broker_send(task: str, object_id: int) -> bool:
    """Send one message unless the broker is known to be down; False when it was not sent. Never
    raises: whoever calls this has already stored what the message announces (a queued job, a
    due webhook delivery), and a sweep sends it later."""
    if not broker_available():
        return False
    try:
        task_send(task, object_id)
    except Exception as exc:  # refused, timed out, or any error of the broker's client
        broker_failed(exc)
        return False
    return True


def send_on_commit(task: str, object_id: int, *, unsent: Callable[[], None]) -> None:
    """Send the message once the transaction commits; when it cannot be sent, call `unsent` (it
    marks the row for the next sweep). The callback is a named function, not a lambda or a
    functools.partial: Django logs a failing robust callback by its `__qualname__`, which a
    partial lacks, and that log call then raised out of a committed request (a 500)."""

    def send_after_commit() -> None:
        if broker_send(task, object_id):
            return
        try:
            unsent()
        except Exception:  # the database too: the row is still queued, the sweep finds it later
            logger.exception("%s %s: not sent, and not marked unsent", task, object_id)

    transaction.on_commit(send_after_commit, robust=True)


def job_queue(*, kind: JobKind[J, R], job: J) -> None:
    """Mark the job queued now and send its message once the transaction commits. A send that
    fails (broker down, frozen) clears `queued_at`, so the next sweep sends it again at once
    instead of waiting for the message to go stale; the request never sees the failure."""
    now = timezone.now()
    job.queued_at = now
    model = kind.model
    model._default_manager.filter(pk=job.pk).update(queued_at=now)
    job_id = job.pk

    def unsent() -> None:
        model._default_manager.filter(pk=job_id, status=model.QUEUED, queued_at=now).update(
            queued_at=None
        )

    send_on_commit(kind.task, job_id, unsent=unsent)


def job_retry(*, kind: JobKind[J, R], job: J) -> None:
    """A failed job asked for again: a fresh start, with its attempts counted from zero. The row
    must be locked."""
    job.status = job.QUEUED
    job.attempts = 0
    job.error = ""
    job.progress = 0
    job.step = ""
    job.lease_expires_at = None
    job.lease_owner = ""
    job.save()
    job_queue(kind=kind, job=job)


def job_requeue(*, kind: JobKind[J, R], job: J) -> None:
    """Back to the queue: a job whose lease ran out, or a queued job whose message is stale. Its
    attempts stand. The row must be locked."""
    logger.warning("%s %s: stuck (%s), queued again", kind.model.__name__, job.pk, job.status)
    job.status = job.QUEUED
    job.lease_expires_at = None
    job.lease_owner = ""
    job.step = "requeued"
    job.save()
    job_queue(kind=kind, job=job)


def _stale_before(now: datetime) -> datetime:
    return now - timedelta(seconds=settings.JOB_QUEUE_STALE_SECONDS)


def job_stuck(*, job: Job, now: datetime) -> bool:
    """A job whose worker died (lease ran out, or none), or a queued job whose message went to
    the broker too long ago (or was never recorded)."""
    if job.status == job.RUNNING:
        return job.lease_expires_at is None or job.lease_expires_at < now
    if job.status == job.QUEUED:
        return job.queued_at is None or job.queued_at < _stale_before(now)
    return False


# --- Running ------------------------------------------------------------------------------------


def job_fail(*, kind: JobKind[J, R], job: J, message: str | Promise) -> None:
    """Failed, in words for the user. The row must be locked."""
    job.status = job.FAILED
    job.error = str(message)
    job.finished_at = timezone.now()
    job.lease_expires_at = None
    job.lease_owner = ""
    job.save()
    kind.announce(job)


def job_claim(*, kind: JobKind[J, R], job_id: int) -> J | None:
    """Take the job for this worker; None when there is nothing to do (finished, or another
    worker holds a live lease) or when it was taken too often (it is then failed)."""
    with transaction.atomic():
        job = kind.model._default_manager.select_for_update().get(pk=job_id)
        outcome = lease_take(job=job)
        if outcome == Lease.EXHAUSTED:
            job_fail(kind=kind, job=job, message=kind.exhausted)
            return None
        if outcome != Lease.TAKEN:
            return None
        job.progress = 0
        job.step = "start"
        job.save()
        return job


def job_progress(*, model: type[Job], pk: int, owner: str) -> Progress:
    """How the work reports progress: written at once, outside the work's transaction, so the UI
    sees it; each report also extends the lease."""

    def report(percent: int, step: str) -> None:
        model._default_manager.filter(pk=pk, status=model.RUNNING, lease_owner=owner).update(
            progress=percent,
            step=step,
            lease_expires_at=timezone.now() + timedelta(seconds=lease_seconds()),
        )

    return report


def job_fail_if_held(*, kind: JobKind[J, R], job_id: int, owner: str, message: str | Promise) -> J:
    with transaction.atomic():
        job = kind.model._default_manager.select_for_update().get(pk=job_id)
        if job.status == job.RUNNING and job.lease_owner == owner:
            job_fail(kind=kind, job=job, message=message)
        return job


def job_complete(*, kind: JobKind[J, R], job_id: int, owner: str, result: R) -> J:
    """Store the result and mark the job done, if `owner` still holds its lease; a worker that was
    taken over (it stalled past its lease) drops its result."""
    with transaction.atomic():
        job = kind.model._default_manager.select_for_update().get(pk=job_id)
        if job.status != job.RUNNING or job.lease_owner != owner:
            logger.warning("%s %s: taken over; result dropped", kind.model.__name__, job_id)
            return job
        try:
            kind.store(job, result)
        except JobFailed as failed:
            job_fail(kind=kind, job=job, message=failed.message)
            return job
        job.status = job.DONE
        job.progress = 100
        job.step = job.DONE
        job.error = ""
        job.finished_at = timezone.now()
        job.lease_expires_at = None
        job.lease_owner = ""
        job.save()
        kind.announce(job)
    return job


def job_run(*, kind: JobKind[J, R], job_id: int) -> J:
    """What a job's task does: claim, work under the heartbeat, store. Idempotent: a finished job,
    or one another worker holds, is left alone."""
    job = job_claim(kind=kind, job_id=job_id)
    if job is None:
        return kind.model._default_manager.get(pk=job_id)
    owner = job.lease_owner
    try:
        with LeaseHeartbeat(model=kind.model, pk=job.pk, owner=owner):
            result = kind.work(job, job_progress(model=kind.model, pk=job.pk, owner=owner))
    except SoftTimeLimitExceeded:
        logger.warning("%s %s: soft time limit", kind.model.__name__, job_id)
        return job_fail_if_held(kind=kind, job_id=job_id, owner=owner, message=kind.timed_out)
    except JobFailed as failed:  # the work refused, in words the reader is shown
        logger.warning("%s %s: %s", kind.model.__name__, job_id, failed.message)
        return job_fail_if_held(kind=kind, job_id=job_id, owner=owner, message=failed.message)
    except Exception:
        logger.exception("%s %s: failed", kind.model.__name__, job_id)
        return job_fail_if_held(kind=kind, job_id=job_id, owner=owner, message=kind.crashed)
    return job_complete(kind=kind, job_id=job_id, owner=owner, result=result)


def jobs_sweep(*, kind: JobKind[J, R]) -> dict[str, int]:
    """Beat, every JOB_SWEEP_SECONDS: a job whose worker died (its lease ran out, or it has none)
    is queued again or, after JOB_MAX_ATTEMPTS takes, failed in words; a queued job whose message
    is stale is sent again, whatever its history."""
    model = kind.model
    now = timezone.now()
    requeued = failed = 0
    dead = model._default_manager.filter(status=model.RUNNING).filter(
        Q(lease_expires_at__lt=now) | Q(lease_expires_at__isnull=True)
    )
    stale = model._default_manager.filter(status=model.QUEUED).filter(
        Q(queued_at__lt=_stale_before(now)) | Q(queued_at__isnull=True)
    )
    candidates = list(dead.values_list("pk", flat=True)) + list(stale.values_list("pk", flat=True))
    for job_id in candidates:
        with transaction.atomic():
            job = model._default_manager.select_for_update().get(pk=job_id)
            if not job_stuck(job=job, now=now):
                continue  # taken or queued since
            if job.status == job.RUNNING and job.attempts >= settings.JOB_MAX_ATTEMPTS:
                job_fail(kind=kind, job=job, message=kind.exhausted)
                failed += 1
                continue
            job_requeue(kind=kind, job=job)
            requeued += 1
    sweep_record(name=model._meta.label, requeued=requeued, failed=failed)
    return {"requeued": requeued, "failed": failed}


def sweep_record(*, name: str, requeued: int = 0, failed: int = 0) -> None:
    """A sweep finished: /health/ reads when (core.views), and is degraded once it is late."""
    SweepRun.objects.update_or_create(
        name=name,
        defaults={"finished_at": timezone.now(), "requeued": requeued, "failed": failed},
    )
