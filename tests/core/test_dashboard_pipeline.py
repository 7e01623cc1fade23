"""The home dashboard's pipeline (issue 27, item 9): the team's quotes summed by status, per
currency, archived drafts left out, another team's never counted; one query whatever the
number of quotes (the section is quotes' own template tag: core may not import quotes)."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from customers.models import Customer
from engine.money import Money
from quotes.models import Quote
from quotes.pipeline import pipeline_by_status
from tests.quotes.factories import DesignFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"


class Quotes:
    def __init__(self):
        self.sequence = 0

    def add(self, owner, status, total, currency="CNY", archived=False):
        self.sequence += 1
        design = DesignFactory(owner=owner)
        customer = Customer.objects.create(name_en=f"Lab {self.sequence}", team=design.team)
        return Quote.objects.create(
            number=f"Q-2026-{self.sequence:05d}", year=2026, sequence=self.sequence,
            customer=customer, design=design, owner=owner, team=design.team, status=status,
            total=Decimal(total), currency=currency,
            archived_at=timezone.now() if archived else None,
        )  # fmt: skip


def test_pipeline_sums_the_teams_quotes_by_status_and_currency(engineer, teammate, other_engineer):
    quotes = Quotes()
    quotes.add(engineer, "sent", "100000.00")
    quotes.add(teammate, "sent", "250000.50")  # the team's: counted
    quotes.add(engineer, "sent", "9000.00", currency="USD")  # another currency: its own row
    quotes.add(engineer, "draft", "1234.56")
    quotes.add(engineer, "draft", "99999.00", archived=True)  # put away: not counted
    quotes.add(other_engineer, "sent", "777777.00")  # another team's: never counted
    quotes.add(engineer, "accepted", "500000.00")
    rows = [(r.status, r.total, r.count) for r in pipeline_by_status(engineer)]
    assert rows == [
        ("draft", Money(Decimal("1234.56"), "CNY"), 1),
        ("sent", Money(Decimal("350000.50"), "CNY"), 2),  # 100,000.00 + 250,000.50
        ("sent", Money(Decimal("9000.00"), "USD"), 1),
        ("accepted", Money(Decimal("500000.00"), "CNY"), 1),
    ]


def test_home_shows_the_pipeline_in_one_query_whatever_the_quotes(client, engineer):
    quotes = Quotes()
    quotes.add(engineer, "sent", "100000.00")
    client.force_login(engineer)

    def home():
        with CaptureQueriesContext(connection) as queries:
            html = client.get(reverse("home")).content.decode()
        return html, len(queries)

    _html, few = home()
    for _ in range(5):
        quotes.add(engineer, "sent", "1000.00")
    quotes.add(engineer, "approved", "2000.00", currency="USD")
    html, many = home()
    assert many == few, f"{few} queries for 1 quote, {many} for 7"
    section = html.split('data-testid="pipeline"')[1].split("</section>")[0]
    sent_row = section.split('data-testid="pipeline-sent-CNY"')[1].split("</tr>")[0]
    assert "105,000.00 CNY" in sent_row  # 100,000 + 5 x 1,000
    assert "2,000.00 USD" in section


def test_the_pipeline_is_one_query(engineer, django_assert_num_queries):
    quotes = Quotes()
    for status in ("draft", "sent", "accepted"):
        quotes.add(engineer, status, "10.00")
    with django_assert_num_queries(1):
        assert len(pipeline_by_status(engineer)) == 3  # three statuses, one currency
