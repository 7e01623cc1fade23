"""Webhooks: Standard Webhooks signatures, at-least-once delivery with backoff for up to 3 days,
every attempt recorded, subscriptions managed over the API; targets limited to public https
endpoints, checked when made and at each delivery, no redirects, generic failure reasons."""

import json
import shutil
import socket
import ssl
import subprocess
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from core import webhooks
from core.models import (
    DeliveryStatus,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)
from core.webhooks import (
    BACKOFF,
    DELIVERY_WINDOW,
    WebhookUrlRefused,
    sign,
    verify,
    webhook_deliver,
    webhook_emit,
    webhook_subscription_create,
    webhooks_dispatch_due,
)
from tests.core.receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _production_target_rules(settings):
    """Production's rules (https to public addresses only) unless a test allows more."""
    settings.WEBHOOK_ALLOW_HTTP = False
    settings.WEBHOOK_ALLOWED_NETWORKS = []


@pytest.fixture
def loopback_allowed(settings):
    """The allow settings a receiver on loopback over plain HTTP needs."""
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]


@pytest.fixture
def receiver(loopback_allowed):
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


def test_an_event_queues_its_delivery_by_task_name_once_the_transaction_commits(
    engineer, receiver, monkeypatch, django_capture_on_commit_callbacks
):
    from config.celery import app

    app.autodiscover_tasks(force=True)  # what a worker does at start

    sent = []
    monkeypatch.setattr(app, "send_task", lambda name, args, **_: sent.append((name, args)))
    webhook_subscription_create(
        user=engineer, url=receiver.url, events=[WebhookEvent.DESIGN_CREATED]
    )
    with django_capture_on_commit_callbacks(execute=True):
        [delivery] = webhook_emit(
            event=WebhookEvent.DESIGN_CREATED, data={"id": 7}, team=engineer.membership.team
        )
        assert sent == []  # nothing leaves before the commit
    assert sent == [(webhooks.DELIVER_TASK, [delivery.pk])]
    assert webhooks.DELIVER_TASK in app.tasks  # the name is a registered task


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


def test_failures_back_off_then_succeed_and_every_attempt_is_recorded(engineer, loopback_allowed):
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


def test_gives_up_after_three_days(engineer, loopback_allowed):
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
    assert delivery.tries.get().error == webhooks.CONNECTION_FAILED  # not the socket's text


def test_dispatch_picks_only_due_deliveries(engineer, receiver):
    webhook_subscription_create(
        user=engineer, url=receiver.url, events=[WebhookEvent.DESIGN_CREATED]
    )
    [due] = webhook_emit(event=WebhookEvent.DESIGN_CREATED, data={}, team=engineer.membership.team)
    [later] = webhook_emit(
        event=WebhookEvent.DESIGN_CREATED, data={}, team=engineer.membership.team
    )
    WebhookDelivery.objects.filter(pk=later.pk).update(next_attempt_at=timezone.now() + BACKOFF[1])
    # Their first messages are still queued (sent when the event committed): nothing to re-send.
    assert webhooks_dispatch_due() == 0
    # Taken by a worker (which clears the mark): the due one is sent, the later one waits.
    WebhookDelivery.objects.update(queued_at=None)
    assert webhooks_dispatch_due() == 1
    assert due.pk != later.pk


def test_the_dispatcher_never_re_sends_what_is_already_queued(
    engineer, receiver, settings, monkeypatch
):
    """Issue 29: after a burst of events the dispatcher re-sent deliveries still queued behind a
    hung endpoint, every minute, and the queue grew to 14,765 messages. A delivery marked queued
    is sent again only once its mark is stale (the broker may have lost the message)."""
    import core.jobs

    sent: list[int] = []
    monkeypatch.setattr(core.jobs, "task_send", lambda task, pk: sent.append(pk))
    settings.WEBHOOK_QUEUE_STALE_SECONDS = 600
    webhook_subscription_create(
        user=engineer, url=receiver.url, events=[WebhookEvent.DESIGN_CREATED]
    )
    team = engineer.membership.team
    ids = [
        webhook_emit(event=WebhookEvent.DESIGN_CREATED, data={"n": n}, team=team)[0].pk
        for n in range(5)
    ]
    WebhookDelivery.objects.update(queued_at=None)  # as if their first messages were lost
    assert webhooks_dispatch_due() == 5
    assert sorted(sent) == sorted(ids)
    for _minute in range(3):  # beat, every minute, while the endpoint hangs
        assert webhooks_dispatch_due() == 0
    assert len(sent) == 5
    # A worker takes one: its attempt fails and is due again later; then it is dispatched again.
    WebhookDelivery.objects.filter(pk=ids[0]).update(queued_at=timezone.now() - timedelta(hours=1))
    assert webhooks_dispatch_due() == 1  # its mark went stale: the message may be lost
    assert sent[-1] == ids[0]


