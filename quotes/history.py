"""A quote's audit trail as a reader sees it, in the reader's language.

The trail stores codes and values (an action, field codes, statuses, amounts), which are named
when they are shown (core.vocabulary.change_summary). Texts the code wrote in both
languages are stored with both: `<field>_in` beside `<field>` ({"en": ..., "zh-hans": ...}, e.g.
a line's `description_in`, generated terms' `terms_in`), and the reader's language is shown.
Text people typed (a customer's name, a reason) is shown as typed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from core.vocabulary import change_summary
from quotes.models import AuditAction, AuditEvent

SUFFIX = "_in"
# Actor labels the code stored as words (in whichever language was active then, or in English);
# shown in the reader's language.
SHARE_LINK_VISITOR = "customer (share link)"
EXPIRY_TASK = "expiry task"


@dataclass(frozen=True)
class HistoryRow:
    created_at: datetime
    who: str
    what: str
    before: str
    after: str


def _languages() -> tuple[str, str]:
    """(the reader's language, the other one) as the trail keys them."""
    if (get_language() or "en").lower().startswith("zh"):
        return "zh-hans", "en"
    return "en", "zh-hans"


def _in_both(state: Any) -> dict[str, Mapping[str, Any]]:
    if not isinstance(state, Mapping):
        return {}
    return {
        key[: -len(SUFFIX)]: value
        for key, value in state.items()
        if str(key).endswith(SUFFIX) and isinstance(value, Mapping)
    }


def _shown(state: Any, languages: Mapping[str, str]) -> Any:
    """`state` with each field written in both languages in the language chosen for it, and the
    `<field>_in` keys left out."""
    both = _in_both(state)
    if not both:
        return state
    reader = _languages()[0]
    shown = {}
    for key, value in state.items():
        if str(key).endswith(SUFFIX) and str(key)[: -len(SUFFIX)] in both:
            continue
        texts = both.get(key)
        if texts is not None:
            value = texts.get(languages.get(key, reader)) or value
        shown[key] = value
    return shown


def _chosen_languages(before: Any, after: Any) -> dict[str, str]:
    """The language to show each bilingual field in: the reader's, unless only the other
    language's text changed (then that one, so the change shows)."""
    ours, theirs = _languages()
    old, new = _in_both(before), _in_both(after)
    chosen = {}
    for field in {**old, **new}:
        was, now = old.get(field, {}), new.get(field, {})
        only_theirs = was.get(ours) == now.get(ours) and was.get(theirs) != now.get(theirs)
        chosen[field] = theirs if only_theirs and field in old and field in new else ours
    return chosen


def _who(event: AuditEvent) -> str:
    if event.actor is not None:
        return event.actor.get_username()
    if event.action == AuditAction.SHARE_LINK_VIEWED:
        return _("customer (share link)")
    if event.actor_label == EXPIRY_TASK:
        return _("expiry task")
    return event.actor_label


def history_rows(events: Iterable[AuditEvent]) -> list[HistoryRow]:
    rows = []
    for event in events:
        languages = _chosen_languages(event.before, event.after)
        what = str(event.get_action_display())
        if event.revision is not None:
            what = f"{what} · {event.revision.label}"
        rows.append(
            HistoryRow(
                created_at=event.created_at,
                who=_who(event),
                what=what,
                before=change_summary(_shown(event.before, languages)),
                after=change_summary(_shown(event.after, languages)),
            )
        )
    return rows
