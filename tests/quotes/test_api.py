"""Quotes over REST: the permission matrix, actions refused with problem+json, quotes naming a
CRM opportunity (customers and opportunities themselves: tests/customers/test_api.py)."""

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
    # 321,450.00 + VAT per kind (13% goods, 6% services) = 359,108.50 (see test_services.py).
    assert body["total"] == "359108.50"
    # The design's 7 BOM lines + POC, pilot, full installation and support.
    assert len(body["current_revision"]["lines"]) == 11
    # Engineers do not see cost or margin.
    assert "margin_percent" not in body["current_revision"]
    assert "unit_cost" not in body["current_revision"]["lines"][0]


def test_create_with_others_designs_is_404(catalog, engineer, other_engineer, customer):
    # Issue 14: another team's design named in a body is a 404, as in a path (it was a 400
    # field error); the selectors decide, and a missing design looks the same.
    theirs = DesignFactory(owner=other_engineer)
    response = as_user(engineer).post(
        "/api/v1/quotes/", {"design": theirs.pk, "customer": customer.pk}, format="json"
    )
    assert response.status_code == 404
    assert response["Content-Type"] == PROBLEM


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
    assert "Sales manager" in response.json()["detail"]  # the role in words, not its code
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


def test_list_is_a_summary_and_the_detail_keeps_the_lines(quote, engineer):
    """Issue 18: a list page serialised every line of every quote (138 KB for 25 quotes). The
    list now carries each quote's number, status, customer, totals and validity with links; the
    lines are in the detail its `links.self` names."""
    client = as_user(engineer)
    (row,) = client.get("/api/v1/quotes/").json()["results"]
    revision = quote.current_revision
    assert row["number"] == quote.number
    assert row["status"] == "draft"
    assert row["customer"] == quote.customer_id
    assert row["customer_name"] == quote.customer.name_en
    # 321,450.00 + VAT per kind (13% goods, 6% services) = 359,108.50 (see test_services.py).
    assert row["total"] == "359108.50"
    assert row["currency"] == "CNY"
    # A draft has no validity date yet: it starts when the revision is sent.
    assert row["valid_until"] is None
    assert revision.valid_until is None
    summary = row["current_revision"]
    assert "lines" not in summary
    assert (summary["subtotal"], summary["total"]) == ("321450.00", "359108.50")
    assert row["links"]["self"] == f"/api/v1/quotes/{quote.pk}/"
    detail = client.get(row["links"]["self"]).json()
    # The detail keeps the eleven lines: the design's 7 BOM lines and 4 services
    # (test_create_from_design_and_customer).
    assert len(detail["current_revision"]["lines"]) == 11
    assert detail["current_revision"]["total"] == summary["total"]


def test_list_size_does_not_grow_with_lines(quote, engineer):
    """A quote's list row is the same size whatever its number of lines: the lines are not in it
    (a 1,000,000-GPU design's quote has as many lines as a small one's plus their planes)."""
    client = as_user(engineer)
    before = len(client.get("/api/v1/quotes/").content)
    revision = quote.current_revision
    first = revision.lines.first()
    for position in range(50):
        first.pk = None
        first.position = 100 + position
        first.save()
    after = len(client.get("/api/v1/quotes/").content)
    assert revision.lines.count() == 11 + 50  # 7 BOM lines + 4 services, and the 50 copies
    assert after == before
