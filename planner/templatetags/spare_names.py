"""Recommended spares named in the reader's language (the meaning page and the proposal)."""

from typing import Any

from django import template

from engine.result import DesignResult
from planner.presenters import ShownResult, spare_names

register = template.Library()


@register.simple_tag
def named_spares(spares: Any, source: Any) -> list[tuple[Any, str]]:
    """`{% named_spares f.spares design as rows %}`: (spare, name) pairs. `source` names the
    design's generic parts: its result as the page already has it (a DesignResult or the
    presenters' ShownResult), or the planner Design, whose stored result is then decoded."""
    if isinstance(source, ShownResult):
        result: DesignResult | None = source.value
    elif isinstance(source, DesignResult):
        result = source
    else:
        result = getattr(source, "typed_result", None)
    return spare_names(list(spares), result)
