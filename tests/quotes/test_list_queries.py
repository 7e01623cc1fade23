"""The quotes lists, the API's and the page, cost the same queries for 5 quotes as for 50: what a
row shows (customer, owner, team, current revision) comes with the page, never once per row
(bench.load measures the API's list under load)."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from quotes.models import QuoteRevision
from quotes.services import quote_create
from tests.quotes.factories import CustomerFactory, DesignFactory, load_seed_subset

pytestmark = pytest.mark.django_db

FEW, MANY = 5, 50


def make_quotes(engineer, teammate, n):
    """`n` quotes of two owners, each with a customer of its own (a relation read per row
    would cost a query per row); every third has a second revision, the one the list shows."""
    design = DesignFactory(owner=engineer)
    made = []
    for i in range(n):
        owner = engineer if i % 2 else teammate
        customer = CustomerFactory(team=engineer.membership.team, name_en=f"Customer {i}")
        quote = quote_create(user=owner, design=design, customer=customer)
        if i % 3 == 0:
            QuoteRevision.objects.create(
                quote=quote, number=2, currency="USD", created_by=owner, total=Decimal(i)
            )
        made.append(quote)
    return made


def count_queries(client, url):
    client.get(url)  # per-process caches (content types, permissions) warmed
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries), response


@pytest.fixture
def api(engineer):
    client = APIClient()
    client.force_authenticate(engineer)
    return client


def test_api_list_queries_do_not_grow_with_quotes(api, engineer, teammate):
    load_seed_subset()
    made = make_quotes(engineer, teammate, FEW)
    few, response = count_queries(api, "/api/v1/quotes/?limit=100")
    assert len(response.json()["results"]) == FEW
    made += make_quotes(engineer, teammate, MANY - FEW)
    many, response = count_queries(api, "/api/v1/quotes/?limit=100")
    results = response.json()["results"]
    assert len(results) == MANY
    assert many == few, f"{few} queries for {FEW} quotes, {many} for {MANY}"
    # The page and the page's revisions (a forced login reads no token).
    assert many == 2
    shown = {row["id"]: row["current_revision"]["number"] for row in results}
    assert shown == {quote.pk: quote.current_revision.number for quote in made}


def test_api_pages_of_other_sizes_read_their_own_revisions(api, engineer, teammate):
    """Pages of each size, one after another and followed by cursor, show the current revision
    of their own quotes (quotes.api.summaries picks the highest number of each page's)."""
    load_seed_subset()
    made = make_quotes(engineer, teammate, 7)
    expected = {quote.pk: quote.current_revision.pk for quote in made}
    for limit in (3, 2, 3, 7, 1):
        url, seen = f"/api/v1/quotes/?limit={limit}", {}
        while url:
            body = api.get(url).json()
            seen |= {row["id"]: row["current_revision"]["id"] for row in body["results"]}
            url = body["next"]
        assert seen == expected, limit


def test_page_list_queries_do_not_grow_with_quotes(client, engineer, teammate):
    load_seed_subset()
    client.force_login(engineer)
    make_quotes(engineer, teammate, FEW)
    few, response = count_queries(client, reverse("quotes:quote-list"))
    assert len(response.context["quotes"]) == FEW
    make_quotes(engineer, teammate, MANY - FEW)
    many, response = count_queries(client, reverse("quotes:quote-list"))
    assert len(response.context["quotes"]) == 25  # a page (quotes.views.pages)
    assert many == few, f"{few} queries for {FEW} quotes, {many} for {MANY}"
