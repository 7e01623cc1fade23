"""What may happen to a quote revision in each status: the one table services enforce and pages
ask. Services call `require` (or `allows` for the expiry scan) before they change anything;
views put `actions_for` (staff) or `customer_actions` (the share page) in the context and
templates test membership (`{% if "send" in actions %}`), never a status.

The refusals live here too, so that a refused action says the same thing wherever it is tried:
`ActionNotAllowed` (409, mapped once by core.api's handler and `DomainError.add_to_form`)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from enum import StrEnum

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as AuthUser
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.errors import DomainError
from core.vocabulary import group_labels, grouped, policy_label
from quotes.models import QuoteRevision, QuoteStatus, ShareLink
from quotes.pricing import UNKNOWN

User = AuthUser | AnonymousUser


class Action(StrEnum):
    """Actions on one revision. The values are what templates test for and what pages name
    their buttons with (`data-action`)."""

    EDIT = "edit"  # lines, discount, terms
    SUBMIT = "submit"
    APPROVE = "approve"
    REJECT = "reject"
    SEND = "send"
    SHARE = "share"  # a new share link
    REVOKE_LINK = "revoke_link"
    REVISE = "revise"  # a new draft revision copied from this one (the latest)
    WITHDRAW = "withdraw"  # take back a submitted or approved revision: a new draft carries on
    REQUEST_DOCUMENT = "request_document"
    ACCEPT = "accept"  # the customer, through a share link
    DECLINE = "decline"  # the customer, through a share link
    EXPIRE = "expire"  # the periodic scan
    SUPERSEDE = "supersede"  # sending a later revision
    ARCHIVE = "archive"  # a draft never sent leaves the lists (kept, number taken)
    RESTORE = "restore"  # an archived draft comes back
    DELETE = "delete"  # a draft never sent is deleted with its quote


S = QuoteStatus
A = Action
_ALWAYS = frozenset({A.REQUEST_DOCUMENT, A.REVOKE_LINK})

# The table. Rules changed when it replaced the checks scattered over services, views and the
# template are marked CHANGED (here and in `actions_for` / `decision_refusal`, which narrow it by
# the revision's own state). Unchanged: a PDF can be made and a link withdrawn in every status
# (withdrawing only takes access away), so quotes.documents needs no status check.
ALLOWED: Mapping[str, frozenset[Action]] = {
    # CHANGED: the page offers "send" on a draft only when it needs no approval and every line
    # has a price (see `actions_for`); the service always refused the others after the click.
    # Archive, restore and delete: only a quote never sent (see `actions_for` and
    # quotes.services.drafts, which also refuse a later revision's draft).
    S.DRAFT: _ALWAYS | {A.EDIT, A.SUBMIT, A.SEND, A.ARCHIVE, A.RESTORE, A.DELETE},
    # CHANGED (issue 24): submitting freezes the revision. Its lines, discounts, terms and
    # design are what the manager approves and what is sent; changing them means withdrawing
    # it, which keeps it as submitted and opens a new draft revision for the change. Sending
    # waits for the approval (ApprovalRequired).
    S.PENDING_APPROVAL: _ALWAYS | {A.APPROVE, A.REJECT, A.WITHDRAW},
    S.APPROVED: _ALWAYS | {A.SEND, A.WITHDRAW},
    S.SENT: _ALWAYS | {A.SHARE, A.ACCEPT, A.DECLINE, A.REVISE, A.EXPIRE, A.SUPERSEDE},
    # CHANGED: a new link for an accepted revision, which the service allowed and the page never
    # offered, is now offered: the customer's buyers may need the proposal and PDF they accepted
    # again after a link was withdrawn or to pass to a colleague; the page answers nothing more.
    S.ACCEPTED: _ALWAYS | {A.SHARE},
    # CHANGED: no new link for a declined or expired revision (the service allowed it, the page
    # did not offer it): the link would only show a proposal nobody can answer; revise instead.
    S.DECLINED: _ALWAYS | {A.REVISE},
    S.EXPIRED: _ALWAYS | {A.REVISE},
    # A later revision was sent: this one is history. Its links can still be withdrawn.
    S.SUPERSEDED: _ALWAYS,
    # Taken back before it was sent; the draft after it carries the quote on.
    S.WITHDRAWN: _ALWAYS,
}

# Who may take each action (a Django permission); None: not a staff action.
PERMISSION: Mapping[Action, str | None] = {
    A.EDIT: "quotes.change_quote",
    A.SUBMIT: "quotes.change_quote",
    A.SEND: "quotes.change_quote",
    A.SHARE: "quotes.change_quote",
    A.REVOKE_LINK: "quotes.change_quote",
    A.REVISE: "quotes.change_quote",
    A.WITHDRAW: "quotes.change_quote",
    A.APPROVE: "quotes.approve_quote",
    A.REJECT: "quotes.approve_quote",
    A.REQUEST_DOCUMENT: "quotes.view_quote",
    A.ARCHIVE: "quotes.change_quote",
    A.RESTORE: "quotes.change_quote",
    A.DELETE: "quotes.change_quote",
    A.ACCEPT: None,
    A.DECLINE: None,
    A.EXPIRE: None,
    A.SUPERSEDE: None,
}

# Why an action is refused in a status that does not allow it; each message takes the
# revision's label and status. Actions allowed in every status need none.
_REFUSALS: Mapping[Action, Promise] = {
    A.EDIT: gettext_lazy(
        "%(label)s is %(status)s: it can no longer change. Revise it to change it."
    ),
    A.SUBMIT: gettext_lazy("Only a draft can be submitted; %(label)s is %(status)s."),
    A.APPROVE: gettext_lazy(
        "Only a revision pending approval can be approved; %(label)s is %(status)s."
    ),
    A.REJECT: gettext_lazy(
        "Only a revision pending approval can be rejected; %(label)s is %(status)s."
    ),
    A.SEND: gettext_lazy("%(label)s is %(status)s: only an approved revision can be sent."),
    A.SHARE: gettext_lazy(
        "Only a sent or accepted revision can be shared; %(label)s is %(status)s."
    ),
    A.REVISE: gettext_lazy("%(label)s is %(status)s: the quote is closed."),
    A.WITHDRAW: gettext_lazy(
        "Only a submitted or approved revision not yet sent can be withdrawn; %(label)s is "
        "%(status)s."
    ),
    A.ACCEPT: gettext_lazy("This proposal is %(status)s and can no longer be answered."),
    A.DECLINE: gettext_lazy("This proposal is %(status)s and can no longer be answered."),
    A.EXPIRE: gettext_lazy("%(label)s is %(status)s: only a sent revision expires."),
    A.ARCHIVE: gettext_lazy("%(label)s is %(status)s: only a draft can be archived."),
    A.RESTORE: gettext_lazy("%(label)s is %(status)s: only a draft can be restored."),
    A.DELETE: gettext_lazy("%(label)s is %(status)s: only a draft can be deleted."),
}
_NOT_NOW = gettext_lazy("%(label)s is %(status)s: this cannot be done now.")
_REVISE_OPEN = gettext_lazy("%(label)s is still %(status)s: change it instead of revising.")
_EDIT_SUBMITTED = gettext_lazy(
    "%(label)s is %(status)s: what was submitted can no longer change. Withdraw it to change "
    "it; a new revision opens for the change."
)
_REVISE_SUBMITTED = gettext_lazy(
    "%(label)s is %(status)s: withdraw it to change it; a new revision opens for the change."
)


# --- Refusals -------------------------------------------------------------------------------------


class TransitionNotAllowed(DomainError):
    """A change the state of things does not allow."""

    http_status = 409
    code = "transition_not_allowed"


class ActionNotAllowed(TransitionNotAllowed):
    """The revision's status does not allow the action (the table above)."""

    def __init__(self, action: Action, status: str, message: str | None = None) -> None:
        self.action = action
        self.status = status
        super().__init__(message or _("This cannot be done now."))


