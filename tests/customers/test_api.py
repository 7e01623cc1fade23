"""Customers and opportunities over REST, as the customers app serves them (issue 14: they moved
out of quotes, same URLs and schema): the team's list, upserts by CRM id, another team's customer
a 404, a read-only token refused, and quotes still made for a customer."""

import pytest
from django.urls import resolve
from rest_framework.test import APIClient

from core.models import TokenScope
from core.services import api_token_create
from customers.models import Customer, Opportunity
from quotes.models import Quote
from tests.quotes.factories import CustomerFactory, DesignFactory, load_seed_subset

pytestmark = pytest.mark.django_db
PROBLEM = "application/problem+json"


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def bearer(user, scope=TokenScope.READ_WRITE) -> APIClient:
    _token, secret = api_token_create(user=user, name="crm", scope=scope)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/customers/",
        "/api/v1/customers/1/",
        "/api/v1/customers/by-external-id/hubspot/1/",
        "/api/v1/opportunities/",
        "/api/v1/opportunities/1/",
        "/api/v1/opportunities/by-external-id/hubspot/1/",
    ],
)
def test_the_routes_are_the_customers_apps(url):
    assert resolve(url).func.cls.__module__ == "customers.api.views"


def test_customers_list_is_per_team(engineer, other_engineer):
    CustomerFactory(name_en="Ours")
    CustomerFactory(name_en="Theirs", team__name="Team B")
    names = [c["name_en"] for c in as_user(engineer).get("/api/v1/customers/").json()["results"]]
    assert names == ["Ours"]
    names = [
        c["name_en"] for c in as_user(other_engineer).get("/api/v1/customers/").json()["results"]
    ]
    assert names == ["Theirs"]


def test_customer_upsert_by_external_id(engineer, other_engineer, catalog_manager):
    url = "/api/v1/customers/by-external-id/hubspot/9001/"
    client = bearer(engineer)
    response = client.put(url, {"name_en": "Example AI Lab"}, format="json")
    assert response.status_code == 201
    customer_id = response.json()["id"]
    assert response.json()["team"] == "Team A"
    response = client.put(url, {"name_en": "Example AI Lab", "name_zh": "示例"}, format="json")
    assert response.status_code == 200
    assert response.json()["id"] == customer_id
    assert response.json()["name_zh"] == "示例"
    assert response.json()["external_id"] == "9001"
    assert Customer.objects.count() == 1  # the second call updated the first one's row
    assert APIClient().put(url, {"name_en": "x"}, format="json").status_code == 401
    assert as_user(catalog_manager).put(url, {"name_en": "x"}, format="json").status_code == 403
    response = bearer(engineer, TokenScope.READ).put(url, {"name_en": "x"}, format="json")
    assert response.status_code == 403
    response = as_user(engineer).put(url, {}, format="json")
    assert response.status_code == 400
    assert "name_en" in response.json()["errors"]
    # Customers are per team: another team neither sees it nor takes it over.
    detail = f"/api/v1/customers/{customer_id}/"
    assert as_user(other_engineer).get(detail).status_code == 404
    assert as_user(engineer).get(detail).status_code == 200
    response = as_user(other_engineer).put(url, {"name_en": "Hijack"}, format="json")
    assert response.status_code == 409
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "crm_id_taken"
    assert Customer.objects.get(pk=customer_id).name_en == "Example AI Lab"


def test_a_read_only_token_reads_customers_and_opportunities_but_writes_neither(engineer):
    customer = CustomerFactory(name_en="Ours")
    Opportunity.objects.create(customer=customer, name="Deal", owner=engineer)
    reader = bearer(engineer, TokenScope.READ)
    assert reader.get("/api/v1/customers/").status_code == 200
    assert reader.get(f"/api/v1/customers/{customer.pk}/").status_code == 200
    assert reader.get("/api/v1/opportunities/").status_code == 200
    response = reader.put(
        "/api/v1/opportunities/by-external-id/hubspot/D-1/",
        {"customer": customer.pk, "name": "Deal"},
        format="json",
    )
    assert response.status_code == 403
    assert response["Content-Type"] == PROBLEM
    assert Opportunity.objects.count() == 1  # only the one made above


