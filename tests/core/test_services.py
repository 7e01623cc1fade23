import socket
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from core.jobs import job_claim, jobs_sweep
from core.models import JobStatus, WorkerProbe
from core.roles import CATALOG_MANAGER, ROLES, SALES_ENGINEER, SALES_MANAGER
from core.services import PROBES, roles_apply, user_create, worker_probe_run

pytestmark = pytest.mark.django_db


def test_roles_apply_is_idempotent():
    first = {g.name: set(g.permissions.values_list("pk", flat=True)) for g in roles_apply()}
    second = {g.name: set(g.permissions.values_list("pk", flat=True)) for g in roles_apply()}
    assert first == second
    assert set(first) == {role.group_name for role in ROLES}
    assert Group.objects.filter(name__in=first).count() == len(ROLES)


def test_user_create_puts_user_in_role_and_team():
    user = user_create(username="li", password="x-long-pw", role=SALES_ENGINEER, team_name="North")
    assert list(user.groups.values_list("name", flat=True)) == ["sales-engineer"]
    assert user.membership.team.name == "North"
    assert user.check_password("x-long-pw")


def _kill(probe: WorkerProbe) -> None:
    """What a worker killed mid-job leaves: the job running under a lease that has run out."""
    WorkerProbe.objects.filter(pk=probe.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_a_job_taken_more_often_than_allowed_is_failed_in_words(settings):
    settings.JOB_MAX_ATTEMPTS = 2
    probe = WorkerProbe.objects.create()
    # Two takes whose workers died (their leases ran out); the third is refused and fails it.
    for _take in range(2):
        assert job_claim(kind=PROBES, job_id=probe.pk) is not None
        _kill(probe)
    assert job_claim(kind=PROBES, job_id=probe.pk) is None
    probe.refresh_from_db()
    assert probe.status == JobStatus.FAILED
    assert probe.attempts == 3
    assert probe.error == "The worker died on this probe too many times."
    assert probe.lease_owner == ""


def test_a_job_with_a_live_lease_is_not_taken_twice():
    probe = WorkerProbe.objects.create()
    assert job_claim(kind=PROBES, job_id=probe.pk) is not None
    assert job_claim(kind=PROBES, job_id=probe.pk) is None
    probe.refresh_from_db()
    assert probe.attempts == 1
    assert probe.status == JobStatus.RUNNING


def test_probes_follow_the_documents_sweep(settings):
    """The one scheme: a probe whose worker died is queued again by the sweep, then failed once
    it was taken JOB_MAX_ATTEMPTS times; a probe run to the end records its worker."""
    settings.JOB_MAX_ATTEMPTS = 2
    probe = WorkerProbe.objects.create(queued_at=timezone.now())
    assert jobs_sweep(kind=PROBES) == {"requeued": 0, "failed": 0}  # queued, message fresh
    job_claim(kind=PROBES, job_id=probe.pk)
    _kill(probe)
    assert jobs_sweep(kind=PROBES) == {"requeued": 1, "failed": 0}
    probe.refresh_from_db()
    assert (probe.status, probe.attempts, probe.step) == (JobStatus.QUEUED, 1, "requeued")
    job_claim(kind=PROBES, job_id=probe.pk)
    _kill(probe)
    assert jobs_sweep(kind=PROBES) == {"requeued": 0, "failed": 1}
    assert WorkerProbe.objects.get(pk=probe.pk).status == JobStatus.FAILED

    done = worker_probe_run(probe_id=WorkerProbe.objects.create().pk)
    assert (done.status, done.attempts, done.progress) == (JobStatus.DONE, 1, 100)
    assert done.worker_hostname == socket.gethostname()
    assert done.lease_owner == ""


@pytest.mark.parametrize(
    ("role", "staff"),
    [(SALES_ENGINEER, False), (SALES_MANAGER, True), (CATALOG_MANAGER, True)],
)
def test_managers_reach_the_admin_engineers_do_not(roles, role, staff):
    user = user_create(username="u", password="x-long-pw", role=role, team_name="T")
    assert user.is_staff is staff
    assert user.is_superuser is False


def test_every_kind_of_job_names_a_registered_task_routed_as_configured(settings):
    from config.celery import app
    from quotes.documents import DOCUMENTS

    app.autodiscover_tasks(force=True)  # what a worker does at start

    for kind in (PROBES, DOCUMENTS):
        assert kind.task in app.tasks
    # Sent by name, a render still goes to the documents queue.
    route = app.amqp.router.route({}, DOCUMENTS.task, (1,), {})
    assert route["queue"].name == settings.DOCUMENTS_QUEUE


def test_writes_that_record_their_author_refuse_an_anonymous_caller(engineer):
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied

    from core.services import user_signed_in
    from core.webhooks import webhook_subscription_create

    assert user_signed_in(engineer) is engineer
    with pytest.raises(PermissionDenied):
        webhook_subscription_create(
            user=AnonymousUser(), url="https://crm.example.com/hooks", events=["design.created"]
        )