def test_a_worker_taking_the_message_clears_the_mark(engineer, loopback_allowed):
    server = Receiver(statuses=[500])
    try:
        webhook_subscription_create(
            user=engineer, url=server.url, events=[WebhookEvent.DESIGN_CREATED]
        )
        [delivery] = webhook_emit(
            event=WebhookEvent.DESIGN_CREATED, data={}, team=engineer.membership.team
        )
        assert delivery.queued_at is not None
        webhook_deliver(delivery_id=delivery.pk)
        delivery.refresh_from_db()
        assert delivery.queued_at is None  # the next attempt is the dispatcher's to send
        assert delivery.status == DeliveryStatus.PENDING
        WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        assert webhooks_dispatch_due() == 1
    finally:
        server.close()


def test_a_send_the_broker_refuses_leaves_the_delivery_due_for_the_dispatcher(
    engineer, receiver, monkeypatch, django_capture_on_commit_callbacks
):
    """The on-commit send is a named function (Django logs a failing robust callback by its
    __qualname__, which functools.partial lacks), never raises, and marks the delivery unsent."""
    import core.jobs

    def refuse(task: str, pk: int) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(core.jobs, "task_send", refuse)
    core.jobs.broker_reset()
    webhook_subscription_create(
        user=engineer, url=receiver.url, events=[WebhookEvent.DESIGN_CREATED]
    )
    try:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            [delivery] = webhook_emit(
                event=WebhookEvent.DESIGN_CREATED, data={}, team=engineer.membership.team
            )
        [callback] = callbacks
        assert "partial" not in type(callback).__name__
        assert callback.__qualname__.endswith("send_after_commit")
        callback()  # no exception
        delivery.refresh_from_db()
        assert delivery.queued_at is None
        assert delivery.status == DeliveryStatus.PENDING
        assert not core.jobs.broker_available()  # the next sends skip the broker for a while
        sent: list[int] = []
        monkeypatch.setattr(core.jobs, "task_send", lambda task, pk: sent.append(pk))
        assert webhooks_dispatch_due() == 0  # still within BROKER_DOWN_SECONDS
        core.jobs.broker_reset()  # the broker is back
        assert webhooks_dispatch_due() == 1
        assert sent == [delivery.pk]
    finally:
        core.jobs.broker_reset()


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


# --- Targets: public https only, checked when made and at each delivery --------------------------

REFUSED_TARGETS = [
    "http://127.0.0.1:8000/hooks",
    "https://127.0.0.1/hooks",
    "https://localhost/hooks",
    "https://169.254.169.254/latest/meta-data/",
    "https://10.1.2.3/hooks",
    "https://172.16.0.1/hooks",
    "https://192.168.1.1/hooks",
    "https://100.64.0.1/hooks",
    "https://0.0.0.0/hooks",
    "https://224.0.0.1/hooks",
    "https://240.0.0.1/hooks",
    "https://[::1]/hooks",
    "https://[::ffff:127.0.0.1]/hooks",
    "https://[fe80::1]/hooks",
    "ftp://example.com/hooks",
    "http://crm.example.com/hooks",  # plain http without WEBHOOK_ALLOW_HTTP
    "https://user:password@crm.example.com/hooks",
]


