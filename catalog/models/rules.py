"""Media rules: which medium carries which speed how far, and the stock lengths sold."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.models.products import (
    MediaChoices,
    validate_positive,
)


def parse_lengths(text: str) -> tuple[Decimal, ...]:
    """'0.5, 1, 2' -> (Decimal('0.5'), Decimal('1'), Decimal('2')); raises ValueError."""
    values: list[Decimal] = []
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            value = Decimal(part)
        except ArithmeticError as exc:
            raise ValueError(part) from exc
        if not value.is_finite() or value <= 0:
            raise ValueError(part)
        values.append(value)
    return tuple(values)


def format_lengths(values: tuple[Decimal | float, ...] | list[Decimal | float]) -> str:
    return ", ".join(format(Decimal(str(v)).normalize(), "f") for v in values)


class MediaRule(models.Model):
    """The longest link a media may carry at a speed, and the lengths sold for it."""

    speed_gbps = models.PositiveIntegerField(_("speed (Gb/s)"), validators=[MinValueValidator(1)])
    media = models.CharField(_("media"), max_length=4, choices=MediaChoices.choices)
    max_reach_m = models.DecimalField(
        _("max reach (m)"), max_digits=8, decimal_places=2, validators=[validate_positive]
    )
    stock_lengths_m = models.CharField(
        _("stock lengths (m)"),
        max_length=200,
        blank=True,
        help_text=_("Comma-separated, e.g. 0.5, 1, 2, 3"),
    )
    source = models.CharField(_("source"), max_length=300, blank=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("media rule")
        verbose_name_plural = _("media rules")
        ordering = ["speed_gbps", "media"]
        constraints = [
            models.UniqueConstraint(
                fields=["speed_gbps", "media"], name="catalog_media_rule_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(max_reach_m__gt=0), name="catalog_media_rule_reach_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.speed_gbps}G {self.media} ≤ {self.max_reach_m} m"

    @property
    def stock_lengths(self) -> tuple[Decimal, ...]:
        try:
            return parse_lengths(self.stock_lengths_m)
        except ValueError:
            return ()

    def clean(self) -> None:
        try:
            lengths = parse_lengths(self.stock_lengths_m or "")
        except ValueError as exc:
            raise ValidationError(
                {
                    "stock_lengths_m": _("'%(value)s' is not a positive length in metres.")
                    % {"value": exc}
                }
            ) from exc
        if self.max_reach_m is not None and any(length > self.max_reach_m for length in lengths):
            raise ValidationError(
                {
                    "stock_lengths_m": _("A stock length exceeds the max reach of %(reach)s m.")
                    % {"reach": self.max_reach_m}
                }
            )
