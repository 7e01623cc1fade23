"""Parts in the reader's language, for templates that get a generic part's English name from the
engine (spares, growth parts)."""

from django import template

from planner.presenters import generic_name as _generic_name

register = template.Library()


@register.filter
def generic_name(description: str) -> str:
    """An inline switch's English description ("Switch, 64 x 400G (inline spec, ...)") in the
    reader's language; any other text as it is."""
    return _generic_name(str(description))
