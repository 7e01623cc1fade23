"""Idempotency-Key on POST (Stripe's convention, issue 8)."""

import pytest
from rest_framework.test import APIClient

from core.models import IdempotencyKey, TokenScope, WebhookSubscription
from core.services import api_token_create

pytestmark = pytest.mark.django_db
URL = "/api/v1/webhooks/"
BODY = {"url": "https://crm.example.com/hooks", "events": ["design.created"]}


def token_client(user) -> APIClient:
    # A real bearer token: keys are scoped to the credentials the middleware sees.
    _token, secret = api_token_create(user=user, name="crm", scope=TokenScope.READ_WRITE)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


@pytest.fixture
def client(engineer):
    return token_client(engineer)


def test_same_key_and_body_replays_the_first_response(client):
    first = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert WebhookSubscription.objects.count() == 1


def test_same_key_with_another_body_is_422(client):
    client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k-2")
    other = client.post(
        URL, {**BODY, "url": "https://other.example.com/"}, format="json",
        HTTP_IDEMPOTENCY_KEY="k-2",
    )  # fmt: skip
    assert other.status_code == 422
    assert other["Content-Type"] == "application/problem+json"
    assert WebhookSubscription.objects.count() == 1


def test_key_still_in_flight_is_409(client):
    first = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k-3")
    assert first.status_code == 201
    # Simulate a concurrent request holding the key: mark the stored row as in flight.
    IdempotencyKey.objects.filter(key="k-3").update(in_flight=True)
    response = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="k-3")
    assert response.status_code == 409


def test_keys_are_scoped_to_the_caller(client, teammate):
    client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="shared")
    other = token_client(teammate)
    response = other.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="shared")
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response
    assert WebhookSubscription.objects.count() == 2


def test_validation_errors_are_replayed_too(client):
    bad = {"url": "nope", "events": []}
    first = client.post(URL, bad, format="json", HTTP_IDEMPOTENCY_KEY="k-4")
    again = client.post(URL, bad, format="json", HTTP_IDEMPOTENCY_KEY="k-4")
    assert first.status_code == again.status_code == 400
    assert again.json() == first.json()


# --- A request killed while holding its key (issue 18, item 2) ----------------------------------


def test_a_key_left_in_flight_by_a_killed_request_lets_the_retry_through(client, settings):
    """A request killed mid-flight (gunicorn's timeout, out of memory) never releases its key.
    Past the request timeout the retry runs instead of getting 409 for 24 hours."""
    from datetime import timedelta

    from django.utils import timezone

    first = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="killed")
    assert first.status_code == 201
    # As the killed request left it: in flight, no response, its work rolled back.
    WebhookSubscription.objects.all().delete()
    stale = timezone.now() - timedelta(seconds=settings.IDEMPOTENCY_IN_FLIGHT_SECONDS + 1)
    IdempotencyKey.objects.filter(key="killed").update(
        in_flight=True, status_code=None, body=b"", created_at=stale
    )
    retry = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="killed")
    assert retry.status_code == 201
    assert "Idempotent-Replayed" not in retry
    assert WebhookSubscription.objects.count() == 1
    # The retry now holds the key: replays are of its response.
    again = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="killed")
    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == retry.json()
    assert WebhookSubscription.objects.count() == 1


def test_a_key_in_flight_for_less_than_the_request_timeout_is_still_409(client, settings):
    from datetime import timedelta

    from django.utils import timezone

    client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="slow")
    recent = timezone.now() - timedelta(seconds=settings.IDEMPOTENCY_IN_FLIGHT_SECONDS - 5)
    IdempotencyKey.objects.filter(key="slow").update(in_flight=True, created_at=recent)
    assert client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="slow").status_code == 409


def test_only_one_of_simultaneous_retries_takes_a_stale_key():
    from datetime import timedelta

    from django.utils import timezone

    from core.services import IdempotencyConflict, idempotency_begin

    IdempotencyKey.objects.create(principal="p", key="k", request_hash="h")
    IdempotencyKey.objects.filter(key="k").update(created_at=timezone.now() - timedelta(hours=1))
    assert idempotency_begin(principal="p", key="k", request_hash="h") is None  # taken over
    with pytest.raises(IdempotencyConflict) as conflict:
        idempotency_begin(principal="p", key="k", request_hash="h")  # the second retry
    assert conflict.value.in_flight


def test_the_in_flight_limit_is_gunicorns_request_timeout(settings, monkeypatch):
    """gunicorn.conf.py and the settings read one variable; the key outlives the request by the
    few seconds gunicorn takes to kill a worker past its timeout, no more."""
    import runpy

    from config.settings import base

    gunicorn = runpy.run_path(str(settings.BASE_DIR / "gunicorn.conf.py"))
    assert gunicorn["timeout"] == base.GUNICORN_TIMEOUT
    assert base.GUNICORN_TIMEOUT < base.IDEMPOTENCY_IN_FLIGHT_SECONDS <= base.GUNICORN_TIMEOUT + 10
    monkeypatch.setenv("GUNICORN_TIMEOUT", "17")
    assert runpy.run_path(str(settings.BASE_DIR / "gunicorn.conf.py"))["timeout"] == 17


def test_the_work_and_the_stored_response_commit_together(client, monkeypatch):
    """A request that cannot store its response keeps none of its work (and does not answer
    201): the retry then does the work once."""
    from django.db import DatabaseError

    import core.middleware

    def broken(**kwargs):
        raise DatabaseError("connection lost")

    monkeypatch.setattr(core.middleware, "idempotency_finish", broken)
    client.raise_request_exception = False
    response = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="atomic")
    assert response.status_code == 500
    assert WebhookSubscription.objects.count() == 0
    assert not IdempotencyKey.objects.filter(key="atomic").exists()  # released: retry at once
    monkeypatch.undo()
    retry = client.post(URL, BODY, format="json", HTTP_IDEMPOTENCY_KEY="atomic")
    assert retry.status_code == 201
    assert WebhookSubscription.objects.count() == 1
