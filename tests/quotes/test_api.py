"""Quotes and customers over REST: the permission matrix, actions refused with problem+json,
customer upsert by CRM id."""

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from core.models import TokenScope
from core.services import api_token_create
from quotes import services
from quotes.models import QuoteStatus
from tests.quotes.factories import CustomerFactory, DesignFactory

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


def test_create_from_design_and_customer(catalog, engineer, design, customer):
    response = bearer(engineer).post(
        "/api/v1/quotes/", {"design": design.pk, "customer": customer.pk}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["number"].startswith("Q-")
    assert body["status"] == "draft"
    # 445,900.00 + 13% VAT = 503,867.00 (see test_services.py).
    assert body["total"] == "503867.00"
    assert len(body["current_revision"]["lines"]) == 9
    # Engineers do not see cost or margin.
    assert "margin_percent" not in body["current_revision"]
    assert "unit_cost" not in body["current_revision"]["lines"][0]


def test_create_refuses_others_designs_as_field_errors(catalog, engineer, other_engineer, customer):
    theirs = DesignFactory(owner=other_engineer)
    response = as_user(engineer).post(
        "/api/v1/quotes/", {"design": theirs.pk, "customer": customer.pk}, format="json"
    )
    assert response.status_code == 400
    assert response["Content-Type"] == PROBLEM
    assert "design" in response.json()["errors"]


def test_permission_matrix(quote, engineer, teammate, other_engineer, catalog_manager, manager):
    url = f"/api/v1/quotes/{quote.pk}/"
    assert APIClient().get(url).status_code == 401  # anonymous
    assert as_user(catalog_manager).get(url).status_code == 403  # no quote permission
    assert as_user(other_engineer).get(url).status_code == 404  # another team's quote
    assert as_user(teammate).get(url).status_code == 200  # same team
    assert as_user(engineer).get(url).status_code == 200  # own
    # A read-only token reads but may not act.
    assert bearer(engineer, TokenScope.READ).get(url).status_code == 200
    assert bearer(engineer, TokenScope.READ).post(f"{url}submit/").status_code == 403
    assert as_user(other_engineer).post(f"{url}submit/").status_code == 404
    assert APIClient().post(f"{url}submit/").status_code == 401
    listed = as_user(other_engineer).get("/api/v1/quotes/").json()["results"]
    assert listed == []
    # Managers of the team see the margin: 35.00% (see test_services.py).
    body = as_user(manager).get(url).json()
    assert body["current_revision"]["margin_percent"] == "35.00"


def test_actions_flow_and_refusals(quote, engineer, manager, discount_policy):
    client = as_user(engineer)
    url = f"/api/v1/quotes/{quote.pk}/"
    response = client.post(f"{url}approve/")
    assert response.status_code == 409
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "transition_not_allowed"
    services.revision_discount_apply(
        user=engineer, revision=quote.current_revision, discount_percent=Decimal("15")
    )
    assert client.post(f"{url}submit/").json()["status"] == QuoteStatus.PENDING_APPROVAL
    response = client.post(f"{url}send/")
    assert response.status_code == 409
    assert response.json()["code"] == "approval_required"
    assert "sales-manager" in response.json()["detail"]
    response = client.post(f"{url}approve/")  # engineers may not approve
    assert response.status_code == 403
    assert response.json()["code"] == "not_permitted"
    response = as_user(manager).post(f"{url}approve/")
    assert response.status_code == 200
    assert response.json()["approved_by"] == "manager"
    response = client.post(f"{url}send/")
    assert response.status_code == 200
    assert "/s/" in response.json()["share_url"]
    assert client.post(f"{url}send/").status_code == 409
    response = client.post(f"{url}revise/")
    assert response.status_code == 201
    assert response.json()["label"] == f"{quote.number}-R1"
    revisions = client.get(f"{url}revisions/").json()
    assert [r["status"] for r in revisions] == ["draft", "sent"]


def test_list_filters_by_status(quote, engineer):
    client = as_user(engineer)
    assert len(client.get("/api/v1/quotes/?status=draft").json()["results"]) == 1
    assert client.get("/api/v1/quotes/?status=sent").json()["results"] == []


def test_customer_upsert_by_external_id(engineer, other_engineer, catalog_manager):
    url = "/api/v1/customers/by-external-id/hubspot/9001/"
    client = bearer(engineer)
    response = client.put(url, {"name_en": "Example AI Lab"}, format="json")
    assert response.status_code == 201
    customer_id = response.json()["id"]
    response = client.put(url, {"name_en": "Example AI Lab", "name_zh": "示例"}, format="json")
    assert response.status_code == 200
    assert response.json()["id"] == customer_id
    assert response.json()["name_zh"] == "示例"
    assert response.json()["external_id"] == "9001"
    assert APIClient().put(url, {"name_en": "x"}, format="json").status_code == 401
    assert as_user(catalog_manager).put(url, {"name_en": "x"}, format="json").status_code == 403
    assert bearer(engineer, TokenScope.READ).put(url, {"name_en": "x"}).status_code == 403
    response = as_user(engineer).put(url, {}, format="json")
    assert response.status_code == 400
    assert "name_en" in response.json()["errors"]
    # Customers are per team: another team neither sees it nor takes it over.
    detail = f"/api/v1/customers/{customer_id}/"
    assert as_user(other_engineer).get(detail).status_code == 404
    assert as_user(engineer).get(detail).status_code == 200
    response = as_user(other_engineer).put(url, {"name_en": "Hijack"}, format="json")
    assert response.status_code == 409


def test_customers_list_is_per_team(engineer, other_engineer):
    CustomerFactory(name_en="Ours")
    CustomerFactory(name_en="Theirs", team__name="Team B")
    names = [c["name_en"] for c in as_user(engineer).get("/api/v1/customers/").json()["results"]]
    assert names == ["Ours"]


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
    # Another team's customer is not there for this caller: a field error, not a leak.
    response = client.put(url, {"customer": theirs.pk, "name": "x"}, format="json")
    assert response.status_code == 400
    assert "customer" in response.json()["errors"]
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


def test_quotes_name_their_opportunity_and_keep_it_on_its_customer(
    catalog, engineer, design, customer
):
    client = bearer(engineer)
    deal = client.put(
        "/api/v1/opportunities/by-external-id/hubspot/deal-9/",
        {"customer": customer.pk, "name": "Training cluster"},
        format="json",
    ).json()
    response = client.post(
        "/api/v1/quotes/",
        {"design": design.pk, "customer": customer.pk, "opportunity": deal["id"]},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["opportunity"] == deal["id"]
    # Moving the deal to another customer would misfile the quote made for this one.
    other = CustomerFactory(name_en="Another lab")
    response = client.put(
        "/api/v1/opportunities/by-external-id/hubspot/deal-9/",
        {"customer": other.pk, "name": "Training cluster"},
        format="json",
    )
    assert response.status_code == 400
    assert "customer" in response.json()["errors"]
