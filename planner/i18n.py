"""Engine text in the reader's language. The engine writes English templates with their values
(`engine.text`); this is the one place that puts them through gettext, for pages,
documents and API errors alike."""

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

from core.vocabulary import (
    DELIVERABLE_NAMES,
    PHASE_NAMES,
    fabric_label,
    media_label,
    plane_label,
    request_field_label,
    tier_label,
)
from engine.result import DesignResult, WarningResult, result_from_json
from engine.text import Text


def _link_label(link: str) -> str:
    """A link as the engine names it ("compute leaf-spine") in words ("Compute fabric
    Leaf–Spine")."""
    plane, _space, tiers = link.partition(" ")
    if not tiers:
        return tier_label(link)
    return f"{plane_label(plane)} {tier_label(tiers)}"


# Values the engine fills in as keys ("compute", "gpus_per_server", "rail-plane"): each named in
# the reader's language by the parameter that carries it.
_NAMED_PARAMS: dict[str, Callable[[str], str]] = {
    "link": _link_label,
    "plane": plane_label,
    "field": request_field_label,
    "fabric": fabric_label,
    "media": media_label,
    "tier": tier_label,
}


def _named(message: Text) -> Text:
    params: list[tuple[str, str | Text | tuple[Text, ...]]] = []
    for name, value in message.params:
        if isinstance(value, Text):
            params.append((name, _named(value)))
        elif isinstance(value, tuple):
            params.append((name, tuple(_named(part) for part in value)))
        elif name in _NAMED_PARAMS:
            params.append((name, _NAMED_PARAMS[name](value)))
        else:
            params.append((name, value))
    return Text(message.template, tuple(params))


def translated(message: Text) -> str:
    """`message` in the active language, its keys named (a plane, a request field); in English if
    its translation does not fit its values (a translator's typo in a placeholder must not break
    the page)."""
    named = _named(message)
    try:
        return named.render(gettext)
    except (KeyError, ValueError, TypeError):
        return named.render()


def localized_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a stored result (JSON) with its warnings and trade-off notes in the active
    language, for callers holding the JSON; pages and documents use `localized_warnings` and
    `localized_notes` on the typed result. Results saved before the engine kept templates have
    none, and keep their English."""
    typed = result_from_json(result)
    return {
        **result,
        "warnings": [
            {"code": w.code, "message": w.message, "action": w.action}
            for w in localized_warnings(typed)
        ],
        "notes": list(localized_notes(typed)),
    }


@dataclass(frozen=True)
class ShownWarning:
    """A design warning in the reader's language."""

    code: str
    message: str
    action: str


def _param(warning: WarningResult, name: str) -> object:
    text = warning.message_text
    return dict(text.params).get(name) if text is not None else None


def _resolved(warning: WarningResult, result: DesignResult) -> bool:
    """Whether a warning the engine wrote before choosing the media no longer holds once they are
    chosen. `form_factor_mismatch` (the NIC's cages are not the leaf's) is decided on the NIC and
    the switch alone, yet media selection only ever picks parts that fit the cages at both ends
    (`engine.fit`): once every server-leaf link group of the plane records its two ends,
    the BOM carries the fitting (adapting) parts and the warning is stale."""
    if warning.code != "form_factor_mismatch":
        return False
    plane = _param(warning, "plane")
    groups = [
        link
        for link in result.links
        if link.plane == plane and link.b == "leaf" and link.a in ("server", "endpoint")
    ]
    return bool(groups) and all(
        link.end_a is not None
        and link.end_b is not None
        and (link.cable_sku or link.transceivers or link.catalog_gap or link.fibre)
        for link in groups
    )


def current_warnings(
    result: DesignResult, leave_out: Collection[str] = ()
) -> tuple[WarningResult, ...]:
    """The result's warnings that still hold: stale ones dropped, and those whose code is in
    `leave_out` (a quote whose generic parts are all priced leaves out `catalog_gap`)."""
    return tuple(w for w in result.warnings if w.code not in leave_out and not _resolved(w, result))


def localized_warnings(
    result: DesignResult, leave_out: Collection[str] = ()
) -> tuple[ShownWarning, ...]:
    """A result's warnings that still hold (`current_warnings`) in the active language; results
    saved before the engine kept templates have none, and keep their English."""
    return tuple(
        ShownWarning(
            code=w.code,
            message=translated(w.message_text) if w.message_text is not None else w.message,
            action=translated(w.action_text) if w.action_text is not None else w.action,
        )
        for w in current_warnings(result, leave_out)
    )


def localized_notes(result: DesignResult) -> tuple[str, ...]:
    """An alternative's trade-off notes in the active language (English when stored without
    their templates)."""
    if result.notes_text:
        return tuple(translated(note) for note in result.notes_text)
    return result.notes


def plan_labels() -> dict[str, str]:
    """The implementation plan's phase and deliverable names and the Gantt chart's title, in the
    active language (`planner.svg.gantt_svg` looks its phases and milestones up by key)."""
    return {
        **{key: str(name) for key, name in PHASE_NAMES.items()},
        **{key: str(name) for key, name in DELIVERABLE_NAMES.items()},
        "title": gettext("Implementation plan"),
    }
