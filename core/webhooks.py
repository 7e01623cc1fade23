"""Webhooks for integrations, signed the Standard Webhooks way (standardwebhooks.com) with the
specification's reference library (`standardwebhooks`): `webhook-id`, `webhook-timestamp`, and
`webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the secret's
bytes>`.

Delivery is at least once: the first attempt is queued when the event's transaction commits;
retries follow BACKOFF and are picked up by a periodic scan (`webhooks_dispatch_due`), never by
long-delayed tasks, which a Redis broker would redeliver after its visibility timeout.

Targets are public endpoints only, or the API would be a port scanner of our own network for any
read-write token: https (http only when WEBHOOK_ALLOW_HTTP), and a host whose every address is
public: never loopback, private, link-local, multicast, reserved or unspecified, unless inside
WEBHOOK_ALLOWED_NETWORKS (an on-premises CRM). The URL is checked when the subscription is made,
and again at each delivery, where the host is resolved once and the connection goes to the very
addresses checked (a DNS answer that changes in between cannot redirect it). Redirects are not
followed, and an attempt records a generic reason, never the remote's text or our socket error."""

import base64
import http.client
import ipaddress
import json
import secrets
import socket
import ssl
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import SplitResult, urlsplit

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from standardwebhooks import Webhook, WebhookVerificationError

from core.errors import DomainError
from core.jobs import broker_send, send_on_commit
from core.models import (
    DeliveryStatus,
    Team,
    WebhookAttempt,
    WebhookDelivery,
    WebhookSubscription,
)
from core.services import user_signed_in

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
DELIVER_TASK = "core.tasks.deliver_webhook"


