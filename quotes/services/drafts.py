"""Drafts a sales engineer no longer wants: archived (out of the lists, kept) or deleted. Only a
quote the customer never saw: its one revision still a draft (the transition table's DRAFT row,
and revision 0: a later revision's quote was sent before)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.retention import files_delete_on_commit
from quotes.models import AuditAction, Quote, QuoteRevision
from quotes.services.errors import ActionNotAllowed
from quotes.services.records import _require, audit_record
from quotes.transitions import Action, require


def _draft_never_sent(quote: Quote, action: Action) -> QuoteRevision:
    """The quote's only revision, under a row lock, once the table allows `action` on it."""
    revisions = list(
        QuoteRevision.objects.select_for_update().filter(quote=quote).order_by("-number")
    )
    latest = revisions[0]
    require(action, latest)
    if len(revisions) > 1 or latest.number > 0:
        raise ActionNotAllowed(
            action,
            latest.status,
            _("%(number)s was sent to the customer before: it stays on record.")
            % {"number": quote.number},
        )
    return latest


def quote_archive(*, user: User, quote: Quote, archived: bool = True) -> Quote:
    """Archive a draft quote (or bring it back, `archived=False`)."""
    action = Action.ARCHIVE if archived else Action.RESTORE
    _require(user, action)
    with transaction.atomic():
        quote = Quote.objects.select_for_update().get(pk=quote.pk)
        revision = _draft_never_sent(quote, action)
        before = quote.archived_at
        quote.archived_at = timezone.now() if archived else None
        quote.save(update_fields=["archived_at", "updated_at"])
        audit_record(
            quote=quote,
            revision=revision,
            action=AuditAction.STATUS_CHANGED,
            actor=user,
            before={"archived": before is not None},
            after={"archived": archived},
        )
    return quote


def quote_delete(*, user: User, quote: Quote) -> str:
    """Delete a draft quote with its revision, lines, audit trail and documents; returns its
    number. The number is not given out again (numbers only grow)."""
    _require(user, Action.DELETE)
    with transaction.atomic():
        quote = Quote.objects.select_for_update().get(pk=quote.pk)
        revision = _draft_never_sent(quote, Action.DELETE)
        files = [name for name in revision.documents.values_list("file", flat=True) if name]
        number = quote.number
        quote.delete()
        # The PDFs go once the rows are gone for good (a rollback keeps both); a file that cannot
        # be deleted then is left to the retention sweep, never a server error after the commit.
        files_delete_on_commit(names=files)
    return number
