"""Forms for the quote pages. They only parse input; the services decide."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.models import Currency, PriceList
from planner.selectors import designs_visible_to
from quotes.models import LineKind
from quotes.selectors import customers_visible_to


class QuoteCreateForm(forms.Form):
    design = forms.ModelChoiceField(queryset=None, label=_("Design"))  # type: ignore[arg-type]
    customer = forms.ModelChoiceField(queryset=None, label=_("Customer"))  # type: ignore[arg-type]
    title = forms.CharField(label=_("Title"), max_length=200, required=False)
    price_list = forms.ModelChoiceField(
        queryset=PriceList.objects.all(), label=_("Price list"), required=False,
        empty_label=_("Default price list"),
    )  # fmt: skip
    currency = forms.ChoiceField(
        choices=[("", _("Price list's currency")), *Currency.choices],
        label=_("Quote currency"),
        required=False,
    )
    exchange_rate = forms.DecimalField(
        label=_("Exchange rate"),
        required=False,
        min_value=Decimal("0.000001"),
        max_digits=14,
        decimal_places=6,
        help_text=_("Units of the quote currency per unit of the price list's currency."),
    )
    support_years = forms.IntegerField(
        label=_("Support years"), min_value=0, max_value=10, initial=1
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["design"].queryset = designs_visible_to(user).filter(result__isnull=False)
        self.fields["customer"].queryset = customers_visible_to(user)


class DiscountForm(forms.Form):
    discount_percent = forms.DecimalField(
        label=_("Discount on all products (%)"),
        min_value=Decimal("0"),
        max_value=Decimal("100"),
        decimal_places=2,
    )


class LineForm(forms.Form):
    quantity = forms.IntegerField(label=_("Quantity"), min_value=0, required=False)
    discount_percent = forms.DecimalField(
        label=_("Discount %"),
        min_value=Decimal("0"),
        max_value=Decimal("100"),
        decimal_places=2,
        required=False,
    )
    override_unit_price = forms.DecimalField(
        label=_("Price override"), min_value=Decimal("0"), decimal_places=2, required=False
    )
    is_optional = forms.BooleanField(label=_("Optional"), required=False)
    # Replaces the line's product (offered on lines to be priced, which have none).
    sku = forms.CharField(label=_("Catalog SKU"), max_length=64, required=False)


class LineAddForm(forms.Form):
    kind = forms.ChoiceField(choices=LineKind.choices, label=_("Kind"), initial=LineKind.PRODUCT)
    sku = forms.CharField(label=_("SKU"), max_length=64, required=False)
    description = forms.CharField(label=_("Description / note"), required=False)
    quantity = forms.IntegerField(label=_("Quantity"), min_value=1, initial=1, required=False)
    is_optional = forms.BooleanField(label=_("Optional"), required=False)


class TermsForm(forms.Form):
    terms = forms.CharField(label=_("Terms"), widget=forms.Textarea(attrs={"rows": 3}))
    validity_days = forms.IntegerField(label=_("Valid for (days)"), min_value=1, max_value=365)
    tax_rate = forms.DecimalField(
        label=_("Tax rate"),
        min_value=Decimal("0"),
        max_value=Decimal("0.99"),
        decimal_places=4,
        help_text=_("A fraction: 0.13 is 13% VAT."),
    )


class RejectForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=500)


class AcceptForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=200)
    email = forms.EmailField(label=_("Your email"))
    optional_lines = forms.TypedMultipleChoiceField(
        label=_("Add optional items"),
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    agree = forms.BooleanField(label=_("I accept this proposal and its terms."))

    def __init__(self, *args: Any, optional_lines: Any = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["optional_lines"].choices = [
            (line.pk, " · ".join(part for part in (line.sku, line.description) if part))
            for line in optional_lines
        ]


class DeclineForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=200)
    email = forms.EmailField(label=_("Your email"))
    reason = forms.CharField(label=_("Why?"), widget=forms.Textarea(attrs={"rows": 3}))