def webhook_secret_new() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def sign(*, secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` header's value, computed by the specification's own library."""
    sent_at = datetime.fromtimestamp(timestamp, tz=UTC)
    return Webhook(secret).sign(message_id, sent_at, body.decode())


def verify(*, secret: str, headers: dict[str, str], body: bytes) -> bool:
    """What a receiver does (the library refuses timestamps more than 5 minutes off); used by our
    tests and shown to integrators in the API docs."""
    try:
        Webhook(secret).verify(body, headers, json_parse=False)
    except WebhookVerificationError:
        return False
    return True


# --- Targets ------------------------------------------------------------------------------------

# What a delivery attempt records when it fails: generic on purpose (see the module docstring).
REFUSED_URL = "refused: not an allowed webhook URL"
REFUSED_ADDRESS = "refused: the host resolves to an address that is not allowed"
UNRESOLVED = "the host name did not resolve"
TIMED_OUT = "timed out"
TLS_FAILED = "TLS handshake or certificate check failed"
CONNECTION_FAILED = "connection failed"
REDIRECT_NOT_FOLLOWED = "redirect not followed"
ERROR_STATUS = "the endpoint answered with an error status"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Address = tuple[int, Any]  # (socket family, socket address) from getaddrinfo


class TargetRefused(Exception):
    """The URL may not be a webhook target. `message` is for the user who set it up; `reason` is
    what a delivery attempt records."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason


def _allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [
        ipaddress.ip_network(network, strict=False) for network in settings.WEBHOOK_ALLOWED_NETWORKS
    ]


def address_allowed(address: str) -> bool:
    """Whether a webhook may be sent to this IP address: public ones, and those inside
    WEBHOOK_ALLOWED_NETWORKS."""
    ip: IPAddress = ipaddress.ip_address(address)
    candidates = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv4 address inside an IPv6 one (::ffff:127.0.0.1, 6to4, Teredo) is checked too.
        embedded = [ip.ipv4_mapped, ip.sixtofour, ip.teredo[1] if ip.teredo else None]
        candidates += [inner for inner in embedded if inner is not None]
    networks = _allowed_networks()
    for candidate in candidates:
        if any(candidate in network for network in networks):
            continue
        if (
            candidate.is_loopback
            or candidate.is_private
            or candidate.is_link_local
            or candidate.is_multicast
            or candidate.is_reserved
            or candidate.is_unspecified
            or not candidate.is_global
        ):
            return False
    return True


def _parse_target(url: str) -> tuple[SplitResult, str, int]:
    """(parts, host, port) of an allowed URL, or TargetRefused."""
    schemes = {"https"} | ({"http"} if settings.WEBHOOK_ALLOW_HTTP else set())
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise TargetRefused(_("Enter a valid URL."), REFUSED_URL) from None
    if parts.scheme.lower() not in schemes:
        allowed = " or ".join(f"{scheme}://" for scheme in sorted(schemes))
        raise TargetRefused(
            _("Webhook URLs must start with %(schemes)s.") % {"schemes": allowed}, REFUSED_URL
        )
    if not parts.hostname:
        raise TargetRefused(_("The URL has no host."), REFUSED_URL)
    if parts.username or parts.password:
        raise TargetRefused(
            _("Credentials in the URL are not supported: verify the webhook-signature header."),
            REFUSED_URL,
        )
    return parts, parts.hostname, port or (443 if parts.scheme.lower() == "https" else 80)


_ADDRESS_MESSAGE = gettext_lazy(
    "This host is a loopback, private, link-local, multicast or reserved address: webhooks go to "
    "public endpoints only."
)


def _resolve(host: str, port: int) -> list[Address]:
    """Every address of `host`, each of which must be allowed; TargetRefused otherwise."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise TargetRefused(_("The host name does not resolve."), UNRESOLVED) from None
    addresses: list[Address] = [
        (family, sockaddr) for family, _type, _proto, _name, sockaddr in infos
    ]
    if not addresses:
        raise TargetRefused(_("The host name does not resolve."), UNRESOLVED)
    for _family, sockaddr in addresses:
        if not address_allowed(str(sockaddr[0]).split("%", 1)[0]):
            raise TargetRefused(str(_ADDRESS_MESSAGE), REFUSED_ADDRESS)
    return addresses


def webhook_url_check(url: str) -> None:
    """Raise TargetRefused when `url` may not be a webhook target, as far as can be told when
    the subscription is made: scheme, host, and the addresses it resolves to now. A name that
    does not resolve yet is accepted (each delivery resolves and checks it again)."""
    _parts, host, port = _parse_target(url)
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        if not address_allowed(str(literal)):
            raise TargetRefused(str(_ADDRESS_MESSAGE), REFUSED_ADDRESS)
        return
    try:
        _resolve(host, port)
    except TargetRefused as refused:
        if refused.reason != UNRESOLVED:
            raise


class WebhookUrlRefused(DomainError):
    pass


def webhook_subscription_create(
    *, user: User | AnonymousUser, url: str, events: list[str]
) -> WebhookSubscription:
    try:
        webhook_url_check(url)
    except TargetRefused as refused:
        raise WebhookUrlRefused(refused.message, field="url") from None
    return WebhookSubscription.objects.create(
        user=user_signed_in(user), url=url, events=sorted(set(events)), secret=webhook_secret_new()
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
    now = timezone.now()
    deliveries = [
        WebhookDelivery.objects.create(
            subscription=subscription,
            message_id=message_id,
            event=event,
            payload=json.loads(json.dumps(payload, cls=DjangoJSONEncoder)),
            next_attempt_at=now,
            queued_at=now,
        )
        for subscription in subscriptions
        if event in subscription.events
    ]
    for delivery in deliveries:
        send_on_commit(DELIVER_TASK, delivery.pk, unsent=_unsent(delivery.pk, now))
    return deliveries


def _unsent(delivery_id: int, queued_at: datetime) -> Callable[[], None]:
    """Marks a delivery whose message could not be sent: due at once for the next dispatch."""

    def mark_unsent() -> None:
        WebhookDelivery.objects.filter(pk=delivery_id, queued_at=queued_at).update(queued_at=None)

    return mark_unsent


# What a hung or unreachable endpoint gives: each such attempt held a worker for up to TIMEOUT_S.
_UNREACHABLE = (TIMED_OUT, CONNECTION_FAILED)


def endpoint_failing(*, subscription_id: int, now: datetime) -> bool:
    """A circuit breaker per endpoint: open when its last WEBHOOK_BREAKER_FAILURES attempts all
    timed out or could not connect, the latest less than WEBHOOK_BREAKER_SECONDS ago. Its other
    deliveries then wait instead of each holding a worker for the timeout (one hung CRM with 40
    events held the queue for minutes); once the period has passed, the next due delivery tries
    the endpoint again and closes the breaker, or opens it for another period."""
    count = settings.WEBHOOK_BREAKER_FAILURES
    if count <= 0:
        return False
    window = timedelta(seconds=settings.WEBHOOK_BREAKER_SECONDS)
    latest = list(
        WebhookAttempt.objects.filter(
            delivery__subscription_id=subscription_id, at__gte=now - window
        )
        .order_by("-at", "-pk")
        .values_list("at", "status_code", "error")[:count]
    )
    if len(latest) < count:
        return False
    return all(status is None and error in _UNREACHABLE for _at, status, error in latest)


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
        # This message is taken: the dispatcher may send the next one when the attempt is due.
        delivery.queued_at = None
        if delivery.next_attempt_at and delivery.next_attempt_at > now:
            # Not due: a duplicate message or an early scan.
            delivery.save(update_fields=["queued_at"])
            return delivery
        if endpoint_failing(subscription_id=delivery.subscription_id, now=now):
            # The breaker is open: no attempt (none is counted), due again when it may close.
            delivery.next_attempt_at = now + timedelta(seconds=settings.WEBHOOK_BREAKER_SECONDS)
            delivery.save(update_fields=["next_attempt_at", "queued_at"])
            return delivery
        # Claim the attempt before the network call, so a crash does not resend at once.
        delivery.attempts += 1
        delivery.next_attempt_at = now + BACKOFF[min(delivery.attempts - 1, len(BACKOFF) - 1)]
        delivery.save(update_fields=["attempts", "next_attempt_at", "queued_at"])
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


def _connect(addresses: list[Address], timeout: float | None) -> socket.socket:
    """A TCP connection to the first of the checked addresses that answers."""
    error: OSError = OSError("no address")
    for family, sockaddr in addresses:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(sockaddr)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        return sock
    raise error


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """HTTP to `host` (its Host header) over a connection to addresses already checked."""

    def __init__(self, host: str, port: int, *, addresses: list[Address], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._addresses = addresses

    def connect(self) -> None:
        self.sock = _connect(self._addresses, self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to `host` (its Host header, SNI and certificate name) over a connection to
    addresses already checked."""

    def __init__(self, host: str, port: int, *, addresses: list[Address], timeout: float) -> None:
        self._tls = ssl.create_default_context()  # verifies the certificate and its host name
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._addresses = addresses

    def connect(self) -> None:
        sock = _connect(self._addresses, self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)


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
    started = time.monotonic()
    status, error = _send(delivery.subscription.url, body, headers)
    return status, error, int((time.monotonic() - started) * 1000)


def _send(url: str, body: bytes, headers: dict[str, str]) -> tuple[int | None, str]:
    """POST once, to checked addresses only, following no redirect. Returns (status, reason)."""
    try:
        parts, host, port = _parse_target(url)
        addresses = _resolve(host, port)
    except TargetRefused as refused:
        return None, refused.reason
    connection_class = (
        _PinnedHTTPSConnection if parts.scheme.lower() == "https" else _PinnedHTTPConnection
    )
    connection = connection_class(host, port, addresses=addresses, timeout=TIMEOUT_S)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", target, body=body, headers=headers)
        status: int = connection.getresponse().status  # the body is never read
    except TimeoutError:
        return None, TIMED_OUT
    except ssl.SSLError:
        return None, TLS_FAILED
    except (OSError, http.client.HTTPException):
        return None, CONNECTION_FAILED
    finally:
        connection.close()
    if 200 <= status < 300:
        return status, ""
    if 300 <= status < 400:
        return status, REDIRECT_NOT_FOLLOWED
    return status, ERROR_STATUS


def webhooks_dispatch_due() -> int:
    """Queue every pending delivery whose next attempt is due and whose message is not already
    queued (or went to the broker longer ago than WEBHOOK_QUEUE_STALE_SECONDS: it may have been
    lost). Run by beat every minute, on the sweeps queue; returns how many were sent. Each row is
    marked before its send, so a worker that takes the message at once clears the mark after."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.WEBHOOK_QUEUE_STALE_SECONDS)
    due = list(
        WebhookDelivery.objects.filter(
            Q(queued_at__isnull=True) | Q(queued_at__lt=stale),
            status=DeliveryStatus.PENDING,
            next_attempt_at__lte=now,
        )
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)[:500]
    )
    WebhookDelivery.objects.filter(pk__in=due).update(queued_at=now)
    sent = 0
    for pk in due:
        if not broker_send(DELIVER_TASK, pk):
            # The broker is down: these wait for the next run, marked as never sent.
            WebhookDelivery.objects.filter(pk__in=due[sent:], queued_at=now).update(queued_at=None)
            break
        sent += 1
    return sent
