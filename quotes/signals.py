"""Signals other apps (webhooks, documents) connect to. Sent on commit only."""

from django.dispatch import Signal

# kwargs: quote_id, revision_id, old, new
quote_status_changed = Signal()