def api_client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.parametrize("url", REFUSED_TARGETS)
def test_api_refuses_targets_that_are_not_public_https_as_a_field_error(engineer, url):
    response = api_client(engineer).post(
        "/api/v1/webhooks/", {"url": url, "events": ["design.created"]}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert set(response.json()["errors"]) == {"url"}
    assert not WebhookSubscription.objects.exists()


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:9/x", "https://169.254.169.254/", "https://10.0.0.1/", "ftp://x.example/"],
)
def test_service_refuses_the_same_targets(engineer, url):
    with pytest.raises(WebhookUrlRefused) as refused:
        webhook_subscription_create(user=engineer, url=url, events=[WebhookEvent.DESIGN_CREATED])
    assert set(refused.value.errors) == {"url"}


@pytest.mark.parametrize(
    "url",
    ["https://93.184.216.34/hooks", "https://crm.example.com/hooks", "https://[2606:4700::1]/h"],
)
def test_public_https_targets_are_accepted(engineer, url):
    response = api_client(engineer).post(
        "/api/v1/webhooks/", {"url": url, "events": ["design.created"]}, format="json"
    )
    assert response.status_code == 201, response.content


def test_settings_allow_http_and_listed_private_networks(engineer, settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_NETWORKS = ["10.20.0.0/16"]
    client = api_client(engineer)

    def create(url):
        return client.post(
            "/api/v1/webhooks/", {"url": url, "events": ["design.created"]}, format="json"
        ).status_code

    assert create("http://crm.example.com/hooks") == 201
    assert create("https://10.20.1.5/hooks") == 201
    assert create("https://10.21.0.1/hooks") == 400
    assert create("https://127.0.0.1/hooks") == 400


def _deliver_one(user):
    [delivery] = webhook_emit(
        event=WebhookEvent.DESIGN_CREATED, data={"id": 1}, team=user.membership.team
    )
    webhook_deliver(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    return delivery


def test_host_is_resolved_and_checked_again_at_delivery(engineer, settings, monkeypatch):
    """DNS rebinding: the name resolved to a public address when the subscription was made and
    to loopback when the delivery is sent. Nothing reaches the loopback receiver."""
    server = Receiver()
    try:
        settings.WEBHOOK_ALLOW_HTTP = True  # the test receiver speaks plain HTTP
        real = socket.getaddrinfo
        answer = ["93.184.216.34"]

        def fake_getaddrinfo(host, port, *args, **kwargs):
            if host == "hooks.example.test":
                return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answer[0], port))]
            return real(host, port, *args, **kwargs)

        monkeypatch.setattr(webhooks.socket, "getaddrinfo", fake_getaddrinfo)
        webhook_subscription_create(
            user=engineer,
            url=server.url_for("hooks.example.test"),
            events=[WebhookEvent.DESIGN_CREATED],
        )
        answer[0] = "127.0.0.1"
        delivery = _deliver_one(engineer)
        attempt = delivery.tries.get()
        assert attempt.status_code is None
        assert attempt.error == webhooks.REFUSED_ADDRESS
        assert server.requests == []
        assert delivery.status == DeliveryStatus.PENDING  # retried later; DNS may change back
    finally:
        server.close()


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:{port}/hooks", "REFUSED_ADDRESS"),
        ("https://169.254.169.254/latest/meta-data/", "REFUSED_ADDRESS"),
        ("https://10.0.0.7/hooks", "REFUSED_ADDRESS"),
        ("ftp://127.0.0.1:{port}/hooks", "REFUSED_URL"),
        ("http://crm.example.com/hooks", "REFUSED_URL"),
    ],
)
def test_targets_saved_before_the_rules_are_refused_at_delivery(engineer, settings, url, reason):
    """Subscriptions made before these rules (or written around them) are checked at delivery:
    no connection is made, and the attempt says why in general terms."""
    server = Receiver()
    try:
        settings.WEBHOOK_ALLOW_HTTP = "ftp" not in url and "crm" not in url
        WebhookSubscription.objects.create(
            user=engineer,
            url=url.format(port=server.port),
            events=[WebhookEvent.DESIGN_CREATED],
            secret=webhooks.webhook_secret_new(),
        )
        delivery = _deliver_one(engineer)
        attempt = delivery.tries.get()
        assert attempt.status_code is None
        assert attempt.error == getattr(webhooks, reason)
        assert attempt.duration_ms < 1000  # refused before any connection
        assert server.requests == []
    finally:
        server.close()


