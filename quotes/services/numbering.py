"""Quote numbers: gapless per year (`Q-2026-00042`)."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from quotes.models import QuoteNumberCounter


def _next_number(year: int) -> int:
    """The next number in `year`, taken under a row lock held until the caller's transaction
    ends: concurrent creators queue on the lock, and a rolled-back creation gives its number
    back (no gaps)."""
    counter = QuoteNumberCounter.objects.select_for_update().filter(year=year).first()
    if counter is None:
        try:
            with transaction.atomic():
                QuoteNumberCounter.objects.create(year=year, last_number=0)
        except IntegrityError:
            pass  # another transaction created the year's row first; wait for its lock
        counter = QuoteNumberCounter.objects.select_for_update().get(year=year)
    counter.last_number += 1
    counter.save(update_fields=["last_number"])
    return counter.last_number


def quote_number(year: int, sequence: int) -> str:
    return f"Q-{year}-{sequence:05d}"
