"""Refusals of the quote services, named in the business language. Those about what a status
allows live with the transition table (quotes.transitions) and are re-exported here."""

from __future__ import annotations

from core.errors import DomainError
from quotes.transitions import (
    ActionNotAllowed,
    ApprovalRequired,
    QuoteExpired,
    QuoteNotEditable,
    TransitionNotAllowed,
)

__all__ = [
    "ActionNotAllowed",
    "ApprovalRequired",
    "ContentChanged",
    "NotPermitted",
    "QuoteExpired",
    "QuoteHasUnpricedLines",
    "QuoteInvalid",
    "QuoteNotEditable",
    "TransitionNotAllowed",
    "VersionConflict",
]


class QuoteInvalid(DomainError):
    http_status = 400
    code = "invalid_quote"


class QuoteHasUnpricedLines(DomainError):
    """Lines that stand in for items the catalog lacks still have no price: the quote is not
    complete, so it can be neither submitted for approval nor sent to the customer."""

    http_status = 400
    code = "quote_has_unpriced_lines"


class NotPermitted(DomainError):
    http_status = 403
    code = "not_permitted"


class ContentChanged(DomainError):
    """What the revision says is not what was submitted (or approved): the approval is void."""

    http_status = 409
    code = "content_changed"


class VersionConflict(DomainError):
    """A save made from an older version of a line or revision than the one stored: someone
    else saved in between. Nothing is overwritten; the reader reloads and decides again."""

    http_status = 412
    code = "version_conflict"