def test_loopback_delivery_is_refused_by_default_and_sent_once_the_setting_allows_it(
    engineer, settings
):
    """The same subscription to a receiver on 127.0.0.1, delivered twice: under production's
    rules nothing connects; with loopback listed in WEBHOOK_ALLOWED_NETWORKS (what the test
    settings do for the tests' receivers) the event arrives, signed."""
    server = Receiver()
    try:
        settings.WEBHOOK_ALLOW_HTTP = True  # the receiver speaks plain HTTP; the address decides
        subscription = WebhookSubscription.objects.create(
            user=engineer,
            url=server.url,
            events=[WebhookEvent.DESIGN_CREATED],
            secret=webhooks.webhook_secret_new(),
        )
        refused = _deliver_one(engineer)
        assert refused.tries.get().error == webhooks.REFUSED_ADDRESS
        assert server.requests == []

        settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
        sent = _deliver_one(engineer)
        assert sent.status == DeliveryStatus.SUCCEEDED
        [(headers, body)] = server.requests
        assert verify(secret=subscription.secret, headers=headers, body=body)
    finally:
        server.close()


@pytest.mark.parametrize(
    ("address", "network"),
    [
        ("169.254.169.254", "169.254.0.0/16"),
        ("10.1.2.3", "10.0.0.0/8"),
        ("127.0.0.1", "127.0.0.0/8"),
    ],
)
def test_link_local_private_and_loopback_addresses_only_inside_listed_networks(
    address, network, settings
):
    assert not webhooks.address_allowed(address)
    settings.WEBHOOK_ALLOWED_NETWORKS = [network]
    assert webhooks.address_allowed(address)
    # Listing one network opens that network only.
    settings.WEBHOOK_ALLOWED_NETWORKS = ["192.0.2.0/24"]
    assert not webhooks.address_allowed(address)


def test_redirects_are_not_followed(engineer, loopback_allowed):
    target = Receiver()
    redirecting = Receiver(statuses=[307, 302], headers={"Location": target.url})
    try:
        webhook_subscription_create(
            user=engineer, url=redirecting.url, events=[WebhookEvent.DESIGN_CREATED]
        )
        delivery = _deliver_one(engineer)
        attempt = delivery.tries.get()
        assert attempt.status_code == 307
        assert attempt.error == webhooks.REDIRECT_NOT_FOLLOWED
        assert len(redirecting.requests) == 1
        assert target.requests == []
        assert delivery.status == DeliveryStatus.PENDING
    finally:
        target.close()
        redirecting.close()


def test_the_remotes_error_text_is_never_recorded(engineer, loopback_allowed):
    banner = "nginx/1.2.3 internal-host db01.corp:5432"
    server = Receiver(statuses=[503], reason=banner)
    try:
        webhook_subscription_create(
            user=engineer, url=server.url, events=[WebhookEvent.DESIGN_CREATED]
        )
        delivery = _deliver_one(engineer)
        attempt = delivery.tries.get()
        assert attempt.status_code == 503
        assert attempt.error == webhooks.ERROR_STATUS
        subscription = delivery.subscription
        listed = api_client(engineer).get(f"/api/v1/webhooks/{subscription.pk}/deliveries/")
        assert listed.status_code == 200
        assert banner not in listed.content.decode()
        assert "db01" not in listed.content.decode()
    finally:
        server.close()


