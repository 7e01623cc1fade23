"""Values rendered as DRF's fields render them, for the lists' fast paths (planner.api.serializers
`design_summaries`, quotes.api.summaries) that build their answers from `values()` rows.

DRF's `DecimalField.to_representation` copies a decimal context and looks the rounding and the
coercion settings up for every value, and `DateTimeField.to_representation` asks for the current
time zone for every value: on a page of 25 quotes that was more than a millisecond of a request
of six (bench.load). These functions take what does not change within a page once. The lists'
tests hold their answers equal to the serializers'."""

from __future__ import annotations

import datetime
import decimal
from typing import Final

from django.utils import timezone

_QUANTUM: Final = {places: decimal.Decimal(1).scaleb(-places) for places in range(7)}
# DRF's context: the process's default rounding (half-even), precision max_digits.
_CONTEXT: Final = {
    digits: decimal.Context(prec=digits, rounding=decimal.ROUND_HALF_EVEN)
    for digits in range(1, 29)
}


def decimal_text(value: decimal.Decimal | None, *, places: int, max_digits: int) -> str | None:
    """`DecimalField(max_digits, decimal_places=places)` with COERCE_DECIMAL_TO_STRING (the
    default): the value rounded half-even to `places`, as fixed-point text."""
    if value is None:
        return None
    return f"{value.quantize(_QUANTUM[places], context=_CONTEXT[max_digits]):f}"


class DateTimeText:
    """`DateTimeField()` with ISO 8601 output: the value in the zone current when the page is
    built (the request's), `Z` for UTC as DRF writes it."""

    def __init__(self) -> None:
        self.zone = timezone.get_current_timezone()

    def __call__(self, value: datetime.datetime | None) -> str | None:
        if value is None:
            return None
        text = value.astimezone(self.zone).isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text


def date_text(value: datetime.date | None) -> str | None:
    """`DateField()` with ISO 8601 output."""
    return None if value is None else value.isoformat()
