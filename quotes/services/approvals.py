"""Approvals: submitting a draft, and a sales manager approving or rejecting it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from quotes import transitions
from quotes.models import (
    AuditAction,
    QuoteRevision,
    QuoteStatus,
)
from quotes.services.errors import NotPermitted, QuoteInvalid
from quotes.services.prices import _check_complete, _reprice
from quotes.services.records import _lock, _require, _set_status, audit_record
from quotes.transitions import Action


def revision_submit(*, user: User, revision: QuoteRevision) -> QuoteRevision:
    """Draft -> pending approval when the discount policy asks for it, else straight to approved
    (no approver needed)."""
    _require(user, Action.SUBMIT)
    with transaction.atomic():
        revision = _lock(revision)
        transitions.require(Action.SUBMIT, revision)
        _reprice(revision)
        _check_complete(revision)
        revision.submitted_at = timezone.now()
        if revision.approval_reasons:
            _set_status(
                revision,
                QuoteStatus.PENDING_APPROVAL,
                actor=user,
                note={"approval_reasons": revision.approval_reasons},
                fields=("submitted_at",),
            )
        else:
            _set_status(
                revision,
                QuoteStatus.APPROVED,
                actor=user,
                note={"approval": "not needed"},
                fields=("submitted_at",),
            )
    return revision


def revision_approve(*, user: User, revision: QuoteRevision, note: str = "") -> QuoteRevision:
    """A sales manager approves a revision above the discount policy. Records who and when."""
    with transaction.atomic():
        revision = _lock(revision)
        transitions.require(Action.APPROVE, revision)
        refusal = transitions.approval_refusal(user, revision)
        if refusal is not None:
            raise NotPermitted(refusal)
        revision.approved_by = user
        revision.approved_at = timezone.now()
        _set_status(
            revision,
            QuoteStatus.APPROVED,
            actor=user,
            note={"approved_by": user.get_username()},
            fields=("approved_by", "approved_at"),
        )
        audit_record(
            quote=revision.quote,
            revision=revision,
            action=AuditAction.APPROVED,
            actor=user,
            before={"approval_reasons": revision.approval_reasons},
            after={
                "approved_by": user.get_username(),
                "approved_at": revision.approved_at.isoformat(),
                "total": revision.total,
                "max_discount_percent": revision.max_discount_percent,
                "note": note,
            },
        )
    return revision


def revision_reject(*, user: User, revision: QuoteRevision, reason: str) -> QuoteRevision:
    """Pending approval -> draft, with the manager's reason."""
    if not reason.strip():
        raise QuoteInvalid(_("Say why the approval is refused."), field="reason")
    with transaction.atomic():
        revision = _lock(revision)
        transitions.require(Action.REJECT, revision)
        if not transitions.has_permission(user, Action.REJECT):
            raise NotPermitted(_("Only a sales manager can reject approvals."))
        _set_status(revision, QuoteStatus.DRAFT, actor=user, note={"rejected": reason.strip()})
    return revision
