"""Job leases (issue 18, item 2): a lease is renewed by its holder's heartbeat while the work
runs; one not renewed for longer than its period is dead (its worker was killed) and is taken
over, after which the old holder can neither renew it nor store a result."""

import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from core.jobs import Lease, LeaseHeartbeat, lease_renew, lease_take
from core.models import WorkerProbe


def take(probe_id: int, lease_seconds: float) -> tuple[Lease, WorkerProbe]:
    with transaction.atomic():
        probe = WorkerProbe.objects.select_for_update().get(pk=probe_id)
        outcome = lease_take(job=probe, seconds=lease_seconds)
        if outcome == Lease.TAKEN:
            probe.save()
        return outcome, probe


def heartbeat(probe: WorkerProbe, *, lease_seconds: float, interval: float) -> LeaseHeartbeat:
    return LeaseHeartbeat(
        model=WorkerProbe,
        pk=probe.pk,
        owner=probe.lease_owner,
        seconds=lease_seconds,
        interval=interval,
    )


@pytest.mark.django_db
def test_a_lease_not_renewed_for_longer_than_its_period_is_taken_over(settings):
    settings.JOB_MAX_ATTEMPTS = 3
    probe = WorkerProbe.objects.create()
    outcome, first = take(probe.pk, lease_seconds=30)
    assert outcome == Lease.TAKEN
    assert first.lease_owner
    # While the lease is live, nobody else takes the job.
    assert take(probe.pk, lease_seconds=30)[0] == Lease.HELD
    # Its worker is killed: nobody renews the lease, which runs out.
    WorkerProbe.objects.filter(pk=probe.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    outcome, second = take(probe.pk, lease_seconds=30)
    assert outcome == Lease.TAKEN
    assert second.attempts == 2
    assert second.lease_owner != first.lease_owner
    # The first holder, if it was only stalled, has lost the lease: it cannot renew it.
    assert not lease_renew(model=WorkerProbe, pk=probe.pk, owner=first.lease_owner, seconds=30)
    assert lease_renew(model=WorkerProbe, pk=probe.pk, owner=second.lease_owner, seconds=30)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_heartbeat_keeps_a_short_lease_alive_and_stops_when_taken_over():
    probe = WorkerProbe.objects.create()
    _outcome, held = take(probe.pk, lease_seconds=0.6)
    beat = heartbeat(held, lease_seconds=0.6, interval=0.2)
    with beat:
        time.sleep(1.5)  # work far longer than the lease
        assert take(probe.pk, lease_seconds=0.6)[0] == Lease.HELD
    assert beat.renewals >= 4
    assert not beat.lost.is_set()
    # No heartbeat any more: the lease runs out and another worker takes the job over.
    time.sleep(0.8)
    outcome, taker = take(probe.pk, lease_seconds=30)
    assert outcome == Lease.TAKEN
    assert taker.attempts == 2
    # The first holder's heartbeat, were it still running, finds the lease gone and says so.
    late = heartbeat(held, lease_seconds=0.6, interval=0.1)
    with late:
        assert late.lost.wait(2)
    assert WorkerProbe.objects.get(pk=probe.pk).lease_owner == taker.lease_owner
