"""Sharing as people share (issue 27, item 8): on the quote page each active link has a copy
button (static/js/share.js: the CSP forbids inline scripts), a QR code drawn on the server, and
a ready message in both languages; the customer's page leads with the total, the validity and
the accept form, and offers the PDF in the customer's language first."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quotes import services
from quotes.models import Document, DocumentKind, DocumentStatus
from quotes.services.share_text import share_messages, share_qr_svg

pytestmark = pytest.mark.django_db


def sent(quote, engineer):
    quote.refresh_from_db()
    link = services.revision_send(user=engineer, revision=quote.current_revision)
    link.revision.refresh_from_db()
    return link


def test_messages_name_quote_customer_total_validity_and_link_in_both_languages(quote, engineer):
    customer = quote.customer
    customer.name_zh, customer.preferred_language = "示例智算实验室", "zh-hans"
    customer.save()
    link = sent(quote, engineer)
    revision = link.revision
    url = "https://planner.example.cn/s/token/"
    messages = share_messages(revision=revision, url=url)
    # The customer's language first, then the other.
    assert [m.language for m in messages] == ["zh-hans", "en"]
    total = f"{revision.total:,.2f}"  # e.g. 359,108.50 (VAT in): the revision's own total
    assert revision.valid_until == timezone.localdate() + timedelta(days=30)  # 30 days from now
    for message in messages:
        assert revision.label in message.text
        assert f"{total} {revision.currency}" in message.text
        assert revision.valid_until.isoformat() in message.text
        assert message.text.endswith(url)
    assert "示例智算实验室" in messages[0].text  # each names the customer in its language
    assert "Example AI Lab" in messages[1].text
    assert messages[1].text.startswith(f"EZMAX proposal {revision.label} for Example AI Lab")


def test_qr_code_is_inline_svg_of_the_link():
    svg = share_qr_svg("https://planner.example.cn/s/abc/")
    assert svg.startswith("<svg")
    assert svg.endswith("</svg>")
    assert "<script" not in svg
    assert "<image" not in svg
    # A version-3 code (up to 53 bytes at level M; this link has 34) is 29 modules; with a
    # border of 2 on each side and 4 px per module: (29 + 4) x 4 = 132 px.
    assert 'width="132"' in svg
    assert 'height="132"' in svg


def test_quote_page_offers_copy_qr_and_messages(client, quote, engineer):
    link = sent(quote, engineer)
    client.force_login(engineer)
    html = client.get(
        reverse("quotes:quote-detail", args=[quote.pk]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    url = f"http://testserver{reverse('share:proposal', args=[link.token])}"
    assert f'value="{url}"' in html
    assert 'data-testid="copy-link"' in html
    assert re.search(r'<script src="/static/js/share\.js[^"]*" defer>', html)
    assert "onclick" not in html  # no inline handler (CSP)
    qr = html.split('data-testid="share-qr">')[1].split("</figure>")[0]
    assert "<svg" in qr
    for language in ("zh-hans", "en"):
        block = html.split(f'data-testid="share-message-{language}"')[1].split("</div>")[0]
        assert url in block
        assert link.revision.label in block
        assert f'data-testid="copy-message-{language}"' in block


def test_share_page_leads_with_total_validity_and_accept(client, quote, engineer):
    link = sent(quote, engineer)
    html = client.get(reverse("share:proposal", args=[link.token])).content.decode()
    total = html.index('data-testid="share-total"')
    validity = html.index('data-testid="share-valid-until"')
    accept = html.index('data-testid="accept-form"')
    lines = html.index("<table")  # the first line card/table
    assert total < validity < accept < lines
    assert f"{link.revision.total:,.2f}" in html[total : total + 200]


def _ready(revision, language, engineer):
    return Document.objects.create(
        revision=revision, kind=DocumentKind.PROPOSAL, language=language,
        template_version="t", start_date=timezone.localdate(), requested_by=engineer,
        status=DocumentStatus.READY, sha256="0" * 64, content_sha256=revision.approved_sha256,
        finished_at=timezone.now(),
    )  # fmt: skip


def test_share_page_offers_the_customers_language_pdf_first(client, quote, engineer):
    customer = quote.customer
    customer.preferred_language = "zh-hans"
    customer.save()
    link = sent(quote, engineer)
    revision = link.revision
    assert revision.approved_sha256  # sent: approved content, documents of it are shareable
    Document.objects.filter(revision=revision).delete()
    _ready(revision, "en", engineer)
    _ready(revision, "zh-hans", engineer)
    # Read in English, by a customer whose language is Chinese: the Chinese PDF comes first.
    html = client.get(
        reverse("share:proposal", args=[link.token]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    first = re.search(r'href="[^"]*\?lang=([a-z-]+)" data-testid="proposal-pdf"', html)
    other = re.search(r'href="[^"]*\?lang=([a-z-]+)" data-testid="proposal-pdf-other"', html)
    assert first
    assert first.group(1) == "zh-hans"
    assert other
    assert other.group(1) == "en"
