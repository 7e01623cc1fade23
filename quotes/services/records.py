"""What every write shares: the permission check, row locks, the audit trail, and status
changes, whose `quote.status_changed` webhook event is written in the same transaction (an
outbox: the event exists exactly when the change committed)."""

from __future__ import annotations

import logging
from datetime import date
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from core.models import WebhookEvent
from core.webhooks import webhook_emit
from quotes import transitions
from quotes.models import (
    AuditAction,
    AuditEvent,
    Quote,
    QuoteRevision,
)
from quotes.services.errors import NotPermitted

logger = logging.getLogger(__name__)


def _require(user: User, action: transitions.Action) -> None:
    """The role check: the permission the transition table names for `action`."""
    _require_permission(user, transitions.PERMISSION[action] or "")


def _require_permission(user: User, perm: str) -> None:
    if not user.has_perm(perm):
        raise NotPermitted(_("You do not have the right to do this (%(perm)s).") % {"perm": perm})


def _json(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


def audit_record(
    *,
    quote: Quote,
    action: str,
    revision: QuoteRevision | None = None,
    actor: User | None = None,
    actor_label: str = "",
    before: Any = None,
    after: Any = None,
    ip: str | None = None,
) -> AuditEvent:
    return AuditEvent.objects.create(
        quote=quote,
        revision=revision,
        actor=actor if actor is not None and actor.is_authenticated else None,
        actor_label=actor_label or (actor.get_username() if actor is not None else ""),
        action=action,
        before=_json(before),
        after=_json(after),
        ip=ip or None,
    )


def _lock(revision: QuoteRevision) -> QuoteRevision:
    """Re-read the revision under a row lock (and its quote's): decisions are taken on the
    committed state. The customer and team come along for the status-changed event."""
    return _locked_revisions().get(pk=revision.pk)


def _locked_revisions() -> QuerySet[QuoteRevision]:
    # Lock the revision and quote rows only: a customer or team row locked by every status
    # change would queue a whole team's quotes behind each other.
    return QuoteRevision.objects.select_for_update(of=("self", "quote")).select_related(
        "quote__customer", "quote__team"
    )


def _sync_quote(revision: QuoteRevision) -> None:
    quote = revision.quote
    latest = quote.revisions.order_by("-number").values_list("pk", flat=True).first()
    if latest != revision.pk:
        return
    quote.status = revision.status
    quote.total = revision.total
    quote.currency = revision.currency
    quote.save(update_fields=["status", "total", "currency", "updated_at"])


def _set_status(
    revision: QuoteRevision,
    new: str,
    *,
    actor: User | None = None,
    actor_label: str = "",
    ip: str | None = None,
    note: dict[str, Any] | None = None,
    fields: tuple[str, ...] = (),
) -> None:
    old = revision.status
    revision.status = new
    revision.save(update_fields=["status", "updated_at", *fields])
    _sync_quote(revision)
    audit_record(
        quote=revision.quote,
        revision=revision,
        action=AuditAction.STATUS_CHANGED,
        actor=actor,
        actor_label=actor_label,
        before={"status": old},
        after={"status": new, **(note or {})},
        ip=ip,
    )
    quote = revision.quote
    # The outbox: the event is written with the change, from the rows at hand, so it exists
    # exactly when the change commits (delivery itself starts on commit, in core.webhooks).
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
    logged = {"quote_id": quote.pk, "revision_id": revision.pk, "old": old, "new": new}

    # Named, as every on-commit callable (issue 29): Django names a failing one by __qualname__.
    def log_status_change() -> None:
        logger.info("quote status changed", extra=logged)

    transaction.on_commit(log_status_change, robust=True)
