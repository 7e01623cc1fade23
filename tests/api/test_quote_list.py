"""The quotes list's fast path (quotes.api.summaries) answers exactly what QuoteListSerializer,
the schema's description of a summary, answers: the same quotes, the current (highest-numbered)
revision of each, numbers and times rendered alike."""

import json
from datetime import date
from decimal import Decimal

import pytest
from django.db.models import Prefetch
from django.utils import timezone
from rest_framework.renderers import JSONRenderer
from rest_framework.test import APIClient

from quotes.models import Quote, QuoteRevision
from quotes.serializers import QuoteListSerializer
from quotes.services import quote_create
from tests.quotes.factories import CustomerFactory, DesignFactory, load_seed_subset

pytestmark = pytest.mark.django_db


def test_the_list_answers_what_the_serializer_says(engineer, teammate, other_engineer):
    load_seed_subset()
    customer = CustomerFactory(team=engineer.membership.team)
    design = DesignFactory(owner=engineer)
    first, second, archived = (
        quote_create(user=user, design=design, customer=customer)
        for user in (engineer, teammate, engineer)
    )
    # A second revision: the list shows it, not the first.
    QuoteRevision.objects.create(
        quote=second, number=2, currency="CNY", created_by=teammate, total=Decimal("1234.5"),
        valid_until=date(2027, 1, 31),
    )  # fmt: skip
    Quote.objects.filter(pk=archived.pk).update(archived_at=timezone.now())
    theirs = CustomerFactory(team=other_engineer.membership.team)
    quote_create(user=other_engineer, design=DesignFactory(owner=other_engineer), customer=theirs)

    api = APIClient()
    api.force_authenticate(engineer)
    with timezone.override("Asia/Shanghai"):  # a zone other than UTC: offsets are rendered
        body = api.get("/api/v1/quotes/").json()
        latest = QuoteRevision.objects.order_by("-number")
        quotes = (
            Quote.objects.filter(team=engineer.membership.team)
            .select_related("customer", "owner", "team")
            .prefetch_related(Prefetch("revisions", queryset=latest))
            .order_by("-pk")
        )
        for quote in quotes:
            quote.current_revisions = list(quote.revisions.all())[:1]
        # As the API renders it (a method field's date becomes an ISO string in the JSON).
        expected = json.loads(JSONRenderer().render(QuoteListSerializer(quotes, many=True).data))
    for got, want in zip(body["results"], expected, strict=True):
        assert {key: got[key] for key in want} == dict(want)
        assert set(got) == set(want)
    assert [row["id"] for row in body["results"]] == [archived.pk, second.pk, first.pk]
    assert body["results"][1]["current_revision"]["number"] == 2
    assert body["results"][1]["current_revision"]["total"] == "1234.50"
    assert body["results"][1]["valid_until"] == "2027-01-31"


def test_filters_and_cursor_pages_still_apply(engineer):
    load_seed_subset()
    customer = CustomerFactory(team=engineer.membership.team)
    design = DesignFactory(owner=engineer)
    made = [quote_create(user=engineer, design=design, customer=customer) for _ in range(3)]
    api = APIClient()
    api.force_authenticate(engineer)
    seen, url = [], "/api/v1/quotes/?limit=2&mine=true"
    while url:
        body = api.get(url).json()
        seen += [row["id"] for row in body["results"]]
        url = body["next"]
    assert seen == [quote.pk for quote in reversed(made)]
    assert api.get("/api/v1/quotes/?status=sent").json()["results"] == []
