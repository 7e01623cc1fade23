"""What goes to the customer carries no internal matter (issue 24, item 3): the proposal and the
implementation plan of a revision approved for the customer, in both languages, and the
customer's share page, show no "to be priced" marks, no instructions to the sales engineer and
no cost, margin or approval notes; a generic part (a catalog gap) whose quote line was priced by
hand reads as a normal, priced part. The draft of the same quote keeps its marks: the test shows
the strings it looks for are really printed when they apply.

Real WeasyPrint output, read back with pypdf."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from engine.text import from_dict
from planner.i18n import translated
from quotes import services
from quotes.models import QuoteStatus
from quotes.pdf import render_document
from tests.conftest import load_seed_catalog
from tests.quotes.test_documents import BROCHURE, make_quote, pdf_text

pytestmark = pytest.mark.django_db

PRICE = Decimal("1234.00")  # what the sales engineer enters for each generic AOC

# Internal matter, in both languages, as the templates, the engine's warnings and the locale
# write it (templates/documents/*.html, templates/quotes/_lines.html and quote_detail.html,
# engine.design_warnings' `catalog_gap` warning, engine.notes' unpriced-lines note,
# quotes.models' cost and margin fields, the approval workflow). "Cost" alone is not internal
# here: the proposal prices the customer's cost per GPU of each alternative ("Cost per GPU",
# "每 GPU 成本"); our own cost is "Unit cost" / "单位成本" and the margin. Compared without
# whitespace: the PDF wraps table cells anywhere.
INTERNAL = {
    "en": [
        "To be priced",
        "to be priced",
        "before it is sent",  # "...the quote must price it (or replace it...) before it is sent."
        "before the quote is sent",  # the engine's catalog_gap action
        "Price them or replace them",
        "Generic part",
        "generic part stands in",
        "No catalog item fits",
        "no catalog item that fits",
        "Unit cost",
        "unit cost",
        "cost and margin",
        "the cost leaves them out",  # the engine's note on an alternative with unpriced lines
        "no price yet",
        "partly unpriced",
        "Margin",
        "margin",
        "cost_total",
        "catalog_gap",
        "approval",
        "Approval",
        "approved by",
        "DRAFT",
        "no price",
    ],
    "zh-hans": [
        "待定价",
        "发送报价前",
        "请在发送报价前为其定价",
        "通用部件",
        "没有适配",
        "单位成本",
        "成本与毛利",
        "成本未计入",  # the engine's note on an alternative with unpriced lines
        "尚无价格",
        "部分未定价",
        "毛利",
        "审批",
        "草稿",
        "catalog_gap",
        "无价格",
    ],
}


def flat(text: str) -> str:
    return "".join(text.split())


def found(text: str, language: str) -> list[str]:
    flat_text = flat(text)
    return [needle for needle in INTERNAL[language] if flat(needle) in flat_text]


def priced_gap_quote(engineer):
    """The brochure's 64 GPUs on one SN2410: the engine stands generic AOCs in for a cable the
    catalog does not sell; the sales engineer prices each by hand, and the revision is
    approved (no discount policy asks for a manager here)."""
    quote = make_quote(engineer, request=BROCHURE)
    revision = quote.current_revision
    gaps = [line for line in revision.lines.all() if line.to_be_priced]
    assert gaps, "the brochure design must carry a catalog gap"
    return quote, gaps


def _approve(engineer, quote, gaps):
    for line in gaps:
        services.revision_line_update(user=engineer, line=line, override_unit_price=PRICE)
    quote.refresh_from_db()
    revision = quote.current_revision
    assert revision.unpriced_line_count == 0
    services.revision_submit(user=engineer, revision=revision)
    quote.refresh_from_db()
    revision = quote.current_revision
    assert revision.status == QuoteStatus.APPROVED
    assert revision.is_approved_for_customer
    return revision


@pytest.fixture
def seed(db):
    load_seed_catalog()


@pytest.mark.slow  # renders and reads back three PDFs
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_approved_documents_carry_no_internal_matter(seed, engineer, language):
    quote, gaps = priced_gap_quote(engineer)
    [gap] = [e for e in quote.current_revision.frozen_design.result["bom"] if e["catalog_gap"]]
    with translation.override(language):
        gap_name = translated(from_dict(gap["description_text"]))

    # The draft first: it does mark the generic part, so the needles are the printed words.
    draft = render_document(quote.current_revision, kind="proposal", language=language)
    _reader, draft_text = pdf_text(draft.content)
    marker = "To be priced" if language == "en" else "待定价"
    assert flat(marker) in flat(draft_text)

    revision = _approve(engineer, quote, gaps)
    for kind in ("proposal", "plan"):
        document = render_document(revision, kind=kind, language=language)
        _reader, text = pdf_text(document.content)
        assert found(text, language) == [], kind
    # The priced generic part reads as a part, by its description, with its price and amount.
    proposal = render_document(revision, kind="proposal", language=language)
    _reader, text = pdf_text(proposal.content)
    flat_text = flat(text)
    assert flat(gap_name) in flat_text
    [line] = [line for line in revision.lines.all() if not line.sku and line.kind == "product"]
    assert flat(f"{line.description_in(language)} {line.quantity} {PRICE:,.2f}") in flat_text
    assert f"{line.line_total:,.2f}" in text
    assert f"{revision.total:,.2f}" in text


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_share_page_carries_no_internal_matter(seed, engineer, client, language):
    quote, gaps = priced_gap_quote(engineer)
    revision = _approve(engineer, quote, gaps)
    link = services.revision_send(user=engineer, revision=revision)
    response = client.get(
        reverse("share:proposal", args=[link.token]), HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    html = response.content.decode()
    # Attribute values and markup count too: nothing internal hides in a title or a class.
    needles = [n for n in INTERNAL[language] if n not in ("approval", "Approval")]
    assert [n for n in needles if n in html] == []
    assert 'class="num margin"' not in html
    assert f"{revision.total:,.2f}" in html
