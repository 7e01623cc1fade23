"""Webhooks for integrations, signed the Standard Webhooks way (standardwebhooks.com):
`webhook-id`, `webhook-timestamp`, and `webhook-signature: v1,<base64 HMAC-SHA256 of
"{id}.{timestamp}.{body}" keyed with the secret's bytes>`.

Delivery is at least once: the first attempt is queued when the event's transaction commits;
retries follow BACKOFF and are picked up by a periodic scan (`webhooks_dispatch_due`), never by
long-delayed tasks, which a Redis broker would redeliver after its visibility timeout."""

import base64
import hashlib
import hmac
import json
import secrets
import time
import urllib.error
import urllib.request
from datetime import timedelta
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.models import (
    DeliveryStatus,
    Team,
    WebhookAttempt,
    WebhookDelivery,
    WebhookSubscription,
)

# Delay before each retry; the total (about 3 days) is the delivery window.
BACKOFF = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=14),
    timedelta(hours=20),
    timedelta(hours=20),
)
DELIVERY_WINDOW = sum(BACKOFF, timedelta())
TIMEOUT_S = 10


def webhook_secret_new() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def _secret_bytes(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix("whsec_"))


def sign(*, secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(_secret_bytes(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def verify(*, secret: str, headers: dict[str, str], body: bytes, tolerance_s: int = 300) -> bool:
    """What a receiver does; used by our tests and shown to integrators in the API docs."""
    timestamp = int(headers["webhook-timestamp"])
    if abs(time.time() - timestamp) > tolerance_s:
        return False
    expected = sign(secret=secret, message_id=headers["webhook-id"], timestamp=timestamp, body=body)
    return any(
        hmac.compare_digest(expected, candidate)
        for candidate in headers["webhook-signature"].split()
    )


def webhook_subscription_create(*, user: Any, url: str, events: list[str]) -> WebhookSubscription:
    return WebhookSubscription.objects.create(
        user=user, url=url, events=sorted(set(events)), secret=webhook_secret_new()
    )


def webhook_emit(*, event: str, data: dict[str, Any], team: Team | None) -> list[WebhookDelivery]:
    """Record one delivery per interested subscription (those whose user may see the object:
    same team, or an administrator) and send them once the surrounding transaction commits."""
    message_id = "msg_" + secrets.token_hex(12)
    payload = {"type": event, "timestamp": timezone.now().isoformat(), "data": data}
    who = Q(user__is_superuser=True)
    if team is not None:
        who |= Q(user__membership__team=team)
    subscriptions = WebhookSubscription.objects.filter(who, is_active=True, user__is_active=True)
    deliveries = [
        WebhookDelivery.objects.create(
            subscription=subscription,
            message_id=message_id,
            event=event,
            payload=json.loads(json.dumps(payload, cls=DjangoJSONEncoder)),
            next_attempt_at=timezone.now(),
        )
        for subscription in subscriptions
        if event in subscription.events
    ]
    if deliveries:
        from core.tasks import deliver_webhook

        for delivery in deliveries:
            deliver_webhook.delay_on_commit(delivery.pk)
    return deliveries


def webhook_deliver(*, delivery_id: int) -> WebhookDelivery:
    """One attempt. Idempotent: a delivery that already succeeded or gave up is left alone, and a
    row lock keeps two workers from sending the same attempt."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update()
            .select_related("subscription")
            .get(pk=delivery_id)
        )
        now = timezone.now()
        if delivery.status != DeliveryStatus.PENDING:
            return delivery
        if delivery.next_attempt_at and delivery.next_attempt_at > now:
            return delivery  # not due: a duplicate message or an early scan
        # Claim the attempt before the network call, so a crash does not resend at once.
        delivery.attempts += 1
        delivery.next_attempt_at = now + BACKOFF[min(delivery.attempts - 1, len(BACKOFF) - 1)]
        delivery.save(update_fields=["attempts", "next_attempt_at"])
    status_code, error, duration_ms = _post(delivery)
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery, status_code=status_code, error=error, duration_ms=duration_ms
        )
        if status_code is not None and 200 <= status_code < 300:
            delivery.status = DeliveryStatus.SUCCEEDED
            delivery.finished_at = timezone.now()
            delivery.next_attempt_at = None
        elif timezone.now() - delivery.created_at >= DELIVERY_WINDOW or delivery.attempts > len(
            BACKOFF
        ):
            delivery.status = DeliveryStatus.FAILED
            delivery.finished_at = timezone.now()
            delivery.next_attempt_at = None
        delivery.save(update_fields=["status", "finished_at", "next_attempt_at"])
    return delivery


def _post(delivery: WebhookDelivery) -> tuple[int | None, str, int]:
    body = json.dumps(delivery.payload, separators=(",", ":"), ensure_ascii=False).encode()
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "EZMAX-Fabric-Planner-Webhooks/1",
        "webhook-id": delivery.message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(
            secret=delivery.subscription.secret,
            message_id=delivery.message_id,
            timestamp=timestamp,
            body=body,
        ),
    }
    request = urllib.request.Request(delivery.subscription.url, data=body, headers=headers)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            status: int | None = response.status
            error = ""
    except urllib.error.HTTPError as exc:
        status, error = exc.code, str(exc.reason)[:500]
    except (urllib.error.URLError, OSError) as exc:
        status, error = None, str(getattr(exc, "reason", exc))[:500]
    return status, error, int((time.monotonic() - started) * 1000)


def webhooks_dispatch_due() -> int:
    """Queue every pending delivery whose next attempt is due. Run by beat every minute."""
    from core.tasks import deliver_webhook

    due = list(
        WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lte=timezone.now()
        ).values_list("pk", flat=True)[:500]
    )
    for pk in due:
        deliver_webhook.delay(pk)
    return len(due)
