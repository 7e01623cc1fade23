"""The customer-facing documents: the design proposal and the implementation plan, rendered from
HTML templates by WeasyPrint. `render_document` is pure with respect to the database except for
reading the revision it is given; the job around it lives in quotes.documents."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.vocabulary import tier_label
from customers.details import CustomerDetails
from customers.models import Customer
from engine.money import Money
from planner.document import Progress, design_document
from quotes.models import QuoteLine, QuoteRevision
from quotes.selectors import grouped_lines
from quotes.services.terms import milestones_shown

# Bump when a template changes what a document says: a new version renders a new document.
TEMPLATE_VERSION = "2026.11.6"
# The mark on every page of a revision not approved, in both languages whatever the document's:
# whoever holds the paper must see it is not an offer.
DRAFT_MARK = "草稿 · 未审批 / DRAFT · NOT APPROVED"


def template_version_for(revision: QuoteRevision, version: str = TEMPLATE_VERSION) -> str:
    """The document key's template version: a revision not yet approved renders a marked draft,
    under its own key, so the PDF asked for once it is approved is a new, unmarked one."""
    if revision.is_approved_for_customer:
        return version
    return f"{version}-d"


class QuoteHasNoDesignResult(DomainError):
    """A quote whose frozen design holds no sized result: nothing to put in a document."""

    code = "quote_has_no_design_result"


@dataclass(frozen=True)
class RenderedDocument:
    content: bytes
    pages: int


def unpriced_parts(revision: QuoteRevision, lines: list[QuoteLine]) -> frozenset[str]:
    """The generic parts a document still marks "to be priced", by description (both languages:
    a line keeps the engine's English name and its Chinese one): those whose quote line has no
    price yet. Empty on a revision approved for the customer: what goes to the customer carries
    no internal matter, and approval needs every line priced anyway."""
    if revision.is_approved_for_customer:
        return frozenset()
    return frozenset(
        text
        for line in lines
        if line.to_be_priced
        for text in (line.description, line.description_zh)
        if text
    )


def document_context(
    revision: QuoteRevision, *, kind: str, start_date: date | None, progress: Progress
) -> tuple[dict[str, Any], list[Any]]:
    """Everything the templates show, in the active language: the design chapters from the
    design side's read model (`planner.document`), the commercial chapter from the revision.
    Returns the context and the attachments (the cabling schedule when too long to print)."""
    quote = revision.quote
    frozen = revision.frozen_design
    if frozen is None or frozen.typed_result is None:
        raise QuoteHasNoDesignResult(_("The quote's design has no sized result to document."))
    start = start_date or (revision.sent_at or revision.created_at or timezone.now()).date()
    progress(15, "plan")
    lines = list(revision.lines.all())
    unpriced = unpriced_parts(revision, lines)
    document = design_document(
        frozen=frozen,
        design=quote.design if quote.design_id else None,
        kind=kind,
        start=start,
        unpriced=unpriced,
        customer_copy=revision.is_approved_for_customer,
        progress=progress,
    )
    result = document.result
    # The details frozen with the revision (what was approved), else, for a revision priced
    # before they were kept, the customer's record.
    customer: CustomerDetails | Customer = (
        CustomerDetails.from_json(revision.customer_details)
        if revision.customer_details
        else quote.customer
    )
    context: dict[str, Any] = {
        **document.context,
        "kind": kind,
        "revision": revision,
        "quote": quote,
        "customer": customer,
        "author": quote.owner,
        "today": timezone.localdate(),
        # Approved for the customer: no "to be priced" marks, no instructions to the sales
        # engineer. Drafts keep them (and carry the draft mark).
        "customer_copy": revision.is_approved_for_customer,
        "confidential": _("Confidential: prepared for %(customer)s; not for distribution.")
        % {"customer": customer},
        "template_version": TEMPLATE_VERSION,
        "draft_mark": "" if revision.is_approved_for_customer else DRAFT_MARK,
        "contact": quote.contact,
        "milestones": milestones_shown(revision.payment_milestones),
    }
    attachments: list[Any] = []
    if kind == "proposal":
        context["alternatives_currency"] = revision.price_list_currency
        # The quote's lines as written (in the customer's language, frozen with the quote).
        context["groups"] = grouped_lines(lines)
        for group in context["groups"]:
            group.tier_label = tier_label(group.tier)
        # The quote's price per GPU before tax: its subtotal over the design's GPUs.
        context["price_per_gpu"] = Money(revision.subtotal, revision.currency).per(
            result.gpus_total
        )
        cabling = document.cabling_attachment
        if cabling is not None:
            # WeasyPrint loads Pango and friends: only the worker that renders pays for it.
            from weasyprint import Attachment

            attachments.append(
                Attachment(
                    string=cabling.content,
                    name=f"{revision.label}-cabling.csv",
                    description=cabling.description,
                )
            )
    return context, attachments


_fonts = threading.local()


def _font_config() -> Any:
    """WeasyPrint's font configuration, kept by each thread of a worker: building one and
    loading the fonts into its Pango font map again is paid on every render otherwise. Kept per
    thread because Pango's font maps are not thread-safe; the documents use system fonts only
    (no @font-face), so nothing accumulates in it from one document to the next."""
    config = getattr(_fonts, "config", None)
    if config is None:
        from weasyprint.text.fonts import FontConfiguration

        config = _fonts.config = FontConfiguration()
    return config


_collector_lock = threading.Lock()
_collector_holds = 0
_collector_was_enabled = True


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector held off while one document renders. WeasyPrint allocates
    hundreds of thousands of boxes and styles, so the collector ran every few hundred
    allocations, and each older-generation pass walked the whole heap (Django, the catalog, the
    engine's caches): 15 to 20 % of a 1,024-GPU proposal's CPU time, measured. The cycles a
    render leaves are collected after it; its peak memory grew by 4 MB (1,024 GPUs) and 9 MB
    (16,384), measured. Counted, so that overlapping renders in threads turn it back on only when
    the last one ends, and never when it was off before the first."""
    global _collector_holds, _collector_was_enabled
    with _collector_lock:
        if _collector_holds == 0:
            _collector_was_enabled = gc.isenabled()
            gc.disable()
        _collector_holds += 1
    try:
        yield
    finally:
        with _collector_lock:
            _collector_holds -= 1
            if _collector_holds == 0 and _collector_was_enabled:
                gc.enable()


def render_document(
    revision: QuoteRevision,
    *,
    kind: str,
    language: str,
    start_date: date | None = None,
    progress: Progress = lambda percent, step: None,
) -> RenderedDocument:
    with _collector_paused():
        return _render(
            revision, kind=kind, language=language, start_date=start_date, progress=progress
        )


def _render(
    revision: QuoteRevision,
    *,
    kind: str,
    language: str,
    start_date: date | None,
    progress: Progress,
) -> RenderedDocument:
    from weasyprint import HTML

    with translation.override(language):
        context, attachments = document_context(
            revision, kind=kind, start_date=start_date, progress=progress
        )
        context["language"] = language
        context["title"] = (
            _("GPU cluster network design and proposal")
            if kind == "proposal"
            else _("Implementation plan")
        )
        template = "documents/proposal.html" if kind == "proposal" else "documents/plan.html"
        html = render_to_string(template, context)
    progress(75, "layout")
    document = HTML(string=html, base_url=str(settings.BASE_DIR)).render(font_config=_font_config())
    progress(90, "pdf")
    content = document.write_pdf(attachments=attachments or None)
    assert content is not None
    return RenderedDocument(content=content, pages=len(document.pages))
