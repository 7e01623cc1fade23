"""Approvals: submitting a draft, and a sales manager approving or rejecting it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from quotes import transitions
from quotes.content import revision_content_sha256
from quotes.models import (
    AuditAction,
    QuoteRevision,
    QuoteStatus,
)
from quotes.services.errors import ContentChanged, NotPermitted, QuoteInvalid
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
        _submit(user=user, revision=revision)
    return revision


def _submit(*, user: User, revision: QuoteRevision) -> None:
    """Record what is submitted (its content hash) and move on: to pending approval when the
    policy asks for it, else approved, bound to the same content. The caller holds the lock."""
    _reprice(revision)
    _check_complete(revision)
    revision.submitted_at = timezone.now()
    revision.submitted_sha256 = revision.content_sha256
    revision.approved_by = None
    revision.approved_at = None
    if revision.approval_reasons:
        revision.approved_sha256 = ""
        _set_status(
            revision,
            QuoteStatus.PENDING_APPROVAL,
            actor=user,
            note={
                "approval_reasons": revision.approval_reasons,
                "content_sha256": revision.submitted_sha256,
            },
            fields=_SUBMIT_FIELDS,
        )
    else:
        revision.approved_sha256 = revision.submitted_sha256
        _set_status(
            revision,
            QuoteStatus.APPROVED,
            actor=user,
            note={"approval": "not needed", "content_sha256": revision.submitted_sha256},
            fields=_SUBMIT_FIELDS,
        )


_SUBMIT_FIELDS = (
    "submitted_at",
    "submitted_sha256",
    "approved_sha256",
    "approved_by",
    "approved_at",
)


def require_content_unchanged(revision: QuoteRevision, *, bound_to: str) -> None:
    """Refuse when what the revision says now is not the content `bound_to` (the hash that was
    submitted, or approved): nobody approves or sends numbers that were not submitted."""
    now = revision_content_sha256(revision)
    if not bound_to or now != bound_to or now != revision.content_sha256:
        raise ContentChanged(
            _(
                "%(label)s changed after it was submitted: its approval is void. Withdraw it and "
                "submit the change."
            )
            % {"label": revision.label}
        )


def revision_approve(*, user: User, revision: QuoteRevision, note: str = "") -> QuoteRevision:
    """A sales manager approves a revision above the discount policy. Records who and when."""
    with transaction.atomic():
        revision = _lock(revision)
        transitions.require(Action.APPROVE, revision)
        refusal = transitions.approval_refusal(user, revision)
        if refusal is not None:
            raise NotPermitted(refusal)
        require_content_unchanged(revision, bound_to=revision.submitted_sha256)
        revision.approved_by = user
        revision.approved_at = timezone.now()
        revision.approved_sha256 = revision.submitted_sha256
        _set_status(
            revision,
            QuoteStatus.APPROVED,
            actor=user,
            note={"approved_by": user.get_username(), "content_sha256": revision.approved_sha256},
            fields=("approved_by", "approved_at", "approved_sha256"),
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
        revision.submitted_sha256 = ""
        _set_status(
            revision,
            QuoteStatus.DRAFT,
            actor=user,
            note={"rejected": reason.strip()},
            fields=("submitted_sha256",),
        )
    return revision
