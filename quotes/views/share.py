"""The share links' part of the quote page: for each active link, its address, its QR code and
the ready messages to send with it (quotes.services.share_text). The customer's own pages are
in quotes.views.pages (the routes of quotes.share_urls)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.http import HttpRequest
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from quotes.models import QuoteRevision, ShareLink
from quotes.services.share_text import ShareMessage, share_messages, share_qr_svg


@dataclass(frozen=True, kw_only=True)
class SharePanel:
    link: ShareLink
    url: str
    qr_svg: SafeString
    messages: list[ShareMessage]


def share_panels(
    request: HttpRequest, revision: QuoteRevision, links: Iterable[ShareLink]
) -> list[SharePanel]:
    panels = []
    for link in links:
        if not link.is_active:
            continue
        url = request.build_absolute_uri(reverse("share:proposal", args=[link.token]))
        # The SVG is segno's drawing of our own URL (a host ALLOWED_HOSTS accepted and a token
        # of [A-Za-z0-9_-]): no text of anyone's goes into it.
        svg = mark_safe(share_qr_svg(url))
        panels.append(
            SharePanel(
                link=link, url=url, qr_svg=svg, messages=share_messages(revision=revision, url=url)
            )
        )
    return panels
