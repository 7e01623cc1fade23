"""Quote status events are an outbox: the `quote.status_changed` delivery is written in the
transaction that changes the status, so it exists exactly when the change commits. Nothing runs
after COMMIT to make it (the delivery's first attempt is queued on commit by core.webhooks)."""

from decimal import Decimal

import pytest
from django.db import transaction

from core.models import WebhookDelivery, WebhookEvent, WebhookSubscription
from quotes import services
from quotes.models import QuoteStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def subscription(engineer):
    return WebhookSubscription.objects.create(
        user=engineer,
        url="https://crm.example.com/hooks",
        secret="whsec_" + "A" * 44,
        events=[WebhookEvent.QUOTE_STATUS_CHANGED],
    )


def status_events():
    return list(WebhookDelivery.objects.filter(event=WebhookEvent.QUOTE_STATUS_CHANGED))


def test_a_rolled_back_status_change_leaves_no_event(quote, engineer, subscription):
    revision = quote.current_revision

    class Crash(Exception):
        pass

    def submit_then_fail():
        with transaction.atomic():
            services.revision_submit(user=engineer, revision=revision)
            raise Crash  # anything failing later in the same transaction

    with pytest.raises(Crash):
        submit_then_fail()
    revision.refresh_from_db()
    assert revision.status == QuoteStatus.DRAFT
    assert status_events() == []


def test_a_status_change_writes_one_event_in_its_transaction(
    quote, engineer, subscription, django_capture_on_commit_callbacks
):
    quote.customer.external_source, quote.customer.external_id = "hubspot", "C-7"
    quote.customer.save()
    revision = quote.current_revision
    # The test's transaction never commits: the event must exist without any on-commit work.
    with django_capture_on_commit_callbacks(execute=False):
        services.revision_submit(user=engineer, revision=revision)
    [event] = status_events()
    assert event.subscription == subscription
    assert event.payload["type"] == "quote.status_changed"
    # Today's payload (core.webhooks docs, tests/test_e2e_crm.py): the quote, the revision, the
    # customer's CRM ids, both statuses and the total; no approval needed, so draft -> approved.
    assert event.payload["data"] == {
        "quote_id": quote.pk,
        "quote_number": quote.number,
        "revision": quote.number,  # revision 0 is labelled with the bare number
        "customer": {"id": quote.customer_id, "external_source": "hubspot", "external_id": "C-7"},
        "old_status": "draft",
        "new_status": "approved",
        "total": "359108.50",  # 321,450.00 + VAT per kind (tests/quotes/test_services.py)
        "currency": "CNY",
    }
    assert Decimal(event.payload["data"]["total"]) == revision.total


def test_sending_a_later_revision_announces_both_changes(quote, engineer, subscription):
    services.revision_send(user=engineer, revision=quote.current_revision)
    second = services.quote_revise(user=engineer, quote=quote)
    services.revision_send(user=engineer, revision=second)
    changes = [
        (
            e.payload["data"]["revision"],
            e.payload["data"]["old_status"],
            e.payload["data"]["new_status"],
        )
        for e in sorted(status_events(), key=lambda e: e.pk)
    ]
    # A draft needing no approval is submitted on the way to sent (issue 24): draft -> approved.
    assert changes == [
        (quote.number, "draft", "approved"),
        (quote.number, "approved", "sent"),
        (f"{quote.number}-R1", "draft", "approved"),
        (quote.number, "sent", "superseded"),
        (f"{quote.number}-R1", "approved", "sent"),
    ]
