from decimal import Decimal, InvalidOperation

from django import template
from django.utils.translation import gettext as _

from core.templatetags import labels
from engine.money import Money, round_cents

register = template.Library()


@register.filter
def money(value: Money | Decimal | float | int | None) -> str:
    """1234567.5 -> "1,234,567.50" in every language: amounts in quotes read the same in zh and en
    (Django's zh-hans format has no thousands separator). A `Money` shows its amount; the
    template states its currency once, beside the column or the total."""
    if value is None or value == "":
        return ""
    if isinstance(value, Money):
        return f"{round_cents(value.amount):,.2f}"
    try:
        amount = Decimal(value)
    except InvalidOperation:  # a figure nobody knows yet, stored as "unknown" (quotes.pricing)
        return _("unknown")
    return f"{amount:,.2f}"


# Templates that load `formatting` get the names of keys too (`{{ group.tier|tier_label }}`).
for _name, _filter in labels.register.filters.items():
    register.filter(_name, _filter)
