"""Money: an amount with its currency, and the one rounding rule for amounts.

The value lives on the lowest floor (the engine) because every layer above prices something:
the engine totals a BOM, the catalog reads price lists, designs show a cost per GPU, quotes
charge, exports print. Like django-oscar's prices, it refuses to add, subtract or compare two
currencies: a design priced in USD beside a quote in CNY is a bug to raise, not a sum to show.

Amounts are rounded once, half up to the cent (`round_cents`), wherever a figure is divided or
converted: 12,660.625 per GPU is 12,660.63, never the banker's 12,660.62.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


class CurrencyMismatch(ValueError):
    """Two amounts in different currencies met in one sum or comparison."""

    def __init__(self, left: str, right: str) -> None:
        super().__init__(f"cannot combine {left or 'no currency'} with {right or 'no currency'}")
        self.left, self.right = left, right


def round_cents(amount: Decimal) -> Decimal:
    """Round to the cent, half up: the one rounding rule for money."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def per_unit(amount: Decimal | None, units: int) -> Decimal | None:
    """`amount` shared over `units` (a cost per GPU), rounded to the cent; None when either is
    missing: no price, or nothing to share it over."""
    if amount is None or units <= 0:
        return None
    return round_cents(Decimal(amount) / units)


@dataclass(frozen=True, slots=True)
class Money:
    """An amount in one currency (an ISO 4217 code, or "" for amounts whose currency the
    caller states elsewhere, such as an engine result priced on one price list)."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            # Floats carry binary noise into money; ints and text are converted exactly.
            if isinstance(self.amount, float):
                raise TypeError("Money takes a Decimal, int or text amount, not a float")
            object.__setattr__(self, "amount", Decimal(str(self.amount)))

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(Decimal(0), currency)

    @classmethod
    def total(cls, items: Iterable[Money], currency: str) -> Money:
        """The sum of `items`, all in `currency` (0 in it when there are none)."""
        result = cls.zero(currency)
        for item in items:
            result = result + item
        return result

    def _same(self, other: Money) -> None:
        if not isinstance(other, Money):
            raise TypeError(f"Money cannot be combined with {type(other).__name__}")
        if other.currency != self.currency:
            raise CurrencyMismatch(self.currency, other.currency)

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __mul__(self, factor: int | Decimal) -> Money:
        if isinstance(factor, bool) or not isinstance(factor, int | Decimal):
            raise TypeError("Money is multiplied by an int or a Decimal")
        return Money(self.amount * factor, self.currency)

    __rmul__ = __mul__

    def __lt__(self, other: Money) -> bool:
        self._same(other)
        return self.amount < other.amount

    def __le__(self, other: Money) -> bool:
        self._same(other)
        return self.amount <= other.amount

    def __gt__(self, other: Money) -> bool:
        self._same(other)
        return self.amount > other.amount

    def __ge__(self, other: Money) -> bool:
        self._same(other)
        return self.amount >= other.amount

    def __bool__(self) -> bool:
        return bool(self.amount)

    def rounded(self) -> Money:
        return Money(round_cents(self.amount), self.currency)

    def per(self, units: int) -> Money | None:
        """This amount shared over `units`, rounded to the cent; None for no units."""
        shared = per_unit(self.amount, units)
        return None if shared is None else Money(shared, self.currency)

    def converted(self, rate: Decimal, currency: str) -> Money:
        """This amount in `currency` at `rate` (target units per one unit of this currency),
        rounded to the cent."""
        if rate <= 0:
            raise ValueError("The exchange rate must be positive.")
        return Money(round_cents(self.amount * rate), currency)

    def __str__(self) -> str:
        figure = f"{round_cents(self.amount):,.2f}"
        return f"{figure} {self.currency}" if self.currency else figure
