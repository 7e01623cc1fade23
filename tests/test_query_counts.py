"""Every list endpoint of the API costs the same number of queries for 1 row as for 50: what a
list shows is fetched with the page (select_related / prefetch), never once per row.

The list endpoints are read from the OpenAPI schema (a GET whose 200 answer is an array or a
page of results), so a new list endpoint fails `test_every_list_endpoint_is_measured` until it
has a row maker here."""

import json
from datetime import date

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from catalog.models import MediaRule
from catalog.services import SEED_PATH
from core.models import WebhookAttempt, WebhookDelivery, WebhookSubscription
from customers.models import Opportunity
from quotes.models import Document, QuoteRevision
from quotes.services import quote_create
from tests.quotes.factories import CustomerFactory, DesignFactory, TeamFactory, load_seed_subset

pytestmark = pytest.mark.django_db

# Rows shown on one page: the largest page a caller may ask for (`?limit=100`, core.pagination)
# holds all 50, so the second measurement really serialises 50 rows.
FEW, MANY = 1, 50
LIMIT = "?limit=100"


def _customer(engineer):
    return CustomerFactory(team=engineer.membership.team)


def make_customers(engineer, n):
    for _ in range(n):
        CustomerFactory(team=engineer.membership.team)
    return "/api/v1/customers/"


def make_designs(engineer, n):
    customer = _customer(engineer)
    for _ in range(n):
        DesignFactory(owner=engineer, customer=customer)
    return "/api/v1/designs/"


def make_media_rules(engineer, n):
    for i in range(n):
        MediaRule.objects.create(speed_gbps=100 + i, media="dac", max_reach_m=3)
    return "/api/v1/media-rules/"


def make_opportunities(engineer, n):
    customer = _customer(engineer)
    for i in range(n):
        Opportunity.objects.create(customer=customer, name=f"Deal {i}", owner=engineer)
    return "/api/v1/opportunities/"


# Django skips a prefetch query when no row on the page has the relation, so the fewest
# products that run every query the list can run are two: a switch with port groups and
# breakouts (2 prefetches) and a transceiver with reaches (1). With a single NIC the list runs 3
# queries fewer whatever the page size; the product list is measured from 2 rows.
PRODUCTS_FEW = ("MSN2201-CB2F", "EZMAX-SFP28-25G-SR")


def make_products(engineer, n):
    """The switch and the transceiver first, then the seed's products in order, with their
    specs and sample prices."""
    seed = [p["sku"] for p in json.loads(SEED_PATH.read_text(encoding="utf-8"))["products"]]
    skus = [*PRODUCTS_FEW, *(sku for sku in seed if sku not in PRODUCTS_FEW)][:n]
    load_seed_subset(skus)
    return "/api/v1/products/"


def _quotes(engineer, n):
    load_seed_subset()
    customer = _customer(engineer)
    design = DesignFactory(owner=engineer)
    return [quote_create(user=engineer, design=design, customer=customer) for _ in range(n)]


def make_quotes(engineer, n):
    _quotes(engineer, n)
    return "/api/v1/quotes/"


def make_revisions(engineer, n):
    (quote,) = _quotes(engineer, 1)
    first = quote.current_revision
    for number in range(2, n + 1):
        # Copies of the first revision (the service only revises a sent quote; the list shows
        # whatever revisions there are).
        QuoteRevision.objects.create(
            quote=quote, number=number, currency=first.currency, created_by=engineer
        )
    return f"/api/v1/quotes/{quote.pk}/revisions/"


def make_quote_documents(engineer, n):
    (quote,) = _quotes(engineer, 1)
    for i in range(n):
        Document.objects.create(
            revision=quote.current_revision,
            kind="proposal",
            language="en",
            template_version=str(i),  # one document per template version: unique rows
            start_date=date(2026, 1, 1),
            requested_by=engineer,
        )
    return f"/api/v1/quotes/{quote.pk}/documents/"


def _subscription(engineer, i=0):
    return WebhookSubscription.objects.create(
        user=engineer, url=f"https://crm{i}.example.com/hook", secret="s", events=["quote.sent"]
    )


def make_webhooks(engineer, n):
    for i in range(n):
        _subscription(engineer, i)
    return "/api/v1/webhooks/"


