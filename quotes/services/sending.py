"""Sending a revision to the customer, and the share links that show it to them."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from quotes import transitions
from quotes.models import (
    AuditAction,
    QuoteRevision,
    QuoteStatus,
    ShareLink,
)
from quotes.services.approvals import _submit, require_content_unchanged
from quotes.services.prices import _check_complete, _reprice
from quotes.services.records import _lock, _require, _set_status, audit_record
from quotes.transitions import (
    Action,
    ApprovalRequired,
)


def _new_token() -> str:
    return secrets.token_urlsafe(32)  # 256 bits


def share_link_create(*, user: User, revision: QuoteRevision) -> ShareLink:
    _require(user, Action.SHARE)
    with transaction.atomic():
        revision = _lock(revision)
        transitions.require(Action.SHARE, revision)
        link = ShareLink.objects.create(revision=revision, token=_new_token(), created_by=user)
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.SHARE_LINK_CREATED,
            actor=user,
            after={"link": link.pk},
        )
    return link


def share_link_revoke(*, user: User, link: ShareLink) -> ShareLink:
    _require(user, Action.REVOKE_LINK)
    with transaction.atomic():
        link = (
            ShareLink.objects.select_for_update().select_related("revision__quote").get(pk=link.pk)
        )
        transitions.require(Action.REVOKE_LINK, link.revision)
        if link.revoked_at is None:
            link.revoked_at = timezone.now()
            link.revoked_by = user
            link.save(update_fields=["revoked_at", "revoked_by"])
            audit_record(
                quote=link.revision.quote,
                revision=link.revision,
                action=AuditAction.SHARE_LINK_REVOKED,
                actor=user,
                before={"link": link.pk, "active": True},
                after={"link": link.pk, "active": False},
            )
    return link


def revision_send(
    *, user: User, revision: QuoteRevision, languages: tuple[str, ...] = ()
) -> ShareLink:
    """Approved (or a draft that needs no approval, submitted on the way) -> sent: the revision
    freezes for good, its validity starts, earlier sent revisions are superseded, a share link
    is created, and the final, unmarked proposal of exactly the approved content is asked for
    in the customer's language (and in `languages` besides): the only document the share page
    serves."""
    _require(user, Action.SEND)
    with transaction.atomic():
        revision = _lock(revision)
        transitions.require(Action.SEND, revision)
        if revision.status == QuoteStatus.DRAFT:
            # Submitting reprices and checks completeness itself: not done twice.
            _submit(user=user, revision=revision)  # refused when incomplete
            if revision.status != QuoteStatus.APPROVED:
                raise ApprovalRequired(transitions.needs_approval_message(revision))
        else:
            _reprice(revision)
            _check_complete(revision)
        require_content_unchanged(revision, bound_to=revision.approved_sha256)
        if transitions.needs_approval(revision):
            # A policy tightened since the automatic approval.
            raise ApprovalRequired(transitions.needs_approval_message(revision))
        today = timezone.localdate()
        revision.sent_at = timezone.now()
        revision.sent_by = user
        revision.valid_until = today + timedelta(days=revision.validity_days)
        for older in QuoteRevision.objects.select_for_update().filter(
            quote=revision.quote,
            number__lt=revision.number,
            status__in=transitions.statuses_allowing(Action.SUPERSEDE),
        ):
            older.quote = revision.quote
            _set_status(
                older,
                QuoteStatus.SUPERSEDED,
                actor=user,
                note={"superseded_by": revision.label},
            )
        _set_status(
            revision,
            QuoteStatus.SENT,
            actor=user,
            note={"valid_until": revision.valid_until},
            fields=("sent_at", "sent_by", "valid_until"),
        )
        link = ShareLink.objects.create(revision=revision, token=_new_token(), created_by=user)
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.SHARE_LINK_CREATED,
            actor=user,
            after={"link": link.pk},
        )
        # Imported here: quotes.documents renders through quotes.pdf, which reads these
        # services' phase names.
        from quotes.documents import document_request

        preferred = revision.quote.customer.preferred_language
        for language in dict.fromkeys((preferred, *languages)):
            document_request(user=user, revision=revision, language=language)
    return link
