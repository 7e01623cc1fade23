"""The API's request parser: DRF's JSON parser with the limits hostile input needs. Kept apart
from `core.api` because DRF reads DEFAULT_PARSER_CLASSES while `rest_framework.views` loads.

- Nesting is limited (API_JSON_MAX_DEPTH, 32 levels): no request of this API nests deeper than a
  few levels, and a body nested a thousand deep made the decoder (and everything recursing over
  the data after it) hit Python's recursion limit: a 500.
- A NUL character anywhere in the body (a key or a string) is refused: PostgreSQL cannot store
  one in a text or JSON column, so it would fail later as a 500."""

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def json_limits_check(data: Any, *, max_depth: int) -> None:
    """Raise ParseError when `data` nests deeper than `max_depth` containers or holds a NUL
    character. Iterative: a check must not recurse over what it checks."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise ParseError(_("JSON strings may not contain NUL (\\u0000) characters."))
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > max_depth:
            raise ParseError(
                _("JSON nested too deep: at most %(limit)d levels.") % {"limit": max_depth}
            )
        if isinstance(value, dict):
            stack.extend((key, depth) for key in value)
            stack.extend((item, depth + 1) for item in value.values())
        else:
            stack.extend((item, depth + 1) for item in value)


class LimitedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        max_depth = settings.API_JSON_MAX_DEPTH
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            # The decoder itself gave up: far deeper than the limit.
            raise ParseError(
                _("JSON nested too deep: at most %(limit)d levels.") % {"limit": max_depth}
            ) from None
        json_limits_check(data, max_depth=max_depth)
        return data
