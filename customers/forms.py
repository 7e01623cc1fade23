"""Forms for the customer pages. They only parse input; customers.services decides."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class CustomerSearchForm(forms.Form):
    q = forms.CharField(
        label=_("Name or CRM id"),
        required=False,
        max_length=200,
        widget=forms.TextInput(attrs={"type": "search", "autocomplete": "off"}),
    )


class CustomerForm(forms.Form):
    name_en = forms.CharField(label=_("Name (English)"), max_length=200)
    name_zh = forms.CharField(label=_("Name (Chinese)"), max_length=200, required=False)
    preferred_language = forms.ChoiceField(
        label=_("Preferred language"),
        choices=settings.LANGUAGES,
        initial="zh-hans",
        help_text=_("Documents and e-mails for this customer are written in it."),
    )


class ContactForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    title = forms.CharField(label=_("Role or job title"), max_length=120, required=False)
    email = forms.EmailField(label=_("Email"), required=False)
    phone = forms.CharField(label=_("Phone"), max_length=40, required=False)
    is_primary = forms.BooleanField(label=_("Primary contact"), required=False)
