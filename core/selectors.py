from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.apps import apps
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from core.models import Membership, Team
from core.roles import ROLES, Role


def user_team(user: User | AnonymousUser) -> Team | None:
    membership = getattr(user, "membership", None)
    return membership.team if membership else None


def owned_or_team(user_id: int) -> Q:
    """Rows with an `owner` and a `team` that user `user_id` sees: their own and their team's.
    The team is a subquery, not a join through the memberships: a join needs DISTINCT, which
    PostgreSQL paid for by sorting every visible row before the page's LIMIT (the designs list,
    bench.load), and the caller's membership costs no query of its own. A user has one team at
    most."""
    team = Membership.objects.filter(user_id=user_id).values("team_id")
    return Q(owner_id=user_id) | Q(team__in=team)


def user_roles(user: User | AnonymousUser) -> list[Role]:
    if not user.is_authenticated:
        return []
    names = set(user.groups.values_list("name", flat=True))
    return [role for role in ROLES if role.group_name in names]


# --- The home dashboard ---------------------------------------------------------------------------
# Core is the lowest layer: the designs and quotes it lists are read by app label (the models
# live above it), so the layers contract stays one-way. Every read is one query whatever the
# number of rows (tests/core/test_dashboard.py counts them).

DASHBOARD_ROWS = 8
EXPIRING_WITHIN_DAYS = 14
APPROVER_PERMISSION = "quotes.approve_quote"


def _rows(label: str) -> QuerySet[Any]:
    rows: QuerySet[Any] = apps.get_model(label)._default_manager.all()
    return rows


@dataclass(frozen=True, kw_only=True)
class StatusCount:
    status: str
    label: str
    count: int


@dataclass(frozen=True, kw_only=True)
class Dashboard:
    draft_designs: list[Any]
    draft_quotes: list[Any]
    quotes_by_status: list[StatusCount]
    expiring: list[Any]  # sent quote revisions whose validity ends within 14 days
    documents: list[Any]
    approvals: list[Any] | None  # None: the user approves nothing
    today: date
    expiring_until: date


def is_approver(user: User | AnonymousUser) -> bool:
    return user.is_authenticated and user.has_perm(APPROVER_PERMISSION)


def approval_queue(user: User | AnonymousUser) -> QuerySet[Any]:
    """Quotes of the approver's team awaiting approval, oldest first (all teams for an
    administrator); nothing for anyone who does not approve."""
    quotes = _rows("quotes.Quote").filter(status="pending_approval")
    if not is_approver(user):
        return quotes.none()
    if not getattr(user, "is_superuser", False):
        quotes = quotes.filter(team=user_team(user))
    return quotes.select_related("customer", "owner").order_by("updated_at", "id")


def approval_queue_count(user: User | AnonymousUser) -> int | None:
    """How many quotes await the user's approval; None for a user who approves nothing (the
    navigation then shows no queue at all, rather than an empty one)."""
    return approval_queue(user).count() if is_approver(user) else None


def dashboard_for(user: User) -> Dashboard:
    """The user's day: their drafts, their quotes by status, their sent quotes about to expire,
    their latest documents and, for approvers, the approval queue."""
    today = timezone.localdate()
    until = today + timedelta(days=EXPIRING_WITHIN_DAYS)
    # Archived quote drafts are put away: neither listed nor counted.
    quotes = _rows("quotes.Quote").filter(owner=user, archived_at__isnull=True)
    draft_designs = list(
        _rows("planner.Design")
        .filter(owner=user, is_draft=True, archived_at__isnull=True)
        .select_related("customer")
        .order_by("-updated_at", "-id")[:DASHBOARD_ROWS]
    )
    draft_quotes = list(
        quotes.filter(status="draft")
        .select_related("customer")
        .order_by("-updated_at", "-id")[:DASHBOARD_ROWS]
    )
    labels = dict(apps.get_model("quotes.Quote")._meta.get_field("status").choices or [])
    counts = dict(
        quotes.order_by().values_list("status").annotate(n=Count("id")).values_list("status", "n")
    )
    by_status = [
        StatusCount(status=status, label=str(label), count=counts[status])
        for status, label in labels.items()
        if counts.get(status)
    ]
    expiring = list(
        _rows("quotes.QuoteRevision")
        .filter(
            quote__owner=user,
            status="sent",
            valid_until__gte=today,
            valid_until__lte=until,
        )
        .select_related("quote", "quote__customer")
        .order_by("valid_until", "id")[:DASHBOARD_ROWS]
    )
    documents = list(
        _rows("quotes.Document")
        .filter(revision__quote__owner=user)
        .select_related("revision", "revision__quote")
        .order_by("-created_at", "-id")[:DASHBOARD_ROWS]
    )
    approvals = list(approval_queue(user)[:DASHBOARD_ROWS]) if is_approver(user) else None
    return Dashboard(
        draft_designs=draft_designs,
        draft_quotes=draft_quotes,
        quotes_by_status=by_status,
        expiring=expiring,
        documents=documents,
        approvals=approvals,
        today=today,
        expiring_until=until,
    )
