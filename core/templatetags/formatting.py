from decimal import Decimal

from django import template

from core.templatetags import labels

register = template.Library()


@register.filter
def money(value: Decimal | float | int | None) -> str:
    """1234567.5 -> "1,234,567.50" in every language: amounts in quotes read the same in zh and en
    (Django's zh-hans format has no thousands separator)."""
    if value is None or value == "":
        return ""
    return f"{Decimal(value):,.2f}"


# Templates that load `formatting` get the names of keys too (`{{ group.tier|tier_label }}`).
for _name, _filter in labels.register.filters.items():
    register.filter(_name, _filter)
