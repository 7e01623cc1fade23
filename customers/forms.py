"""Forms for the customer pages. They only parse input; customers.services decides."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from customers.models import Contact
from customers.services import customer_field_errors


class CustomerSearchForm(forms.Form):
    q = forms.CharField(
        label=_("Name or CRM id"),
        required=False,
        max_length=200,
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    )


class CustomerForm(forms.Form):
    """Either name may be the only one; the checks are the services' own
    (`customers.services.customer_field_errors`), so the form says what the API says."""

    name_zh = forms.CharField(label=_("Name (Chinese)"), max_length=200, required=False)
    name_en = forms.CharField(label=_("Name (English)"), max_length=200, required=False)
    preferred_language = forms.ChoiceField(
        label=_("Preferred language"),
        choices=settings.LANGUAGES,
        initial="zh-hans",
        help_text=_("Documents and e-mails for this customer are written in it."),
    )
    address = forms.CharField(
        label=_("Address"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    tax_id = forms.CharField(
        label=_("Unified social credit code"),
        max_length=40,
        required=False,
        help_text=_("18 characters, as on the business licence."),
    )

    def __init__(self, *args: Any, contacts: Iterable[Contact] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        if contacts is not None:
            # Editing: the billing contact is one of the customer's contacts.
            self.fields["billing_contact"] = forms.TypedChoiceField(
                label=_("Billing contact"),
                choices=[("", _("None")), *((c.pk, _contact_label(c)) for c in contacts)],
                coerce=int,
                empty_value=None,
                required=False,
                help_text=_("Invoices and payment reminders go to this contact."),
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        errors = customer_field_errors(
            name_en=data.get("name_en") or "",
            name_zh=data.get("name_zh") or "",
            tax_id=data.get("tax_id") or "",
        )
        for name, message in errors.items():
            if name in self.fields and name not in self.errors:
                self.add_error(name, message)
        return data


def _contact_label(contact: Contact) -> str:
    return " · ".join(part for part in (contact.name, contact.email, contact.phone) if part)


class ContactForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    title = forms.CharField(label=_("Role or job title"), max_length=120, required=False)
    email = forms.EmailField(label=_("Email"), required=False)
    phone = forms.CharField(label=_("Phone"), max_length=40, required=False)
    is_primary = forms.BooleanField(label=_("Primary contact"), required=False)
