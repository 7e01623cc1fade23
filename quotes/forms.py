"""Forms for the quote pages. They only parse input; the services decide."""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django import forms
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from catalog.models import Currency, PriceList
from core import vocabulary
from customers.selectors import CustomerNotFound, customer_for, customers_visible_to
from planner.models import Design
from planner.selectors import designs_visible_to
from quotes.models import LineKind, QuoteLine
from quotes.services.lines_grid import (
    CATEGORY,
    CATEGORY_DISCOUNT,
    DISCOUNT,
    QUANTITY,
    UNIT_PRICE,
    LineCells,
    category_label,
    cell_name,
)
from quotes.services.terms import ACCEPTANCE, MILESTONES


class DistinctChoiceField(forms.ModelChoiceField[Model]):
    """A choice whose name others share is shown with its id and date (or CRM id), so two drafts
    both called "Phase 1" can be told apart in the list."""

    def __init__(self, *args: Any, name_of: Any, detail_of: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.name_of, self.detail_of = name_of, detail_of
        self._shared: set[str] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        copy = super().__deepcopy__(memo)
        copy._shared = None  # each form counts its own queryset's names
        return copy

    def label_from_instance(self, obj: Model) -> str:
        if self._shared is None:
            choices = self.queryset if self.queryset is not None else []
            names = Counter(self.name_of(choice) for choice in choices)
            self._shared = {name for name, count in names.items() if count > 1}
        name = self.name_of(obj)
        if name and name not in self._shared:
            return str(name)
        return " · ".join(part for part in (name, self.detail_of(obj)) if part)


def _design_label(design: Any) -> str:
    """A saved design as the quote form lists it: name, id (two designs may share a name, size
    and day), GPU count, fabric and date."""
    result = design.result or {}
    gpus = design.gpus if design.gpus is not None else result.get("gpus")
    parts = [
        design.name,
        f"#{design.pk}",
        _("%(gpus)s GPUs") % {"gpus": f"{int(gpus or 0):,}"},
        vocabulary.fabric_label(str(result.get("fabric") or "")),
        f"{timezone.localdate(design.updated_at or design.created_at):%Y-%m-%d}",
    ]
    return " · ".join(str(part) for part in parts if part)


class DesignChoiceField(forms.ModelChoiceField[Design]):
    def label_from_instance(self, obj: Design) -> str:
        return _design_label(obj)


def _customer_detail(customer: Any) -> str:
    crm = f"{customer.external_source} {customer.external_id}".strip()
    return crm if customer.external_id else f"#{customer.pk}"


def price_list_label(price_list: Any) -> str:
    """A price list's name with its currency, said once: "EZMAX list prices 2026 (CNY, sample)"
    already names it, so it gets no second "(CNY)"."""
    name, currency = str(price_list.name), str(price_list.currency)
    return name if currency in name else f"{name} ({currency})"


class PriceListChoiceField(forms.ModelChoiceField[PriceList]):
    def label_from_instance(self, obj: PriceList) -> str:
        return price_list_label(obj)


class QuoteCreateForm(forms.Form):
    design = DesignChoiceField(
        queryset=None,
        label=_("Design"),
        help_text=_("Saved designs only: save a draft on its page to quote it."),
    )
    customer = DistinctChoiceField(
        queryset=None,
        label=_("Customer"),
        name_of=str,
        detail_of=_customer_detail,
        help_text=_("Your team's customers; the design's customer is chosen if it has one."),
    )
    title = forms.CharField(label=_("Title"), max_length=200, required=False)
    price_list = PriceListChoiceField(
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
    contact_phone = forms.CharField(
        label=_("Your phone for the customer"),
        max_length=40,
        required=False,
        help_text=_("Printed with your name and email on the proposal and the share page."),
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Saved designs only: a draft's result can still change under the quote.
        designs = designs_visible_to(user).filter(
            result__isnull=False, is_draft=False, archived_at__isnull=True
        )
        design_field, customer_field = self.fields["design"], self.fields["customer"]
        assert isinstance(design_field, forms.ModelChoiceField)
        assert isinstance(customer_field, forms.ModelChoiceField)
        design_field.queryset = designs
        customer_field.queryset = customers_visible_to(user)
        design_id = str(self.initial.get("design") or "")
        if not self.is_bound and design_id.isdigit() and not self.initial.get("customer"):
            design = designs.filter(pk=int(design_id)).first()
            if design is not None and design.customer_id:
                # Another team's customer on a shared design is simply not preselected.
                with contextlib.suppress(CustomerNotFound):
                    customer = customer_for(user=user, customer_id=design.customer_id)
                    self.initial["customer"] = customer.pk


class VersionedForm(forms.Form):
    """A form that changes a line or a revision, carrying the version it was shown at: saved
    over someone else's newer change, it is refused (quotes.services, `expected_version`)
    instead of silently undoing that change. Rendered by hand as a hidden input; a post
    without it (a page from before versions) is taken as before."""

    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1, required=False)


class LineDeleteForm(VersionedForm):
    pass


class DiscountForm(VersionedForm):
    discount_percent = forms.DecimalField(
        label=_("Discount on all products (%)"),
        min_value=Decimal("0"),
        max_value=Decimal("100"),
        decimal_places=2,
    )


class LineForm(VersionedForm):
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
    # The cost of a line priced by hand (offered to those who see margins, on lines without a
    # catalog product): the margin is unknown without it.
    override_unit_cost = forms.DecimalField(
        label=_("Unit cost"),
        min_value=Decimal("0"),
        max_digits=14,
        decimal_places=2,
        required=False,
    )


class LineAddForm(VersionedForm):
    # Freight has its own form (one line, priced by amount).
    kind = forms.ChoiceField(
        choices=[c for c in LineKind.choices if c[0] != LineKind.FREIGHT],
        label=_("Kind"),
        initial=LineKind.PRODUCT,
    )
    sku = forms.CharField(label=_("SKU"), max_length=64, required=False)
    description = forms.CharField(label=_("Description / note"), required=False)
    quantity = forms.IntegerField(label=_("Quantity"), min_value=1, initial=1, required=False)
    is_optional = forms.BooleanField(label=_("Optional"), required=False)


def _tax_percent_field(label: Any) -> forms.DecimalField:
    return forms.DecimalField(
        label=label,
        min_value=Decimal("0"),
        max_value=Decimal("99.99"),
        max_digits=5,
        decimal_places=2,
        help_text=_("In percent: 13 means 13%."),
    )


class TermsForm(VersionedForm):
    """VAT per line kind in percent, payment milestones per plan phase, terms and validity."""

    terms = forms.CharField(
        label=_("Terms"), widget=forms.Textarea(attrs={"rows": 3}), required=False
    )
    regenerate_terms = forms.BooleanField(
        label=_("Write the terms again from the lines and milestones"), required=False
    )
    validity_days = forms.IntegerField(label=_("Valid for (days)"), min_value=1, max_value=365)
    goods_tax_percent = _tax_percent_field(_("VAT on goods (%)"))
    services_tax_percent = _tax_percent_field(_("VAT on services (%)"))
    freight_tax_percent = _tax_percent_field(_("VAT on freight (%)"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for phase in MILESTONES:
            self.fields[f"milestone_{phase}"] = forms.DecimalField(
                label=_("Paid on final acceptance (%%)") % {}
                if phase == ACCEPTANCE
                else _("Paid on completing %(phase)s (%%)")
                % {"phase": vocabulary.phase_label(phase)},
                min_value=Decimal("0"),
                max_value=Decimal("100"),
                max_digits=5,
                decimal_places=2,
                required=False,
            )

    @staticmethod
    def initial_for(revision: Any) -> dict[str, Any]:
        initial: dict[str, Any] = {
            "terms": revision.localized_terms,  # the reader's language until edited
            "validity_days": revision.validity_days,
            "goods_tax_percent": revision.tax_percent,
            "services_tax_percent": revision.services_tax_percent,
            "freight_tax_percent": revision.freight_tax_percent,
        }
        for milestone in revision.payment_milestones or []:
            initial[f"milestone_{milestone['phase']}"] = milestone["percent"]
        return initial

    def milestones(self) -> list[dict[str, str]]:
        return [
            {"phase": phase, "percent": str(self.cleaned_data[f"milestone_{phase}"])}
            for phase in MILESTONES
            if self.cleaned_data.get(f"milestone_{phase}")
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            total = sum((m_percent for m_percent in self._percents()), Decimal("0"))
            if total != Decimal("100"):
                self.add_error(
                    None,
                    _("The payment milestones sum to %(total)s%%; they must sum to 100%%.")
                    % {"total": format(total.normalize(), "f")},
                )
        return data

    def _percents(self) -> list[Decimal]:
        return [
            Decimal(self.cleaned_data[f"milestone_{phase}"])
            for phase in MILESTONES
            if self.cleaned_data.get(f"milestone_{phase}")
        ]


class FreightForm(VersionedForm):
    freight = forms.DecimalField(
        label=_("Freight"),
        min_value=Decimal("0"),
        max_digits=14,
        decimal_places=2,
        required=False,
        help_text=_("In the quote's currency, before VAT; empty removes the freight line."),
    )


class RejectForm(forms.Form):
    reason = forms.CharField(label=_("Why send it back"), max_length=500)


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
        lines_field = self.fields["optional_lines"]
        assert isinstance(lines_field, forms.ChoiceField)
        lines_field.choices = [
            (line.pk, " · ".join(part for part in (line.sku, line.localized_description) if part))
            for line in optional_lines
        ]


class DeclineForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=200)
    email = forms.EmailField(label=_("Your email"))
    reason = forms.CharField(label=_("Why?"), widget=forms.Textarea(attrs={"rows": 3}))


GRID_FORM_ID = "lines-grid"
OPTIONAL = "is_optional"
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)$")


class PlainDecimalField(forms.DecimalField):
    """A number as people type it: digits and one decimal point. "1e3" is refused in words
    rather than read as 1000 (issue 27 item 5)."""

    # Typed as the stubs type DecimalField's (an IntegerField's there): a Decimal or None.
    def to_python(self, value: Any) -> Any:
        text = str(value).strip() if value is not None else ""
        if text and not _PLAIN_NUMBER.match(text):
            raise forms.ValidationError(
                _("Enter a plain number such as 1200.50 (no exponent such as 1e3)."),
                code="invalid",
            )
        return super().to_python(text)


def _at_least_one(value: int) -> None:
    if value < 1:
        raise forms.ValidationError(_("The quantity is at least 1; delete the line instead."))


def _not_negative(value: Decimal) -> None:
    if value < 0:
        raise forms.ValidationError(_("A price cannot be negative."))


def _a_discount(value: Decimal) -> None:
    if not Decimal("0") <= value <= Decimal("100"):
        raise forms.ValidationError(_("A discount is between 0 and 100%."))


class LinesGridForm(forms.Form):
    """The quote page's grid of lines: a quantity, unit price, discount and optional flag per
    line (inputs named `line-<id>-<cell>`), and a discount for one catalog category. The ranges
    are the service's (`revision_lines_update`), as for one line; checked here too, in the same
    words, so that a cell that is no number and one out of range are marked in one answer. A
    unit price left empty means the price list's price; a discount left empty, none."""

    form_id = GRID_FORM_ID
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    category = forms.ChoiceField(label=_("Category"), required=False)
    category_discount = PlainDecimalField(
        label=_("Discount for the category (%)"),
        required=False,
        max_digits=5,
        decimal_places=2,
        validators=[_a_discount],
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )

    def __init__(
        self, *args: Any, lines: Sequence[QuoteLine], categories: Sequence[str], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lines = list(lines)
        category_field = self.fields[CATEGORY]
        assert isinstance(category_field, forms.ChoiceField)
        category_field.choices = [("", _("Choose a category")), *(
            (value, category_label(value)) for value in categories
        )]  # fmt: skip
        for line in self.lines:
            self._add_cells(line)
        for field in self.fields.values():
            # The cells sit in the table, outside the form element: tied to it by id.
            field.widget.attrs["form"] = GRID_FORM_ID

    def _add_cells(self, line: QuoteLine) -> None:
        def cell(column: str, inputmode: str, css: str, **attrs: Any) -> forms.TextInput:
            return forms.TextInput(
                attrs={
                    "inputmode": inputmode,
                    "autocomplete": "off",
                    "class": css,
                    "data-col": column,
                    **attrs,
                }
            )

        self.fields[cell_name(line.pk, QUANTITY)] = forms.IntegerField(
            label=_("Quantity"),
            initial=line.quantity,
            validators=[_at_least_one],
            widget=cell(QUANTITY, "numeric", "narrow", **{"aria-label": _("Quantity")}),
        )
        # An empty unit price is the price list's: shown as its placeholder, the current one.
        shown = f"{line.unit_price:.2f}" if not line.to_be_priced else _("Unit price")
        self.fields[cell_name(line.pk, UNIT_PRICE)] = PlainDecimalField(
            label=_("Unit price"),
            required=False,
            max_digits=16,
            decimal_places=2,
            initial=line.override_unit_price,
            validators=[_not_negative],
            widget=cell(
                UNIT_PRICE, "decimal", "price", placeholder=shown, **{"aria-label": _("Unit price")}
            ),
        )
        self.fields[cell_name(line.pk, DISCOUNT)] = PlainDecimalField(
            label=_("Discount %"),
            required=False,
            max_digits=5,
            decimal_places=2,
            initial=line.discount_percent,
            validators=[_a_discount],
            widget=cell(DISCOUNT, "decimal", "narrow", **{"aria-label": _("Discount %")}),
        )
        self.fields[cell_name(line.pk, OPTIONAL)] = forms.BooleanField(
            label=_("optional"), required=False, initial=line.is_optional
        )

    def cells(self) -> list[LineCells]:
        data = self.cleaned_data
        return [
            LineCells(
                line_id=line.pk,
                quantity=data[cell_name(line.pk, QUANTITY)],
                unit_price=data[cell_name(line.pk, UNIT_PRICE)],
                discount_percent=data[cell_name(line.pk, DISCOUNT)] or Decimal("0"),
                is_optional=data[cell_name(line.pk, OPTIONAL)],
            )
            for line in self.lines
        ]

    def category_change(self) -> dict[str, Any]:
        """The category discount, when a category is chosen (its percent checked by the
        service, which says when it is missing)."""
        category = self.cleaned_data.get(CATEGORY) or ""
        if not category:
            return {}
        return {"category": category, "category_discount": self.cleaned_data[CATEGORY_DISCOUNT]}
