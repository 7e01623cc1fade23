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
