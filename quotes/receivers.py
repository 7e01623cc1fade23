"""Announce quote status changes to integrations (webhook `quote.status_changed`)."""

from typing import Any

from django.db import transaction

from core.models import WebhookEvent
from core.webhooks import webhook_emit
from quotes.models import Quote, QuoteRevision
from quotes.signals import quote_status_changed


def _on_status_changed(
    sender: Any, *, quote_id: int, revision_id: int, old: str, new: str, **kwargs: Any
) -> None:
    quote = Quote.objects.select_related("team", "customer").get(pk=quote_id)
    revision = QuoteRevision.objects.get(pk=revision_id)
    with transaction.atomic():
        webhook_emit(
            event=WebhookEvent.QUOTE_STATUS_CHANGED,
            data={
                "quote_id": quote.pk,
                "quote_number": quote.number,
                "revision": revision.label,
                "customer": {
                    "id": quote.customer_id,
                    "external_source": quote.customer.external_source,
                    "external_id": quote.customer.external_id,
                },
                "old_status": old,
                "new_status": new,
                "total": str(revision.total),
                "currency": revision.currency,
            },
            team=quote.team,
        )


def connect() -> None:
    quote_status_changed.connect(_on_status_changed, dispatch_uid="quote-status-webhook")