def test_opportunity_upsert_by_external_id(engineer, other_engineer, catalog_manager):
    ours = CustomerFactory(name_en="Ours")
    theirs = CustomerFactory(name_en="Theirs", team__name="Team B")
    url = "/api/v1/opportunities/by-external-id/hubspot/deal-77/"
    client = bearer(engineer)
    response = client.put(url, {"customer": ours.pk, "name": "2k GPU cluster"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["customer"], body["owner"], body["external_id"]) == (
        ours.pk,
        "engineer",
        "deal-77",
    )
    response = client.put(url, {"customer": ours.pk, "name": "4k GPU cluster"}, format="json")
    assert response.status_code == 200
    assert response.json()["id"] == body["id"]
    assert response.json()["name"] == "4k GPU cluster"
    # The CRM finds it again by its own id.
    found = client.get("/api/v1/opportunities/?external_source=hubspot&external_id=deal-77")
    assert [o["id"] for o in found.json()["results"]] == [body["id"]]

    payload = {"customer": ours.pk, "name": "x"}
    assert APIClient().put(url, payload, format="json").status_code == 401
    assert as_user(catalog_manager).put(url, payload, format="json").status_code == 403
    assert bearer(engineer, TokenScope.READ).put(url, payload, format="json").status_code == 403
    response = client.put(url, {}, format="json")
    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert set(response.json()["errors"]) == {"customer", "name"}
    # Opportunities are per team, like their customers.
    detail = f"/api/v1/opportunities/{body['id']}/"
    assert as_user(other_engineer).get(detail).status_code == 404
    assert as_user(engineer).get(detail).status_code == 200
    assert as_user(other_engineer).get("/api/v1/opportunities/").json()["results"] == []
    response = as_user(other_engineer).put(
        url, {"customer": theirs.pk, "name": "Hijack"}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["code"] == "crm_id_taken"
    assert Opportunity.objects.get(pk=body["id"]).customer == ours


def test_another_teams_customer_is_not_found_for_an_opportunity(engineer):
    """Issue 14: another team's customer named in the body is a 404, as a missing one (it was a
    400 field error), and nothing is written."""
    theirs = CustomerFactory(name_en="Theirs", team__name="Team B")
    client = bearer(engineer)
    for customer_id in (theirs.pk, theirs.pk + 1000):
        response = client.put(
            "/api/v1/opportunities/by-external-id/hubspot/deal-404/",
            {"customer": customer_id, "name": "Deal"},
            format="json",
        )
        assert response.status_code == 404
        assert response["Content-Type"] == PROBLEM
        assert response.json()["detail"] == "No such customer."
    assert not Opportunity.objects.exists()


def test_a_quote_is_made_for_a_customer_the_crm_created(engineer):
    """A customer and a deal upserted by the CRM carry a quote made through the quotes API."""
    load_seed_subset()
    design = DesignFactory(owner=engineer)
    client = bearer(engineer)
    customer = client.put(
        "/api/v1/customers/by-external-id/hubspot/C-7/", {"name_en": "Lab"}, format="json"
    ).json()
    deal = client.put(
        "/api/v1/opportunities/by-external-id/hubspot/D-7/",
        {"customer": customer["id"], "name": "Training cluster"},
        format="json",
    ).json()
    response = client.post(
        "/api/v1/quotes/",
        {"design": design.pk, "customer": customer["id"], "opportunity": deal["id"]},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["customer"], body["opportunity"], body["design"]) == (
        customer["id"],
        deal["id"],
        design.pk,
    )
    assert Quote.objects.get(pk=body["id"]).customer.external_id == "C-7"
    # The CRM sees the deal's quotes through the quote list filtered by customer.
    listed = client.get(f"/api/v1/quotes/?customer={customer['id']}").json()["results"]
    assert [q["id"] for q in listed] == [body["id"]]
