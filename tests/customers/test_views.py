"""The customer pages a sales engineer uses: list and search, create, edit, contacts. Another
team's customer or contact is a 404 on every page, read or write."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from customers.models import Contact, Customer
from customers.services import contact_create, customer_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def acme(engineer):
    return customer_create(user=engineer, name_en="Acme AI", name_zh="阿克米")


def test_list_shows_the_teams_customers_paginated_and_searchable(
    engineer_client, engineer, other_engineer
):
    customer_create(user=other_engineer, name_en="Zed Outsider Labs")
    for n in range(26):  # one more than a page of 25
        customer_create(user=engineer, name_en=f"Customer {n:02d}")
    url = reverse("customers:customer-list")
    first = engineer_client.get(url)
    assert first.status_code == 200
    assert len(first.context["customers"]) == 25
    assert first.context["page_obj"].paginator.num_pages == 2  # 26 customers, 25 a page
    assert b"Zed Outsider Labs" not in first.content
    second = engineer_client.get(url, {"page": 2})
    assert [c.name_en for c in second.context["customers"]] == ["Customer 25"]
    found = engineer_client.get(url, {"q": "customer 07"})
    assert [c.name_en for c in found.context["customers"]] == ["Customer 07"]
    assert list(engineer_client.get(url, {"q": "Zed"}).context["customers"]) == []


def test_create_then_edit_a_customer(engineer_client, engineer):
    response = engineer_client.post(
        reverse("customers:customer-create"),
        {
            "name_en": "Acme AI",
            "name_zh": "阿克米",
            "preferred_language": "en",
            # Not a form field: the CRM owns the CRM identity, a page cannot set it.
            "external_id": "FORGED",
        },
    )
    customer = Customer.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("customers:customer-detail", args=[customer.pk])
    assert (customer.name_zh, customer.preferred_language, customer.external_id) == (
        "阿克米",
        "en",
        "",
    )
    edit = reverse("customers:customer-edit", args=[customer.pk])
    assert engineer_client.get(edit).context["form"].initial["name_en"] == "Acme AI"
    engineer_client.post(
        edit, {"name_en": "Acme AI Ltd", "name_zh": "", "preferred_language": "zh-hans"}
    )
    customer.refresh_from_db()
    assert (customer.name_en, customer.name_zh, customer.preferred_language) == (
        "Acme AI Ltd",
        "",
        "zh-hans",
    )


def test_a_refused_create_shows_the_form_again_with_the_error(engineer_client):
    response = engineer_client.post(
        reverse("customers:customer-create"), {"name_en": "   ", "preferred_language": "en"}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["name_en"]
    assert Customer.objects.count() == 0


def test_create_returns_to_the_page_that_asked_with_the_new_customer(engineer_client):
    url = reverse("customers:customer-create")
    response = engineer_client.post(
        url, {"name_en": "Acme", "preferred_language": "en", "next": "/quotes/new/?design=3"}
    )
    customer = Customer.objects.get()
    assert response["Location"] == f"/quotes/new/?design=3&customer={customer.pk}"
    # An address elsewhere is not followed (no open redirect).
    response = engineer_client.post(
        url, {"name_en": "Beta", "preferred_language": "en", "next": "https://evil.example/"}
    )
    beta = Customer.objects.get(name_en="Beta")
    assert response["Location"] == reverse("customers:customer-detail", args=[beta.pk])


def test_contacts_are_added_and_edited_on_the_customers_page(engineer_client, acme):
    detail = reverse("customers:customer-detail", args=[acme.pk])
    response = engineer_client.post(
        reverse("customers:contact-create", args=[acme.pk]),
        {
            "name": "Li Wei",
            "title": "CTO",
            "email": "li@acme.example",
            "phone": "+86 21 5555 0100",
            "is_primary": "on",
        },
    )
    assert response["Location"] == detail
    contact = Contact.objects.get()
    assert (contact.customer, contact.title, contact.is_primary) == (acme, "CTO", True)
    page = engineer_client.get(detail)
    assert b"li@acme.example" in page.content
    engineer_client.post(
        reverse("customers:contact-edit", args=[contact.pk]),
        {"name": "Li Wei", "title": "CEO", "email": "li@acme.example", "phone": ""},
    )
    contact.refresh_from_db()
    assert (contact.title, contact.phone, contact.is_primary) == ("CEO", "", False)


def test_another_teams_customer_and_contact_are_404_on_every_page(
    client, engineer, other_engineer, acme
):
    contact = contact_create(user=engineer, customer_id=acme.pk, name="Li Wei")
    client.force_login(other_engineer)
    valid_customer = {"name_en": "Hijacked", "preferred_language": "en"}
    pages = [
        ("get", reverse("customers:customer-detail", args=[acme.pk]), None),
        ("get", reverse("customers:customer-edit", args=[acme.pk]), None),
        ("post", reverse("customers:customer-edit", args=[acme.pk]), valid_customer),
        ("get", reverse("customers:contact-create", args=[acme.pk]), None),
        ("post", reverse("customers:contact-create", args=[acme.pk]), {"name": "Intruder"}),
        ("get", reverse("customers:contact-edit", args=[contact.pk]), None),
        ("post", reverse("customers:contact-edit", args=[contact.pk]), {"name": "Intruder"}),
    ]
    for method, url, data in pages:
        assert getattr(client, method)(url, data).status_code == 404, url
    acme.refresh_from_db()
    contact.refresh_from_db()
    assert (acme.name_en, contact.name, acme.contacts.count()) == ("Acme AI", "Li Wei", 1)


def test_a_catalog_manager_cannot_open_the_customer_pages(client, catalog_manager):
    client.force_login(catalog_manager)
    assert client.get(reverse("customers:customer-list")).status_code == 403
    assert client.post(reverse("customers:customer-create"), {"name_en": "X"}).status_code == 403


def test_the_list_names_the_primary_contact_in_a_flat_number_of_queries(engineer_client, engineer):
    def add(n):
        customer = customer_create(user=engineer, name_en=f"Customer {n:02d}")
        contact_create(user=engineer, customer_id=customer.pk, name=f"Aaron {n}")  # not primary
        contact_create(user=engineer, customer_id=customer.pk, name=f"Zhou {n}", is_primary=n != 2)

    def list_queries():
        with CaptureQueriesContext(connection) as queries:
            response = engineer_client.get(reverse("customers:customer-list"))
        return len(queries), response.content.decode()

    for n in range(3):
        add(n)
    few, rows = list_queries()
    assert "Zhou 0" in rows
    assert "Zhou 1" in rows
    assert "Zhou 2" not in rows  # Customer 02 has no primary contact: none is shown
    assert "Aaron" not in rows
    for n in range(3, 25):
        add(n)
    many, _ = list_queries()
    assert many == few  # contacts come in one prefetch, whatever the page holds
