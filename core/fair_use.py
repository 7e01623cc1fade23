"""Fair use of the workers: how many documents and exports one user, and one team, may have
queued or running at once (JOBS_PER_USER_MAX, JOBS_PER_TEAM_MAX). One user once queued 80 PDFs
in 4 s and another team's PDF waited 42 s behind them.

The service that queues a job asks `jobs_fair_use_check` in the transaction that queues it,
whoever called the service (a page, the API, a command); the refusal is a domain error
(`TooManyJobs`, 429), mapped once like every other. Every job kind that records who asked for it
(`requested_by`) counts, whichever app it belongs to: the kinds are found among the models, so
this module imports none of the apps above it."""

from __future__ import annotations

from functools import cache

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Q
from django.utils.translation import gettext as _

from core.errors import TooManyJobs
from core.models import Job, Membership


@cache
def _requested_kinds() -> tuple[type[Job], ...]:
    """Every job model with a requester: documents, exports, as-built checks (not worker probes,
    which nobody asks for)."""
    return tuple(
        model
        for model in apps.get_models()
        if issubclass(model, Job)
        and any(field.name == "requested_by" for field in model._meta.get_fields())
    )


def jobs_pending_count(*, requested: Q, excluding: Job | None = None) -> int:
    """Jobs of every kind queued or running (in each kind's own words) that match `requested`
    (a filter on `requested_by`), leaving out `excluding` (the job about to be queued again)."""
    total = 0
    for model in _requested_kinds():
        pending = model._default_manager.filter(requested, status__in=(model.QUEUED, model.RUNNING))
        if excluding is not None and type(excluding) is model and excluding.pk is not None:
            pending = pending.exclude(pk=excluding.pk)
        total += pending.count()
    return total


def jobs_fair_use_check(*, user: User, job: Job | None = None) -> None:
    """Refuse (TooManyJobs) when `user`, or the user's team, already has as many jobs queued or
    running as allowed. Call it inside the transaction that queues `job`, before queueing it;
    `job` (new or asked for again) is not counted. The user's row is locked until that
    transaction ends, so two requests of one user cannot both take the last place."""
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
    retry_after = int(settings.JOBS_RETRY_AFTER_SECONDS)
    limit = int(settings.JOBS_PER_USER_MAX)
    mine = jobs_pending_count(requested=Q(requested_by=user), excluding=job)
    if mine >= limit:
        raise TooManyJobs(
            _(
                "You already have %(count)s documents and exports queued or being made, the "
                "most one person may have at once. Ask again when some are ready (in about "
                "%(seconds)s seconds)."
            )
            % {"count": mine, "seconds": retry_after},
            retry_after=retry_after,
        )
    team_id = Membership.objects.filter(user=user).values_list("team_id", flat=True).first()
    if team_id is None:
        return
    team_limit = int(settings.JOBS_PER_TEAM_MAX)
    theirs = jobs_pending_count(
        requested=Q(requested_by__membership__team_id=team_id), excluding=job
    )
    if theirs >= team_limit:
        raise TooManyJobs(
            _(
                "Your team already has %(count)s documents and exports queued or being made, "
                "the most one team may have at once. Ask again when some are ready (in about "
                "%(seconds)s seconds)."
            )
            % {"count": theirs, "seconds": retry_after},
            retry_after=retry_after,
        )
