"""Reads for quotes. Visibility is decided here, once, for pages and the API alike: an engineer
sees the quotes of their own and of their team; anything else is a 404 (customers and their
opportunities: customers.selectors)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TypeVar

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as AuthUser
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from core.selectors import owned_or_team
from quotes import pricing
from quotes.models import (
    AuditEvent,
    Document,
    DocumentKind,
    DocumentStatus,
    LineKind,
    Quote,
    QuoteLine,
    QuoteRevision,
    ShareLink,
)

User = AuthUser | AnonymousUser
# What a queryset of quotes yields: model instances, or dictionaries after `values()`.
_Row = TypeVar("_Row")

# Planes in the order a proposal lists them; anything else follows, services last.
PLANE_ORDER = ("compute", "pool2", "pool3", "pool4", "storage", "frontend", "oob", "management")
SERVICES_PLANE = "services"
PLANE_LABELS = {
    "compute": _("Compute network"),
    "pool2": _("Compute network, second pool"),
    "pool3": _("Compute network, third pool"),
    "pool4": _("Compute network, fourth pool"),
    "storage": _("Storage network"),
    "frontend": _("Front-end network"),
    "oob": _("Out-of-band management"),
    "management": _("Management network"),
    SERVICES_PLANE: _("Services"),
    "options": _("Options"),
    "other": _("Other"),
}


def quotes_visible_to(user: User) -> QuerySet[Quote]:
    quotes = Quote.objects.select_related("customer", "owner", "team", "design", "opportunity")
    return visible_of(quotes, user)


def quotes_listed_to(user: User) -> QuerySet[Quote]:
    """The quotes list page's rows: the customer and owner it shows joined, and nothing of the
    design (whose stored request and result are large JSON columns the list never shows)."""
    return visible_of(Quote.objects.select_related("customer", "owner"), user)


def visible_of(quotes: QuerySet[Quote, _Row], user: User) -> QuerySet[Quote, _Row]:
    """`quotes` (any queryset of quotes: a `values()` one too) cut to those `user` may see; the
    one rule `quotes_visible_to` applies. The API's list passes its rows' `values()` queryset,
    built once per process (quotes.api.summaries)."""
    if not user.is_authenticated:
        return quotes.none()
    if getattr(user, "is_superuser", False):
        return quotes.all()
    return quotes.filter(owned_or_team(user.pk))


def revisions_of(quote: Quote) -> QuerySet[QuoteRevision]:
    # The frozen design comes along: the page names it, and it was a column of the revision.
    return quote.revisions.select_related(
        "approved_by", "sent_by", "created_by", "frozen_design"
    ).order_by("-number")


def share_link_by_token(token: str) -> ShareLink | None:
    """The active link for a token, or None (unknown and revoked tokens look the same)."""
    if not token or len(token) > 64:
        return None
    return (
        ShareLink.objects.select_related("revision", "revision__quote", "revision__quote__customer")
        .filter(token=token, revoked_at__isnull=True)
        .first()
    )


def documents_visible_to(user: User) -> QuerySet[Document]:
    """Documents of the quotes the user may see (the same rule for pages and the API)."""
    return Document.objects.select_related("revision", "revision__quote").filter(
        revision__quote__in=quotes_visible_to(user)
    )


def revision_proposal_document(
    revision: QuoteRevision, language: str | None = None
) -> Document | None:
    """The proposal PDF the customer may receive: ready, unmarked, of exactly the content that
    was approved (`Document.is_shareable`), in `language` (the customer's preferred language
    when None). Never a draft copy, a superseded render or another revision's document; None
    until that one is rendered."""
    if not revision.is_approved_for_customer:
        return None
    language = language or revision.quote.customer.preferred_language
    candidates = revision.documents.filter(
        kind=DocumentKind.PROPOSAL,
        status=DocumentStatus.READY,
        language=language,
        content_sha256=revision.approved_sha256,
    ).order_by("-finished_at", "-pk")
    return next((document for document in candidates if document.is_shareable), None)


def revision_document_sha256(revision: QuoteRevision, link: ShareLink | None = None) -> str | None:
    """SHA-256 of the exact proposal PDF the customer accepts: the bytes the share link last
    served them (checked against that hash as they were sent), else the PDF they can download
    now in their preferred language; None when no PDF has been rendered (the customer then
    accepts the HTML proposal)."""
    if link is not None and link.served_sha256:
        return link.served_sha256
    document = revision_proposal_document(revision)
    return document.sha256 if document else None


def audit_events_of(quote: Quote) -> QuerySet[AuditEvent]:
    return quote.audit_events.select_related("actor", "revision")


def can_view_margin(user: User) -> bool:
    return bool(user.is_authenticated and user.has_perm("quotes.view_margin"))


# --- The proposal as shown: lines grouped by plane and tier, with subtotals ----------------------


@dataclass
class LineGroup:
    plane: str
    tier: str
    lines: list[QuoteLine] = field(default_factory=list)
    subtotal: Decimal = Decimal("0")
    optional_total: Decimal = Decimal("0")

    @property
    def plane_label(self) -> str:
        return str(PLANE_LABELS.get(self.plane, self.plane.capitalize()))

    @property
    def key(self) -> str:
        return f"{self.plane}/{self.tier}"


def _plane_rank(plane: str) -> tuple[int, str]:
    if plane == SERVICES_PLANE:
        return (len(PLANE_ORDER) + 1, plane)
    if plane in PLANE_ORDER:
        return (PLANE_ORDER.index(plane), plane)
    return (len(PLANE_ORDER), plane)


def grouped_lines(lines: list[QuoteLine]) -> list[LineGroup]:
    """Lines grouped by (plane, tier) in proposal order, with subtotals (non-optional lines)."""
    groups: OrderedDict[tuple[str, str], LineGroup] = OrderedDict()
    for line in sorted(lines, key=lambda x: (_plane_rank(x.plane), x.position, x.pk or 0)):
        group = groups.setdefault((line.plane, line.tier), LineGroup(line.plane, line.tier))
        group.lines.append(line)
        if line.kind == LineKind.NOTE:
            continue
        if line.is_optional:
            group.optional_total += line.line_total
        else:
            group.subtotal += line.line_total
    return list(groups.values())


def revision_pricing_inputs(revision: QuoteRevision) -> list[pricing.LineInput]:
    return [line_input(line) for line in revision.lines.order_by("position", "id")]


def line_input(line: QuoteLine) -> pricing.LineInput:
    return pricing.LineInput(
        key=str(line.pk),
        kind=line.kind,
        sku=line.sku,
        quantity=line.quantity,
        plane=line.plane,
        tier=line.tier,
        optional=line.is_optional,
        list_price=line.frozen_list_price,
        tiers=tuple((int(m), Decimal(str(p))) for m, p in line.frozen_tiers),
        contract_price=line.frozen_contract_price,
        unit_cost=_unit_cost(line),
        discount_percent=line.discount_percent,
        override_unit_price=line.override_unit_price,
    )


def _unit_cost(line: QuoteLine) -> Decimal | None:
    """A hand-entered cost (a line priced by hand: a catalog gap has none) wins over the
    catalog's; both are in the price list's currency."""
    if line.override_unit_cost is not None:
        return line.override_unit_cost
    return line.frozen_unit_cost


def revision_priced(revision: QuoteRevision) -> pricing.PricedQuote:
    return pricing.price_quote(
        revision_pricing_inputs(revision),
        exchange_rate=revision.exchange_rate,
        tax_rate=revision.tax_rate,
        tax_rates=revision.tax_rates,
        currency=revision.currency,
    )
