"""Customer pages for sales engineers: list and search, create, edit, and contacts. Reads go
through customers.selectors (another team's customer is a 404), writes through
customers.services; a refusal (DomainError) shows on the form, in the business's words."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from core.view_errors import refused_on_form
from customers import selectors, services
from customers.forms import ContactForm, CustomerForm, CustomerSearchForm
from customers.models import Contact, Customer

PAGE_SIZE = 25


def _user(request: HttpRequest) -> User:
    """The signed-in user (every page here requires one), typed for the services."""
    if not isinstance(request.user, User):
        raise PermissionDenied
    return request.user


def _customer(request: HttpRequest, pk: int) -> Customer:
    try:
        return selectors.customer_for(user=request.user, customer_id=pk)
    except selectors.CustomerNotFound as exc:
        raise Http404(exc.message) from exc


def _contact(request: HttpRequest, pk: int) -> Contact:
    try:
        return selectors.contact_for(user=request.user, contact_id=pk)
    except selectors.ContactNotFound as exc:
        raise Http404(exc.message) from exc


def _next_url(request: HttpRequest) -> str | None:
    """Where to return after creating a customer (the wizard or the quote form that linked
    here), if it is a page of this site."""
    url = request.POST.get("next") or request.GET.get("next") or ""
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return None


@require_GET
@login_required
@permission_required("customers.view_customer", raise_exception=True)
def customer_list(request: HttpRequest) -> HttpResponse:
    form = CustomerSearchForm(request.GET or None)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    customers = selectors.customer_search(user=request.user, query=query)
    page = Paginator(customers, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "customers/customer_list.html",
        {
            "form": form,
            "query": query,
            "page_obj": page,
            "customers": page.object_list,
        },
    )


@login_required
@permission_required("customers.add_customer", raise_exception=True)
def customer_create(request: HttpRequest) -> HttpResponse:
    form = CustomerForm(request.POST or None)
    next_url = _next_url(request)
    if request.method == "POST" and form.is_valid():
        with refused_on_form(form):
            customer = services.customer_create(user=_user(request), **form.cleaned_data)
            messages.success(request, _("Customer %(name)s created.") % {"name": customer})
            if next_url:
                separator = "&" if "?" in next_url else "?"
                return redirect(f"{next_url}{separator}customer={customer.pk}")
            return redirect("customers:customer-detail", pk=customer.pk)
    return render(
        request,
        "customers/customer_form.html",
        {"form": form, "customer": None, "next": next_url or ""},
    )


@login_required
@permission_required("customers.change_customer", raise_exception=True)
def customer_edit(request: HttpRequest, pk: int) -> HttpResponse:
    customer = _customer(request, pk)
    initial = {
        "name_en": customer.name_en,
        "name_zh": customer.name_zh,
        "preferred_language": customer.preferred_language,
        "address": customer.address,
        "tax_id": customer.tax_id,
        "billing_contact": customer.billing_contact_id,
    }
    form = CustomerForm(request.POST or None, initial=initial, contacts=customer.contacts.all())
    if request.method == "POST" and form.is_valid():
        with refused_on_form(form):
            data = dict(form.cleaned_data)
            customer = services.customer_update(
                user=_user(request),
                customer_id=customer.pk,
                billing_contact_id=data.pop("billing_contact", None),
                **data,
            )
            messages.success(request, _("Customer %(name)s saved.") % {"name": customer})
            return redirect("customers:customer-detail", pk=customer.pk)
    return render(
        request, "customers/customer_form.html", {"form": form, "customer": customer, "next": ""}
    )


@require_GET
@login_required
@permission_required("customers.view_customer", raise_exception=True)
def customer_detail(request: HttpRequest, pk: int) -> HttpResponse:
    customer = _customer(request, pk)
    return render(
        request,
        "customers/customer_detail.html",
        {
            "customer": customer,
            "contacts": customer.contacts.all(),
            "contact_form": ContactForm(),
        },
    )


@login_required
@permission_required("customers.add_contact", raise_exception=True)
def contact_create(request: HttpRequest, pk: int) -> HttpResponse:
    customer = _customer(request, pk)
    form = ContactForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with refused_on_form(form):
            contact = services.contact_create(
                user=_user(request), customer_id=customer.pk, **form.cleaned_data
            )
            messages.success(request, _("Contact %(name)s added.") % {"name": contact.name})
            return redirect("customers:customer-detail", pk=customer.pk)
    return render(
        request,
        "customers/contact_form.html",
        {"form": form, "customer": customer, "contact": None},
    )


@login_required
@permission_required("customers.change_contact", raise_exception=True)
def contact_edit(request: HttpRequest, pk: int) -> HttpResponse:
    contact = _contact(request, pk)
    initial = {
        "name": contact.name,
        "title": contact.title,
        "email": contact.email,
        "phone": contact.phone,
        "is_primary": contact.is_primary,
    }
    form = ContactForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        with refused_on_form(form):
            contact = services.contact_update(
                user=_user(request), contact_id=contact.pk, **form.cleaned_data
            )
            messages.success(request, _("Contact %(name)s saved.") % {"name": contact.name})
            return redirect("customers:customer-detail", pk=contact.customer_id)
    return render(
        request,
        "customers/contact_form.html",
        {"form": form, "customer": contact.customer, "contact": contact},
    )
