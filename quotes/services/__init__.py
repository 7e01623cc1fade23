"""Writes for quotes: keyword-only, transactional, named `<entity>_<action>`, one module per
concern. Business refusals are `DomainError`s (mapped once to problem+json in the API and to form
errors/messages on pages); what each status allows is decided by `quotes.transitions`. Callers
import from here: `from quotes.services import quote_create`."""

from quotes.services.acceptance import (
    quotes_expire,
    revision_accept,
    revision_decline,
    share_link_view_record,
)
from quotes.services.approvals import revision_approve, revision_reject, revision_submit
from quotes.services.creation import (
    DEFAULT_TAX_RATE,
    DEFAULT_TERMS,
    DEFAULT_VALIDITY_DAYS,
    quote_create,
)
from quotes.services.drafts import quote_archive, quote_delete
from quotes.services.errors import (
    ActionNotAllowed,
    ApprovalRequired,
    ContentChanged,
    NotPermitted,
    QuoteExpired,
    QuoteHasUnpricedLines,
    QuoteInvalid,
    QuoteNotEditable,
    TransitionNotAllowed,
)
from quotes.services.growth import quote_growth_revise as quote_growth_revise
from quotes.services.lines_grid import (
    LineCells,
    LinesInvalid,
    QuoteNotFound,
    revision_lines_update,
)
from quotes.services.numbering import quote_number
from quotes.services.prices import CatalogItem, _unpriced_lines, policy_rules
from quotes.services.records import audit_record
from quotes.services.revisions import (
    quote_revise,
    revision_discount_apply,
    revision_line_add,
    revision_line_delete,
    revision_line_update,
    revision_terms_update,
    revision_withdraw,
)
from quotes.services.sending import revision_send, share_link_create, share_link_revoke
from quotes.services.spares import revision_spares_add as revision_spares_add
from quotes.services.terms import (
    milestones_checked,
    revision_commercial_update,
    revision_default_terms,
    revision_freight_set,
    tax_rate_from_percent,
)

__all__ = [
    "DEFAULT_TAX_RATE",
    "DEFAULT_TERMS",
    "DEFAULT_VALIDITY_DAYS",
    "ActionNotAllowed",
    "ApprovalRequired",
    "CatalogItem",
    "ContentChanged",
    "LineCells",
    "LinesInvalid",
    "NotPermitted",
    "QuoteExpired",
    "QuoteHasUnpricedLines",
    "QuoteInvalid",
    "QuoteNotEditable",
    "QuoteNotFound",
    "TransitionNotAllowed",
    "_unpriced_lines",
    "audit_record",
    "milestones_checked",
    "policy_rules",
    "quote_archive",
    "quote_create",
    "quote_delete",
    "quote_number",
    "quote_revise",
    "quotes_expire",
    "revision_accept",
    "revision_approve",
    "revision_commercial_update",
    "revision_decline",
    "revision_default_terms",
    "revision_discount_apply",
    "revision_freight_set",
    "revision_line_add",
    "revision_line_delete",
    "revision_line_update",
    "revision_lines_update",
    "revision_reject",
    "revision_send",
    "revision_submit",
    "revision_terms_update",
    "revision_withdraw",
    "share_link_create",
    "share_link_revoke",
    "share_link_view_record",
    "tax_rate_from_percent",
]
