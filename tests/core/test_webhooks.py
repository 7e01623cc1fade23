"""Webhooks: Standard Webhooks signatures, at-least-once delivery with backoff for up to 3 days,
every attempt recorded, subscriptions managed over the API."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from core.models import DeliveryStatus, WebhookDelivery, WebhookEvent
from core.webhooks import (
    BACKOFF,
    DELIVERY_WINDOW,
    sign,
    verify,
    webhook_deliver,
    webhook_emit,
    webhook_subscription_create,
    webhooks_dispatch_due,
)
from tests.core.receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()


def test_signature_matches_the_standard_webhooks_reference_vector():
    # Test vector from the Standard Webhooks specification's reference libraries
    # (github.com/standard-webhooks/standard-webhooks, libraries/python tests).
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    message_id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    timestamp = 1614265330
    body = b'{"test": 2432232314}'
    assert (
        sign(secret=secret, message_id=message_id, timestamp=timestamp, body=body)
        == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )


def test_delivery_is_signed_and_verifiable(engineer, receiver):
    subscription = webhook_subscription_create(
        user=engineer, url=receiver.url, events=[WebhookEvent.DESIGN_CREATED]
    )
    [delivery] = webhook_emit(
        event=WebhookEvent.DESIGN_CREATED, data={"id": 7}, team=engineer.membership.team
    )
    webhook_deliver(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert delivery.tries.get().status_code == 200
    headers, body = receiver.requests[0]
    assert verify(secret=subscription.secret, headers=headers, body=body)
    assert not verify(secret=subscription.secret, headers=headers, body=body + b" ")
    payload = json.loads(body)
    assert payload["type"] == "design.created"
    assert payload["data"] == {"id": 7}
    assert headers["webhook-id"] == delivery.message_id


def test_other_teams_and_other_events_get_nothing(engineer, other_engineer, receiver):
    webhook_subscription_create(
        user=other_engineer, url=receiver.url, events=[WebhookEvent.DESIGN_CREATED]
    )
    webhook_subscription_create(
        user=engineer, url=receiver.url, events=[WebhookEvent.DOCUMENT_READY]
    )
    deliveries = webhook_emit(
        event=WebhookEvent.DESIGN_CREATED, data={"id": 1}, team=engineer.membership.team
    )
    assert deliveries == []


def test_failures_back_off_then_succeed_and_every_attempt_is_recorded(engineer):
    server = Receiver(statuses=[500, 503])
    try:
        webhook_subscription_create(
            user=engineer, url=server.url, events=[WebhookEvent.DESIGN_CREATED]
        )
        [delivery] = webhook_emit(
            event=WebhookEvent.DESIGN_CREATED, data={"id": 1}, team=engineer.membership.team
        )
        webhook_deliver(delivery_id=delivery.pk)
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.PENDING
        # The next attempt waits BACKOFF[0] (5 s): an early call does nothing.
        assert delivery.next_attempt_at > timezone.now()
        webhook_deliver(delivery_id=delivery.pk)
        assert delivery.tries.count() == 1

        for _ in range(2):
            WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
            webhook_deliver(delivery_id=delivery.pk)
        delivery.refresh_from_db()
        assert [t.status_code for t in delivery.tries.all()] == [500, 503, 200]
        assert delivery.status == DeliveryStatus.SUCCEEDED
        assert len(server.requests) == 3
        # The same message id on every attempt lets the receiver de-duplicate.
        assert len({headers["webhook-id"] for headers, _ in server.requests}) == 1
    finally:
        server.close()


def test_gives_up_after_three_days(engineer):
    # An endpoint that refuses every connection: nothing listens on port 9 (discard) here.
    subscription = webhook_subscription_create(
        user=engineer, url="http://127.0.0.1:9/none", events=[WebhookEvent.DESIGN_CREATED]
    )
    [delivery] = webhook_emit(
        event=WebhookEvent.DESIGN_CREATED, data={}, team=engineer.membership.team
    )
    assert subscription.pk
    # The backoff schedule adds up to 3 days (the delivery window).
    assert timedelta(days=2, hours=12) <= DELIVERY_WINDOW <= timedelta(days=3, hours=12)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        created_at=timezone.now() - DELIVERY_WINDOW
    )
    webhook_deliver(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.tries.get().status_code is None
    assert delivery.tries.get().error


def test_dispatch_picks_only_due_deliveries(engineer, receiver):
    webhook_subscription_create(
        user=engineer, url=receiver.url, events=[WebhookEvent.DESIGN_CREATED]
    )
    [due] = webhook_emit(event=WebhookEvent.DESIGN_CREATED, data={}, team=engineer.membership.team)
    [later] = webhook_emit(
        event=WebhookEvent.DESIGN_CREATED, data={}, team=engineer.membership.team
    )
    WebhookDelivery.objects.filter(pk=later.pk).update(next_attempt_at=timezone.now() + BACKOFF[1])
    assert webhooks_dispatch_due() == 1
    assert due.pk != later.pk


def test_subscriptions_over_the_api_show_the_secret_once(engineer, other_engineer):
    client = APIClient()
    client.force_authenticate(engineer)
    created = client.post(
        "/api/v1/webhooks/",
        {"url": "https://crm.example.com/hooks", "events": ["design.created"]},
        format="json",
    )
    assert created.status_code == 201
    assert created.json()["secret"].startswith("whsec_")
    listed = client.get("/api/v1/webhooks/").json()["results"]
    assert "secret" not in listed[0]
    other = APIClient()
    other.force_authenticate(other_engineer)
    assert other.get(f"/api/v1/webhooks/{created.json()['id']}/").status_code == 404
    bad = client.post("/api/v1/webhooks/", {"url": "x", "events": ["nope"]}, format="json")
    assert bad.status_code == 400
    assert set(bad.json()["errors"]) == {"url", "events"}
