from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Team(models.Model):
    """A sales team. Engineers see their own and their team's designs and quotes."""

    name = models.CharField(_("name"), max_length=120, unique=True)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="membership",
        verbose_name=_("user"),
    )
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="memberships", verbose_name=_("team")
    )

    class Meta:
        verbose_name = _("team membership")
        verbose_name_plural = _("team memberships")

    def __str__(self) -> str:
        return f"{self.user} @ {self.team}"


class JobStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class Job(models.Model):
    """A background job, in the database where the UI and API read it: every kind (documents,
    worker probes) runs through the one scheme in `core.jobs`.

    A worker takes a lease when it starts and renews it from a heartbeat while it works; a job
    whose lease ran out was abandoned by a dead worker and is taken over, up to
    `settings.JOB_MAX_ATTEMPTS` times. `queued_at` is when its last message went to the broker:
    a queued job whose message is older than `JOB_QUEUE_STALE_SECONDS` is sent again (the broker
    may have lost it). Every time limit is in settings, "Background jobs"."""

    # The word stored for each state. A kind may keep its own words where they are already
    # public (documents say "rendering" and "ready" in the API and the pages); the job scheme
    # reads them from here, so the meaning is the same for every kind.
    QUEUED: ClassVar[str] = JobStatus.QUEUED
    RUNNING: ClassVar[str] = JobStatus.RUNNING
    DONE: ClassVar[str] = JobStatus.DONE
    FAILED: ClassVar[str] = JobStatus.FAILED

    status = models.CharField(
        _("status"), max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED
    )
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    step = models.CharField(_("step"), max_length=30, blank=True)
    queued_at = models.DateTimeField(_("queued at"), null=True, blank=True)
    lease_expires_at = models.DateTimeField(_("lease expires at"), null=True, blank=True)
    # Who holds the lease (a random token per take): only the holder renews it or stores a result.
    lease_owner = models.CharField(_("lease holder"), max_length=32, blank=True)
    error = models.TextField(_("error"), blank=True)  # in words, for the user
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        abstract = True
        indexes = [
            models.Index(fields=["status", "lease_expires_at"]),
            models.Index(fields=["status", "queued_at"]),
        ]


class WorkerProbe(Job):
    """Proves the whole pipeline: web -> broker -> worker process -> database."""

    worker_hostname = models.CharField(_("worker"), max_length=255, blank=True)

    class Meta(Job.Meta):
        verbose_name = _("worker probe")
        verbose_name_plural = _("worker probes")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"probe {self.pk} ({self.status})"


class SweepRun(models.Model):
    """The last completed run of each periodic sweep (one row per kind of job), for /health/: in
    the database, not the cache, so that it outlives a Redis restart and every web process reads
    the same."""

    name = models.CharField(max_length=100, unique=True)  # the job model's label
    finished_at = models.DateTimeField()
    requeued = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.name} {self.finished_at:%Y-%m-%d %H:%M:%S}"


class TokenScope(models.TextChoices):
    READ = "read", _("Read")
    READ_WRITE = "read-write", _("Read and write")


class ApiToken(models.Model):
    """A bearer token for one integration (e.g. the CRM). Only a SHA-256 of the secret is stored;
    the secret is shown once, when created. The token acts as its user."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=_("user"),
    )
    name = models.CharField(_("integration"), max_length=100)
    prefix = models.CharField(_("prefix"), max_length=16, db_index=True, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    scope = models.CharField(_("scope"), max_length=16, choices=TokenScope.choices)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class IdempotencyKey(models.Model):
    """The first response to a POST carrying an `Idempotency-Key`, replayed for 24 hours to the
    same caller sending the same key and body."""

    principal = models.CharField(max_length=64)  # hash of the caller's credentials
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    in_flight = models.BooleanField(default=True)
    status_code = models.PositiveSmallIntegerField(null=True)
    content_type = models.CharField(max_length=100, blank=True)
    body = models.BinaryField(blank=True)
    location = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["principal", "key"], name="idempotency_unique_key")
        ]

    def __str__(self) -> str:
        return self.key


class WebhookEvent(models.TextChoices):
    DESIGN_CREATED = "design.created", "design.created"
    QUOTE_STATUS_CHANGED = "quote.status_changed", "quote.status_changed"
    DOCUMENT_READY = "document.ready", "document.ready"
    DOCUMENT_FAILED = "document.failed", "document.failed"


class WebhookSubscription(models.Model):
    """An integration's endpoint. Deliveries are signed with `secret` (Standard Webhooks)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="webhook_subscriptions",
        verbose_name=_("user"),
    )
    url = models.URLField(_("URL"), max_length=500)
    secret = models.CharField(_("signing secret"), max_length=100)
    events = models.JSONField(_("events"), default=list)
    is_active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("webhook subscription")
        verbose_name_plural = _("webhook subscriptions")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.url


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    SUCCEEDED = "succeeded", _("Succeeded")
    FAILED = "failed", _("Failed")


class WebhookDelivery(models.Model):
    """One event for one subscription, retried with exponential backoff for up to 3 days."""

    subscription = models.ForeignKey(
        WebhookSubscription, on_delete=models.CASCADE, related_name="deliveries"
    )
    message_id = models.CharField(max_length=40, db_index=True)  # the `webhook-id` header
    event = models.CharField(max_length=40, choices=WebhookEvent.choices)
    payload = models.JSONField()
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, db_index=True)
    # When its message last went to the broker, cleared when a worker takes the attempt or the
    # send fails: the dispatcher sends a due delivery only when this is empty or stale, never
    # again while its message is still queued.
    queued_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["subscription", "message_id"], name="webhook_delivery_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.event} {self.message_id} -> {self.subscription_id}"


class WebhookAttempt(models.Model):
    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="tries")
    # Indexed: the circuit breaker (core.webhooks.endpoint_failing) reads the recent attempts.
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    status_code = models.PositiveSmallIntegerField(null=True)
    error = models.TextField(blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["at"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.status_code or self.error}"
