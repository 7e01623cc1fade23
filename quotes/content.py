"""What a revision says, as one SHA-256: the hash approval binds to and every document records.

It covers everything the customer reads or is bound by: each line (what it is, how many, every
price input and priced amount, cost included, since approval weighs the margin), the commercial
terms, the totals and taxes, and the design snapshot the revision was priced from. Timestamps,
statuses and who did what are not content: they change as the revision moves, its content
does not."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any

from quotes.models import QuoteLine, QuoteRevision

LINE_FIELDS = (
    "position", "kind", "plane", "tier", "sku", "description", "description_zh", "quantity",
    "is_optional", "frozen_list_price", "frozen_tiers", "frozen_contract_price",
    "frozen_unit_cost", "discount_percent", "override_unit_price", "override_unit_cost",
    "price_source", "list_unit_price", "base_unit_price", "unit_price", "line_total", "unit_cost",
    "tax_rate",
)  # fmt: skip
REVISION_FIELDS = (
    "price_list_code", "price_list_currency", "prices_are_samples",
    "currency", "exchange_rate", "tax_rate", "services_tax_rate", "freight_tax_rate",
    "payment_milestones", "tax_breakdown", "terms", "terms_written", "validity_days",
    "support_years", "list_total", "subtotal", "tax", "total", "optional_total", "cost_total",
    "margin_percent",
)  # fmt: skip


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        # 1.50 and 1.5 are the same amount: normalised so a re-read column hashes alike.
        return format(value.normalize(), "f")
    return value


def revision_content(revision: QuoteRevision, lines: list[QuoteLine]) -> dict[str, Any]:
    ordered = sorted(lines, key=lambda line: (line.position, line.pk or 0))
    frozen = revision.frozen_design
    return {
        "revision": {
            # The frozen design under the key and in the form revisions stored it before it
            # had a table of its own, so a hash recorded then still matches.
            "design_snapshot": frozen.as_json() if frozen is not None else {},
            **{name: _plain(getattr(revision, name)) for name in REVISION_FIELDS},
            # Left out while empty, so that a hash recorded before details were kept matches.
            **({"customer": revision.customer_details} if revision.customer_details else {}),
        },
        "lines": [{name: _plain(getattr(line, name)) for name in LINE_FIELDS} for line in ordered],
    }


def content_sha256(revision: QuoteRevision, lines: list[QuoteLine]) -> str:
    """The SHA-256 of the revision's content with these lines (canonical JSON)."""
    text = json.dumps(
        revision_content(revision, lines),
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def revision_content_sha256(revision: QuoteRevision) -> str:
    """The content hash of the revision as stored now (read from the database)."""
    return content_sha256(revision, list(revision.lines.all()))