class QuoteNotEditable(ActionNotAllowed):
    """A submitted (or later) revision is frozen: lines, discounts and terms no longer change."""

    code = "quote_not_editable"


class ApprovalRequired(DomainError):
    http_status = 409
    code = "approval_required"


class QuoteExpired(DomainError):
    http_status = 409
    code = "quote_expired"


def needs_approval(revision: QuoteRevision) -> bool:
    """Above the discount policy and not approved (as of its last repricing)."""
    return bool(revision.approval_reasons) and revision.approved_at is None


def needs_approval_message(revision: QuoteRevision) -> str:
    def value(reason: Mapping[str, str]) -> str:
        # A margin with a line of unknown cost is "unknown" (quotes.pricing), in the reader's words.
        return _("unknown") if reason["value"] == UNKNOWN else reason["value"]

    # Each policy and role in the reader's words, never their stored (English) names.
    reasons = _("; ").join(
        f"{policy_label(r)} "
        + _("(%(value)s, threshold %(threshold)s)")
        % {"value": grouped(value(r)), "threshold": grouped(r["threshold"])}
        for r in revision.approval_reasons
    )
    groups = group_labels(
        ",".join(sorted({r["approver_group"] for r in revision.approval_reasons}))
    )
    return _("%(label)s needs approval by %(groups)s before it can be sent: %(reasons)s.") % {
        "label": revision.label,
        "groups": groups,
        "reasons": reasons,
    }


