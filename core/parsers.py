"""The API's request parser: DRF's JSON parser with the limits hostile input needs. Kept apart
from `core.api` because DRF reads DEFAULT_PARSER_CLASSES while `rest_framework.views` loads.

- Nesting is limited (API_JSON_MAX_DEPTH, 32 levels): no request of this API nests deeper than a
  few levels, and a body nested a thousand deep made the decoder (and everything recursing over
  the data after it) hit Python's recursion limit: a 500.
- Keys are counted (API_JSON_MAX_KEYS, 200, in all objects together) before any serializer sees
  them: the largest request of this API has a few dozen, and 2 MB of unknown keys cost 2.8 s of
  validation and a 4.4 MB answer naming each. The refusal names one field and no key.
- A NUL character anywhere in the body (a key or a string) is refused: PostgreSQL cannot store
  one in a text or JSON column, so it would fail later as a 500."""

import json
from collections import Counter
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser

# DRF's name for an error about the body as a whole.
BODY_FIELD = "non_field_errors"


def json_limits_check(data: Any, *, max_depth: int, max_keys: int | None = None) -> None:
    """Raise ParseError when `data` nests deeper than `max_depth` containers or holds a NUL
    character, and ValidationError when its objects hold more than `max_keys` keys in all,
    naming the top-level field most of them are under. Iterative: a check must not recurse over
    what it checks."""
    # Each value carries the top-level field it is under (BODY_FIELD for the top level itself).
    stack: list[tuple[Any, int, str]] = [(data, 1, BODY_FIELD)]
    keys: Counter[str] = Counter()
    total = 0
    while stack:
        value, depth, field = stack.pop()
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
            total += len(value)
            keys[field] += len(value)
            if max_keys is not None and total > max_keys:
                _too_many_keys(keys, max_keys)
            stack.extend((key, depth, field) for key in value)
            stack.extend(
                (item, depth + 1, str(key) if depth == 1 else field) for key, item in value.items()
            )
        else:
            stack.extend((item, depth + 1, field) for item in value)


def _too_many_keys(keys: Counter[str], max_keys: int) -> None:
    field = keys.most_common(1)[0][0]
    message = _(
        "The JSON body has more than %(limit)d keys in all; no request of this API has that many."
    ) % {"limit": max_keys}
    # The field's name as sent may be anything: cut so the answer stays small.
    raise ValidationError({field[:100]: [message]})


def _invalid_json(cause: BaseException | None) -> str:
    if isinstance(cause, json.JSONDecodeError):
        return _(
            "The body is not valid JSON: line %(line)d, column %(column)d. Send one JSON object."
        ) % {"line": cause.lineno, "column": cause.colno}
    if isinstance(cause, UnicodeDecodeError):
        return _("The body is not UTF-8 text. Send one JSON object encoded as UTF-8.")
    return _("The body is not valid JSON. Send one JSON object.")


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
        except ParseError as exc:
            # DRF appends the decoder's own English ("Expecting value: line 1 column 1"): say
            # where in the reader's language instead.
            raise ParseError(_invalid_json(exc.__context__)) from None
        json_limits_check(data, max_depth=max_depth, max_keys=settings.API_JSON_MAX_KEYS)
        return data
