"""The pipeline on the home dashboard: the value of the team's quotes by status, per currency
(amounts in two currencies are never added up). One query whatever the number of quotes.

Core, where the dashboard lives, sits below quotes in the layers and may not read them: the home
page asks for this through the `quote_pipeline` template tag (quotes.templatetags), which renders
templates/quotes/_pipeline.html."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, Sum

from core.selectors import owned_or_team
from engine.money import Money
from quotes.models import Quote, QuoteStatus


@dataclass(frozen=True, kw_only=True)
class PipelineRow:
    status: str
    label: str
    currency: str
    total: Money  # VAT included, in `currency`
    count: int


def pipeline_by_status(user: User | AnonymousUser) -> list[PipelineRow]:
    """The user's and their team's quotes (archived drafts left out), summed by status and
    currency: `total` is the sum of the quotes' totals (each its latest revision's, VAT
    included). Statuses in their lifecycle order, then currencies alphabetically."""
    if not user.is_authenticated or user.pk is None:
        return []
    rows = (
        Quote.objects.filter(owned_or_team(user.pk), archived_at__isnull=True)
        .order_by()
        .values("status", "currency")
        .annotate(total=Sum("total"), count=Count("id"))
    )
    order = {status: index for index, status in enumerate(QuoteStatus.values)}
    labels = dict(QuoteStatus.choices)
    found = [
        PipelineRow(
            status=row["status"],
            label=str(labels.get(row["status"], row["status"])),
            currency=row["currency"],
            total=Money(Decimal(row["total"] or 0), row["currency"]).rounded(),
            count=row["count"],
        )
        for row in rows
    ]
    return sorted(found, key=lambda row: (order.get(row.status, len(order)), row.currency))