def allows(status: str, action: Action) -> bool:
    return action in ALLOWED.get(status, frozenset())


def statuses_allowing(action: Action) -> list[str]:
    return [status for status, actions in ALLOWED.items() if action in actions]


def require(action: Action, revision: QuoteRevision) -> None:
    """Refuse, naming the revision and its status, when its status does not allow `action`."""
    status = revision.status
    if allows(status, action):
        return
    if action == A.SEND and status == S.PENDING_APPROVAL:
        raise ApprovalRequired(needs_approval_message(revision))
    template = _REFUSALS.get(action, _NOT_NOW)
    if action == A.REVISE and allows(status, A.EDIT):
        template = _REVISE_OPEN
    elif action in (A.EDIT, A.REVISE) and allows(status, A.WITHDRAW):
        template = _EDIT_SUBMITTED if action == A.EDIT else _REVISE_SUBMITTED
    message = str(template) % {"label": revision.label, "status": revision.get_status_display()}
    error = QuoteNotEditable if action == A.EDIT else ActionNotAllowed
    raise error(action, status, message)


# --- Who may, and what the pages offer ------------------------------------------------------------


def has_permission(user: User, action: Action) -> bool:
    permission = PERMISSION[action]
    return permission is not None and user.has_perm(permission)


def approval_refusal(user: User, revision: QuoteRevision) -> str | None:
    """Why `user` may not approve `revision` (or None): approvers are sales managers, never the
    quote's owner, and members of every group the broken policies name. Administrators may."""
    if not user.has_perm("quotes.approve_quote"):
        return _("Only a sales manager can approve quotes.")
    if getattr(user, "is_superuser", False):
        return None
    if revision.quote.owner_id == user.pk:
        return _("You cannot approve your own quote.")
    groups = {reason["approver_group"] for reason in revision.approval_reasons}
    missing = groups - set(user.groups.values_list("name", flat=True))
    if missing:
        return _("This approval needs a member of: %(groups)s.") % {
            "groups": ", ".join(sorted(missing))
        }
    return None


def actions_for(user: User, revision: QuoteRevision, *, is_latest: bool) -> frozenset[Action]:
    """The staff actions the page offers `user` on `revision`: those its status allows, that the
    user's role permits, and that the revision's own state lets succeed. Customer and system
    actions are not offered here."""
    offered = {
        action
        for action in ALLOWED.get(revision.status, frozenset())
        if PERMISSION[action] is not None and has_permission(user, action)
    }
    if not is_latest:
        offered.discard(A.REVISE)  # a revise copies the latest revision
    if not is_latest or revision.number > 0:
        # A later revision's draft belongs to a quote the customer has seen: it stays.
        offered -= {A.ARCHIVE, A.RESTORE, A.DELETE}
    archived = revision.quote.archived_at is not None
    offered.discard(A.ARCHIVE if archived else A.RESTORE)
    if A.SUBMIT in offered or A.SEND in offered:
        # CHANGED: the page used to offer submit and send with lines still to be priced, and
        # send on a draft above the discount policy; the service refused both after the click.
        if revision.unpriced_line_count:
            offered -= {A.SUBMIT, A.SEND}
        if needs_approval(revision):
            offered.discard(A.SEND)
    # CHANGED: the page offered "approve" to a manager approving their own quote or lacking the
    # policy's group; the service refused them.
    if A.APPROVE in offered and approval_refusal(user, revision) is not None:
        offered.discard(A.APPROVE)
    return frozenset(offered)


def decision_refusal(
    revision: QuoteRevision, link: ShareLink, *, today: date
) -> DomainError | None:
    """Why the customer may not answer `revision` through `link` today (or None)."""
    if link.revoked_at is not None:
        return ActionNotAllowed(A.ACCEPT, revision.status, _("This link was withdrawn."))
    if not allows(revision.status, A.ACCEPT):
        return ActionNotAllowed(
            A.ACCEPT,
            revision.status,
            str(_REFUSALS[A.ACCEPT]) % {"status": revision.get_status_display()},
        )
    if revision.valid_until is not None and revision.valid_until < today:
        # CHANGED: past its validity but not yet marked expired by the scan, the share page used
        # to offer the forms that the service then refused.
        return QuoteExpired(
            _("This proposal expired on %(date)s.") % {"date": revision.valid_until.isoformat()}
        )
    return None
