"""The quotes list's fast path: QuoteListSerializer's answer built from `values()` rows.

QuoteListSerializer (quotes.serializers) stays the schema's description of a summary, and
tests/api/test_quote_list.py holds both answers alike. Building a model instance for each quote
and its current revision and running eighteen serializer fields (and ten for the revision) for
each of 25 rows took most of a list request (bench.load); a dictionary each takes a fraction of
that. Numbers, dates and times are rendered as the serializer's field types render them
(core.api.values: decimal places, time zone, ISO 8601 as DRF writes them)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import QuerySet

from core.api.values import DateTimeText, date_text, decimal_text
from quotes.models import Quote, QuoteRevision

# The columns a summary reads, as `QuerySet.values` names them (`pk` for the cursor).
QUOTE_COLUMNS = (
    "pk", "id", "number", "title", "status", "currency", "total", "customer_id",
    "customer__name_en", "customer__name_zh", "opportunity_id", "design_id", "owner__username",
    "team__name",
    "created_at", "updated_at", "archived_at",
)  # fmt: skip
REVISION_COLUMNS = (
    "id", "quote_id", "number", "status", "currency", "subtotal", "tax", "total",
    "optional_total", "valid_until", "created_at",
)  # fmt: skip


def _money(value: Any) -> str | None:
    # QuoteListSerializer's and QuoteRevisionSummarySerializer's money: max_digits=16, 2 places
    return decimal_text(value, places=2, max_digits=16)


# Built once per process: every page adds only its filters (visibility, the caller's, the cursor)
# to this, instead of resolving all seventeen columns again for each request.
QUOTE_ROWS: QuerySet[Quote, dict[str, Any]] = Quote.objects.values(*QUOTE_COLUMNS)
# Unordered: the model's ordering ("quote", "number") sorts through a join on the quotes by
# theirs, and the highest number is picked in Python anyway.
_REVISION_ROWS: QuerySet[QuoteRevision, dict[str, Any]] = QuoteRevision.objects.order_by().values(
    *REVISION_COLUMNS
)


def current_revisions(quote_ids: list[int]) -> dict[int, Mapping[str, Any]]:
    """The current (highest-numbered) revision of each quote, by quote id: one query. All the
    page's revisions are read (a quote has a handful) and the highest of each kept: SQLite ran a
    correlated subquery for the highest number once per revision, a third of the request."""
    current: dict[int, Mapping[str, Any]] = {}
    for row in _REVISION_ROWS.filter(quote_id__in=quote_ids):
        held = current.get(row["quote_id"])
        if held is None or held["number"] < row["number"]:
            current[row["quote_id"]] = row
    return current


def _revision(row: Mapping[str, Any], when: DateTimeText) -> dict[str, Any]:
    return {
        "id": row["id"],
        "number": row["number"],
        "status": row["status"],
        "currency": row["currency"],
        "subtotal": _money(row["subtotal"]),
        "tax": _money(row["tax"]),
        "total": _money(row["total"]),
        "optional_total": _money(row["optional_total"]),
        "valid_until": date_text(row["valid_until"]),
        "created_at": when(row["created_at"]),
    }


def quote_summaries(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """QuoteListSerializer's answer for rows of `values(*QUOTE_COLUMNS)`."""
    rows = list(rows)
    revisions = current_revisions([row["id"] for row in rows])
    when = DateTimeText()
    summaries = []
    for row in rows:
        revision = revisions.get(row["id"])
        base = f"/api/v1/quotes/{row['id']}/"
        summaries.append(
            {
                "id": row["id"],
                "number": row["number"],
                "title": row["title"],
                "status": row["status"],
                "currency": row["currency"],
                "total": _money(row["total"]),
                "customer": row["customer_id"],
                # The English name, else the Chinese one (a customer may have only that).
                "customer_name": row["customer__name_en"] or row["customer__name_zh"],
                "opportunity": row["opportunity_id"],
                "design": row["design_id"],
                "owner": row["owner__username"],
                "team": row["team__name"],
                "created_at": when(row["created_at"]),
                "updated_at": when(row["updated_at"]),
                "archived_at": when(row["archived_at"]),
                "valid_until": date_text(revision["valid_until"]) if revision else None,
                "current_revision": _revision(revision, when) if revision else None,
                "links": {
                    "self": base,
                    "revisions": f"{base}revisions/",
                    "documents": f"{base}documents/",
                    "xlsx": f"{base}quote.xlsx",
                },
            }
        )
    return summaries