@pytest.fixture
def certificate(tmp_path):
    """A self-signed certificate for hooks.example.test (openssl's command line)."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=hooks.example.test",
         "-addext", "subjectAltName=DNS:hooks.example.test"],
        check=True, capture_output=True,
    )  # fmt: skip
    return str(cert), str(key)


def test_https_delivery_checks_the_certificate_against_the_host_name(
    engineer, settings, monkeypatch, certificate
):
    """https to the checked address, with the name for SNI and the certificate check: a
    certificate nobody vouches for fails the TLS check (a generic reason); once trusted, the
    same delivery goes through to the pinned loopback address."""
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    server = Receiver(tls=certificate)
    try:
        real = socket.getaddrinfo

        def fake_getaddrinfo(host, port, *args, **kwargs):
            if host == "hooks.example.test":
                return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
            return real(host, port, *args, **kwargs)

        monkeypatch.setattr(webhooks.socket, "getaddrinfo", fake_getaddrinfo)
        webhook_subscription_create(
            user=engineer,
            url=server.url_for("hooks.example.test"),
            events=[WebhookEvent.DESIGN_CREATED],
        )
        delivery = _deliver_one(engineer)
        assert delivery.tries.get().error == webhooks.TLS_FAILED
        assert server.requests == []

        trusted = ssl.create_default_context(cafile=certificate[0])
        monkeypatch.setattr(webhooks.ssl, "create_default_context", lambda: trusted)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        webhook_deliver(delivery_id=delivery.pk)
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.SUCCEEDED
        headers, _body = server.requests[0]
        assert headers["host"] == f"hooks.example.test:{server.port}"
    finally:
        server.close()


def test_admin_form_applies_the_same_rules(engineer):
    from core.admin import WebhookSubscriptionForm

    def errors(url):
        form = WebhookSubscriptionForm(
            data={"user": engineer.pk, "url": url, "events": '["design.created"]', "secret": "s"}
        )
        form.is_valid()
        return set(form.errors)

    assert "url" in errors("https://169.254.169.254/latest/meta-data/")
    assert "url" in errors("ftp://crm.example.com/hooks")
    assert "url" not in errors("https://93.184.216.34/hooks")


def test_a_hung_endpoint_opens_its_circuit_breaker_and_other_endpoints_go_on(
    engineer, receiver, settings, monkeypatch
):
    """Issue 29: one hung CRM endpoint with 40 events held the webhook workers for minutes (10 s
    each). After WEBHOOK_BREAKER_FAILURES timeouts in a row its deliveries wait, uncounted,
    for WEBHOOK_BREAKER_SECONDS; another endpoint's are delivered meanwhile."""
    settings.WEBHOOK_BREAKER_FAILURES = 3
    settings.WEBHOOK_BREAKER_SECONDS = 300
    monkeypatch.setattr(webhooks, "TIMEOUT_S", 0.3)
    hung = socket.socket()  # accepts connections (the kernel's backlog), never answers
    hung.bind(("127.0.0.1", 0))
    hung.listen(50)
    try:
        url = f"http://127.0.0.1:{hung.getsockname()[1]}/hooks"
        webhook_subscription_create(user=engineer, url=url, events=[WebhookEvent.DESIGN_CREATED])
        webhook_subscription_create(
            user=engineer, url=receiver.url, events=[WebhookEvent.DESIGN_CREATED]
        )
        team = engineer.membership.team
        for n in range(6):
            webhook_emit(event=WebhookEvent.DESIGN_CREATED, data={"n": n}, team=team)
        to_hung = list(
            WebhookDelivery.objects.filter(subscription__url=url)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        others = WebhookDelivery.objects.exclude(subscription__url=url)
        for pk in to_hung[:3]:
            assert webhook_deliver(delivery_id=pk).attempts == 1
        assert {a.error for a in WebhookAttempt.objects.all()} == {webhooks.TIMED_OUT}
        started = time.monotonic()
        for pk in to_hung[3:]:
            deferred = webhook_deliver(delivery_id=pk)
            assert deferred.attempts == 0  # not tried, not counted
            assert deferred.status == DeliveryStatus.PENDING
            assert deferred.next_attempt_at >= timezone.now() + timedelta(seconds=299)
        assert time.monotonic() - started < 0.3 * 2  # no timeout waited
        assert WebhookAttempt.objects.count() == 3
        for delivery in others:
            assert webhook_deliver(delivery_id=delivery.pk).status == DeliveryStatus.SUCCEEDED
        # The period has passed: the next due delivery tries the endpoint again.
        WebhookAttempt.objects.update(at=timezone.now() - timedelta(seconds=301))
        WebhookDelivery.objects.filter(pk=to_hung[3]).update(next_attempt_at=timezone.now())
        assert webhook_deliver(delivery_id=to_hung[3]).attempts == 1
        assert WebhookAttempt.objects.filter(delivery__subscription__url=url).count() == 4
    finally:
        hung.close()
