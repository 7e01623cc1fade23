"""The meaning page's recommended spares named in the reader's language."""

from typing import Any

from django import template

from planner.presenters import spare_names

register = template.Library()


@register.simple_tag
def named_spares(spares: Any, design: Any) -> list[tuple[Any, str]]:
    """`{% named_spares f.spares design as rows %}`: (spare, name) pairs; `design` is the
    planner Design whose stored result names its generic parts in both languages."""
    return spare_names(list(spares), design.typed_result if design is not None else None)
