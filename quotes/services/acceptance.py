"""The customer's side: viewing a shared proposal, accepting or declining it; and the periodic
expiry of proposals past their validity."""

from __future__ import annotations

import re
from datetime import date

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from quotes import pricing, transitions
from quotes.models import (
    AuditAction,
    CustomerDecision,
    Decision,
    QuoteRevision,
    QuoteStatus,
    ShareLink,
    ShareLinkView,
)
from quotes.selectors import revision_priced
from quotes.services.errors import QuoteInvalid
from quotes.services.records import _lock, _locked_revisions, _set_status, audit_record
from quotes.transitions import Action

SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")


def share_link_view_record(
    *, link: ShareLink, ip: str | None = None, user_agent: str = ""
) -> ShareLinkView:
    with transaction.atomic():
        view = ShareLinkView.objects.create(link=link, ip=ip or None, user_agent=user_agent[:300])
        audit_record(
            quote=link.revision.quote,
            revision=link.revision,
            action=AuditAction.SHARE_LINK_VIEWED,
            actor_label=_("customer (share link)"),
            after={"link": link.pk, "user_agent": user_agent[:300]},
            ip=ip,
        )
    return view


def _check_decidable(revision: QuoteRevision, link: ShareLink) -> None:
    refusal = transitions.decision_refusal(revision, link, today=timezone.localdate())
    if refusal is not None:
        raise refusal


def _check_person(name: str, email: str) -> None:
    errors = {}
    if not name.strip():
        errors["name"] = _("Enter your name.")
    if "@" not in email or len(email) > 254:
        errors["email"] = _("Enter a valid email address.")
    if errors:
        raise QuoteInvalid(_("Some fields need attention."), errors=errors)


def revision_accept(
    *,
    link: ShareLink,
    name: str,
    email: str,
    ip: str | None = None,
    optional_line_ids: tuple[int, ...] | list[int] = (),
    pdf_sha256: str | None = None,
) -> CustomerDecision:
    """The customer accepts a sent revision through its share link, optionally adding optional
    lines. Records name, email, time, IP and the SHA-256 of the PDF accepted (when there is one:
    see `quotes.selectors.revision_document_sha256`)."""
    _check_person(name, email)
    if pdf_sha256 is not None and not SHA256_HEX.match(pdf_sha256):
        raise QuoteInvalid(_("pdf_sha256 must be 64 lowercase hex digits."), field="pdf_sha256")
    with transaction.atomic():
        link = ShareLink.objects.select_for_update().get(pk=link.pk)
        revision = _lock(link.revision)
        _check_decidable(revision, link)
        optional_ids = set(revision.lines.filter(is_optional=True).values_list("pk", flat=True))
        chosen = sorted({int(pk) for pk in optional_line_ids})
        if not set(chosen) <= optional_ids:
            raise QuoteInvalid(
                _("Only optional lines of this proposal can be added."),
                field="optional_line_ids",
            )
        totals = pricing.with_options(revision_priced(revision), [str(pk) for pk in chosen])
        decision = CustomerDecision.objects.create(
            revision=revision,
            link=link,
            decision=Decision.ACCEPTED,
            name=name.strip(),
            email=email.strip(),
            ip=ip or None,
            optional_line_ids=chosen,
            accepted_total=totals.total.amount,
            pdf_sha256=pdf_sha256 or "",
        )
        revision.closed_at = timezone.now()
        _set_status(
            revision,
            QuoteStatus.ACCEPTED,
            actor_label=f"{decision.name} <{decision.email}>",
            ip=ip,
            note={
                "accepted_total": totals.total.amount,
                "optional_line_ids": chosen,
                "pdf_sha256": decision.pdf_sha256,
            },
            fields=("closed_at",),
        )
    return decision


def revision_decline(
    *, link: ShareLink, name: str, email: str, reason: str, ip: str | None = None
) -> CustomerDecision:
    _check_person(name, email)
    if not reason.strip():
        raise QuoteInvalid(_("Tell us why, so that we can do better."), field="reason")
    with transaction.atomic():
        link = ShareLink.objects.select_for_update().get(pk=link.pk)
        revision = _lock(link.revision)
        _check_decidable(revision, link)
        decision = CustomerDecision.objects.create(
            revision=revision,
            link=link,
            decision=Decision.DECLINED,
            name=name.strip(),
            email=email.strip(),
            ip=ip or None,
            reason=reason.strip(),
        )
        revision.closed_at = timezone.now()
        _set_status(
            revision,
            QuoteStatus.DECLINED,
            actor_label=f"{decision.name} <{decision.email}>",
            ip=ip,
            note={"reason": decision.reason},
            fields=("closed_at",),
        )
    return decision


# --- Expiry (periodic) ----------------------------------------------------------------------------


def quotes_expire(*, today: date | None = None) -> int:
    """Sent revisions past their validity become expired. Scans the database; idempotent (a
    second run finds nothing to do). Returns how many expired."""
    today = today or timezone.localdate()
    expired = 0
    candidates = QuoteRevision.objects.filter(
        status__in=transitions.statuses_allowing(Action.EXPIRE), valid_until__lt=today
    ).values_list("pk", flat=True)
    for pk in list(candidates):
        with transaction.atomic():
            revision = _locked_revisions().get(pk=pk)
            if not transitions.allows(revision.status, Action.EXPIRE) or not (
                revision.valid_until and revision.valid_until < today
            ):
                continue  # answered or re-sent meanwhile
            revision.closed_at = timezone.now()
            _set_status(
                revision,
                QuoteStatus.EXPIRED,
                actor_label="expiry task",
                note={"valid_until": revision.valid_until},
                fields=("closed_at",),
            )
            expired += 1
    return expired
