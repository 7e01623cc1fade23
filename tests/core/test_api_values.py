"""core.api.values renders what DRF's fields render, for any value: the lists' fast paths rely on
it (the list tests compare a few rows; these compare thousands of random values)."""

import datetime
import decimal
import zoneinfo

from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from core.api.values import DateTimeText, date_text, decimal_text

ZONES = ["UTC", "Asia/Shanghai", "America/St_Johns", "Asia/Kathmandu", "Pacific/Chatham"]


@settings(max_examples=400)
@given(
    value=st.decimals(allow_nan=False, allow_infinity=False, places=4, min_value=-(10**9),
                      max_value=10**9),
    places=st.integers(min_value=0, max_value=4),
)  # fmt: skip
def test_decimals_as_drf_renders_them(value: decimal.Decimal, places: int) -> None:
    # 16 digits as the money fields; a value past them is not a stored value, so not drawn
    field = serializers.DecimalField(max_digits=16, decimal_places=places)
    assert decimal_text(value, places=places, max_digits=16) == field.to_representation(value)


def test_half_even_as_drf() -> None:
    # 2.345 to two places: half-even gives 2.34 (the default context's rounding), as DRF's field
    value = decimal.Decimal("2.345")
    assert decimal_text(value, places=2, max_digits=16) == "2.34"
    field = serializers.DecimalField(max_digits=16, decimal_places=2)
    assert field.to_representation(value) == "2.34"
    assert decimal_text(None, places=2, max_digits=16) is None


@settings(max_examples=400)
@given(
    moment=st.datetimes(
        min_value=datetime.datetime(1971, 1, 1), max_value=datetime.datetime(2200, 1, 1),
        timezones=st.just(datetime.UTC),
    ),
    zone=st.sampled_from(ZONES),
)  # fmt: skip
def test_datetimes_as_drf_renders_them(moment: datetime.datetime, zone: str) -> None:
    with timezone.override(zoneinfo.ZoneInfo(zone)):
        assert DateTimeText()(moment) == serializers.DateTimeField().to_representation(moment)


def test_utc_is_written_z_and_none_stays_none() -> None:
    moment = datetime.datetime(2026, 11, 24, 8, 30, tzinfo=datetime.UTC)
    with timezone.override("UTC"):
        assert DateTimeText()(moment) == "2026-11-24T08:30:00Z"
        assert DateTimeText()(None) is None
    with timezone.override("Asia/Shanghai"):  # UTC+8, no daylight saving
        assert DateTimeText()(moment) == "2026-11-24T16:30:00+08:00"


@given(day=st.dates())
def test_dates_as_drf_renders_them(day: datetime.date) -> None:
    assert date_text(day) == serializers.DateField().to_representation(day)
    assert date_text(None) is None
