"""What a sales engineer sends the customer with a share link, as people share: the link as a QR
code (inline SVG, drawn here on the server: no script, no image request), and a ready message
for WeChat and e-mail in each language, naming the quote, the customer, the total, the validity
and the link. Reads only; nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass

import segno
from django.utils import translation
from django.utils.translation import gettext as _

from quotes.models import QuoteRevision

# The site's languages, each with its name written in itself (the reader picks by sight).
MESSAGE_LANGUAGES = (("zh-hans", "中文"), ("en", "English"))


@dataclass(frozen=True, kw_only=True)
class ShareMessage:
    language: str
    language_name: str
    subject: str
    text: str


def share_qr_svg(url: str, *, title: str = "") -> str:
    """The link as a QR code, an inline <svg> (error correction M: a phone camera reads it off a
    screen or a printout)."""
    code = segno.make(url, error="m", micro=False)
    return str(code.svg_inline(scale=4, border=2, title=title or None, svgclass="share-qr"))


def _money(amount: object) -> str:
    return f"{amount:,.2f}"


def share_messages(*, revision: QuoteRevision, url: str) -> list[ShareMessage]:
    """The message to send with the link, in each language, the customer's preferred language
    first: quote number, customer (named in that language), total with its currency (VAT
    included), validity and the link."""
    customer = revision.quote.customer
    preferred = "zh-hans" if customer.preferred_language.startswith("zh") else "en"
    languages = sorted(MESSAGE_LANGUAGES, key=lambda pair: pair[0] != preferred)
    messages = []
    for language, language_name in languages:
        with translation.override(language):
            values = {
                "number": revision.label,
                "customer": str(customer),
                "total": _money(revision.total),
                "currency": revision.currency,
                "link": url,
            }
            if revision.valid_until is not None:
                values["until"] = revision.valid_until.isoformat()
                validity = _("Valid until %(until)s.") % values
            else:
                validity = _("Valid for %(days)s days from sending.") % {
                    "days": revision.validity_days
                }
            subject = _("EZMAX proposal %(number)s for %(customer)s") % values
            # Chinese sentences end in "。" and follow one another without a space.
            separator = "" if language == "zh-hans" else " "
            text = separator.join(
                (
                    _(
                        "EZMAX proposal %(number)s for %(customer)s: total %(total)s "
                        "%(currency)s, VAT included."
                    )
                    % values,
                    validity,
                    _("View it, download the PDF and accept it online: %(link)s") % values,
                )
            )
        messages.append(
            ShareMessage(language=language, language_name=language_name, subject=subject, text=text)
        )
    return messages
