"""Engine text in the reader's language. The engine writes English templates with their values
(`planner.engine.text`); this is the one place that puts them through gettext, for pages,
documents and API errors alike."""

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext

from planner.engine.text import Text, from_dict


def translated(message: Text) -> str:
    """`message` in the active language; in English if its translation does not fit its values
    (a translator's typo in a placeholder must not break the page)."""
    try:
        return message.render(gettext)
    except (KeyError, ValueError, TypeError):
        return message.render()


def localized_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a design result with its warnings and trade-off notes in the active language.
    Results saved before the engine kept templates have none, and keep their English."""
    out = dict(result)
    warnings = []
    for warning in result.get("warnings", []):
        localized = dict(warning)
        texts = warning.get("text")
        if isinstance(texts, Mapping):
            localized["message"] = translated(from_dict(texts.get("message")))
            localized["action"] = translated(from_dict(texts.get("action")))
        warnings.append(localized)
    out["warnings"] = warnings
    notes = result.get("notes_text")
    if isinstance(notes, list):
        out["notes"] = [translated(from_dict(note)) for note in notes]
    return out
