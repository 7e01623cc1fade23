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
    """State of a background job, in the database where the UI and API read it.

    A worker takes a lease when it starts; a job whose lease ran out was abandoned by a dead
    worker and may be retried, up to `settings.JOB_MAX_ATTEMPTS` times."""

    status = models.CharField(
        _("status"), max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED
    )
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    lease_expires_at = models.DateTimeField(_("lease expires at"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        abstract = True


class WorkerProbe(Job):
    """Proves the whole pipeline: web -> broker -> worker process -> database."""

    worker_hostname = models.CharField(_("worker"), max_length=255, blank=True)

    class Meta:
        verbose_name = _("worker probe")
        verbose_name_plural = _("worker probes")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"probe {self.pk} ({self.status})"


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
