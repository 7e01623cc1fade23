"""The quotes list's fast path: QuoteListSerializer's answer built from `values()` rows.

QuoteListSerializer (quotes.serializers) stays the schema's description of a summary, and
tests/api/test_quote_list.py holds both answers alike. Building a model instance for each quote
and its current revision and running eighteen serializer fields (and ten for the revision) for
each of 25 rows took most of a list request (bench.load); a dictionary each takes a fraction of
that. Numbers, dates and times are rendered by the serializer's own field types (decimal
places, time zone, ISO 8601 as DRF writes them)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery
from rest_framework import serializers

from quotes.models import QuoteRevision

# The columns a summary reads, as `QuerySet.values` names them (`pk` for the cursor).
QUOTE_COLUMNS = (
    "pk", "id", "number", "title", "status", "currency", "total", "customer_id",
    "customer__name_en", "opportunity_id", "design_id", "owner__username", "team__name",
    "created_at", "updated_at", "archived_at",
)  # fmt: skip
REVISION_COLUMNS = (
    "id", "quote_id", "number", "status", "currency", "subtotal", "tax", "total",
    "optional_total", "valid_until", "created_at",
)  # fmt: skip

_money = serializers.DecimalField(max_digits=16, decimal_places=2)
_when = serializers.DateTimeField()
_day = serializers.DateField()


def _or_none(field: serializers.Field, value: Any) -> Any:  # type: ignore[type-arg]
    # DRF renders a None attribute as None without asking the field
    return None if value is None else field.to_representation(value)


def current_revisions(quote_ids: list[int]) -> dict[int, Mapping[str, Any]]:
    """The current (highest-numbered) revision of each quote, by quote id: one query."""
    latest = QuoteRevision.objects.filter(quote=OuterRef("quote")).order_by("-number")
    rows: QuerySet[QuoteRevision, dict[str, Any]] = QuoteRevision.objects.filter(
        quote_id__in=quote_ids, number=Subquery(latest.values("number")[:1])
    ).values(*REVISION_COLUMNS)
    return {row["quote_id"]: row for row in rows}


def _revision(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "number": row["number"],
        "status": row["status"],
        "currency": row["currency"],
        "subtotal": _or_none(_money, row["subtotal"]),
        "tax": _or_none(_money, row["tax"]),
        "total": _or_none(_money, row["total"]),
        "optional_total": _or_none(_money, row["optional_total"]),
        "valid_until": _or_none(_day, row["valid_until"]),
        "created_at": _or_none(_when, row["created_at"]),
    }


def quote_summaries(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """QuoteListSerializer's answer for rows of `values(*QUOTE_COLUMNS)`."""
    rows = list(rows)
    revisions = current_revisions([row["id"] for row in rows])
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
                "total": _or_none(_money, row["total"]),
                "customer": row["customer_id"],
                "customer_name": row["customer__name_en"],
                "opportunity": row["opportunity_id"],
                "design": row["design_id"],
                "owner": row["owner__username"],
                "team": row["team__name"],
                "created_at": _or_none(_when, row["created_at"]),
                "updated_at": _or_none(_when, row["updated_at"]),
                "archived_at": _or_none(_when, row["archived_at"]),
                "valid_until": (
                    _or_none(_day, revision["valid_until"]) if revision is not None else None
                ),
                "current_revision": _revision(revision) if revision is not None else None,
                "links": {
                    "self": base,
                    "revisions": f"{base}revisions/",
                    "documents": f"{base}documents/",
                    "xlsx": f"{base}quote.xlsx",
                },
            }
        )
    return summaries