def make_deliveries(engineer, n):
    subscription = _subscription(engineer)
    for i in range(n):
        delivery = WebhookDelivery.objects.create(
            subscription=subscription, message_id=f"msg_{i}", event="quote.sent", payload={}
        )
        WebhookAttempt.objects.create(delivery=delivery, status_code=500)
    return f"/api/v1/webhooks/{subscription.pk}/deliveries/"


LISTS = {
    "/api/v1/customers/": make_customers,
    "/api/v1/designs/": make_designs,
    "/api/v1/media-rules/": make_media_rules,
    "/api/v1/opportunities/": make_opportunities,
    "/api/v1/products/": make_products,
    "/api/v1/quotes/": make_quotes,
    "/api/v1/quotes/{id}/revisions/": make_revisions,
    "/api/v1/quotes/{quote_pk}/documents/": make_quote_documents,
    "/api/v1/webhooks/": make_webhooks,
    "/api/v1/webhooks/{id}/deliveries/": make_deliveries,
}


def list_endpoints(client):
    paths = client.get("/api/v1/schema/?format=json").json()["paths"]
    for path, operations in paths.items():
        get = operations.get("get")
        if get is None:
            continue
        json_body = get["responses"]["200"]["content"].get("application/json")
        if json_body is None:  # a file download (bom.xlsx, cabling.csv)
            continue
        schema = json_body["schema"]
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            if not name.startswith("Paginated"):
                continue
        elif schema.get("type") != "array":
            continue
        yield path


def test_every_list_endpoint_is_measured(client):
    assert sorted(list_endpoints(client)) == sorted(LISTS)


def count_queries(engineer, make, rows):
    """Queries of one list request showing `rows` rows; the rows are rolled back afterwards, so
    each measurement starts from the same empty tables."""
    with transaction.atomic():
        url = make(engineer, rows)
        api = APIClient()
        api.force_authenticate(engineer)
        api.get(url + LIMIT)  # warm per-process caches (content types, permissions)
        with CaptureQueriesContext(connection) as queries:
            response = api.get(url + LIMIT)
        transaction.set_rollback(True)
    assert response.status_code == 200, response.content
    body = response.json()
    shown = body["results"] if isinstance(body, dict) else body
    assert len(shown) == rows
    return len(queries)


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(LISTS))
def test_list_queries_do_not_grow_with_rows(path, engineer):
    few_rows = len(PRODUCTS_FEW) if path == "/api/v1/products/" else FEW
    few = count_queries(engineer, LISTS[path], few_rows)
    many = count_queries(engineer, LISTS[path], MANY)
    assert many == few, f"{path}: {few} queries for {few_rows} row(s), {many} for {MANY}"


def test_design_list_without_a_customer_filter_reads_no_team(engineer):
    """The designs' filter finds the caller's customers only to check a `?customer=` it was
    given: without one, a token caller's list no longer reads their membership and team (two
    queries on every request, half of a list request's time in bench.load). With one, another
    team's customer is still refused."""
    from core.models import TokenScope
    from core.services import api_token_create
    from planner.models import Design

    make_designs(engineer, 2)
    assert Design.objects.count() == 2
    _token, secret = api_token_create(user=engineer, name="list", scope=TokenScope.READ)
    api = APIClient()
    # A token: each request loads its own user, as in production (a forced user would keep
    # its membership cached between requests and hide the queries).
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    api.get("/api/v1/designs/")  # warm per-process caches
    with CaptureQueriesContext(connection) as queries:
        response = api.get("/api/v1/designs/")
    assert response.status_code == 200
    assert len(response.json()["results"]) == 2
    # A query of its own for them, that is (the list's own query reads the team in a subquery,
    # core.selectors.owned_or_team): the first FROM names the table a query reads.
    team_reads = [
        q["sql"]
        for q in queries
        if q["sql"].split(" FROM ", 1)[-1].startswith(('"core_membership"', '"core_team"'))
    ]
    assert team_reads == []
    assert len(queries) == 2  # the token's check and the page
    # A join through the memberships needed DISTINCT, which PostgreSQL paid for by sorting every
    # visible design before the LIMIT; the subquery needs none.
    assert "DISTINCT" not in queries[-1]["sql"]

    mine = CustomerFactory(team=engineer.membership.team)
    assert api.get(f"/api/v1/designs/?customer={mine.pk}").status_code == 200
    other_team = CustomerFactory(team=TeamFactory(name="Another team"))
    refused = api.get(f"/api/v1/designs/?customer={other_team.pk}")
    assert refused.status_code == 400
    assert "customer" in refused.json()["errors"]
