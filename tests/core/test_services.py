import pytest
from django.contrib.auth.models import Group

from core.models import JobStatus, WorkerProbe
from core.roles import CATALOG_MANAGER, ROLES, SALES_ENGINEER, SALES_MANAGER
from core.services import JobAbandoned, job_start, roles_apply, user_create

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


def test_job_delivery_is_capped(settings):
    settings.JOB_MAX_ATTEMPTS = 2
    probe = WorkerProbe.objects.create()
    # Two deliveries whose leases expired (lease of 0 s simulates a worker that died).
    assert job_start(job=probe, lease_seconds=0) is True
    assert job_start(job=probe, lease_seconds=0) is True
    with pytest.raises(JobAbandoned):
        job_start(job=probe, lease_seconds=0)
    probe.refresh_from_db()
    assert probe.status == JobStatus.FAILED
    assert probe.attempts == 3
    assert "2 attempts" in probe.error


def test_job_with_live_lease_is_not_taken_twice():
    probe = WorkerProbe.objects.create()
    assert job_start(job=probe, lease_seconds=600) is True
    assert job_start(job=probe, lease_seconds=600) is False
    assert probe.attempts == 1


@pytest.mark.parametrize(
    ("role", "staff"),
    [(SALES_ENGINEER, False), (SALES_MANAGER, True), (CATALOG_MANAGER, True)],
)
def test_managers_reach_the_admin_engineers_do_not(roles, role, staff):
    user = user_create(username="u", password="x-long-pw", role=role, team_name="T")
    assert user.is_staff is staff
    assert user.is_superuser is False
