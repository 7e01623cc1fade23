"""The home dashboard: the engineer's drafts, quotes by status, sent quotes expiring within 14
days, recent documents; the approval queue (and its count in the navigation) for managers. Every
section is one query whatever its number of rows."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from customers.models import Customer
from quotes.models import Document, Quote, QuoteRevision
from tests.quotes.factories import DesignFactory


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"


class Rows:
    """Quotes written as rows (the quote services' pricing is not what is tested here)."""

    def __init__(self):
        self.sequence = 0

    def quote(self, owner, status, *, valid_in_days=None, title=""):
        self.sequence += 1
        design = DesignFactory(owner=owner)
        customer = Customer.objects.create(name_en=f"Lab {self.sequence}", team=design.team)
        quote = Quote.objects.create(
            number=f"Q-2026-{self.sequence:05d}", year=2026, sequence=self.sequence,
            customer=customer, design=design, owner=owner, team=design.team, status=status,
            title=title,
        )  # fmt: skip
        valid_until = (
            timezone.localdate() + timedelta(days=valid_in_days)
            if valid_in_days is not None
            else None
        )
        revision = QuoteRevision.objects.create(
            quote=quote, status=status, created_by=owner, valid_until=valid_until
        )
        return quote, revision

    def document(self, revision, owner, status="ready"):
        return Document.objects.create(
            revision=revision, kind="proposal", language="en", template_version="t",
            start_date=timezone.localdate(), requested_by=owner, status=status,
        )  # fmt: skip


@pytest.fixture
def rows():
    return Rows()


def test_engineer_sees_their_day(client, engineer, teammate, rows):
    DesignFactory(owner=engineer, name="Draft pod", is_draft=True)
    DesignFactory(owner=engineer, name="Saved pod")  # saved: not a draft
    archived = DesignFactory(owner=engineer, name="Archived draft", is_draft=True)
    archived.archived_at = timezone.now()
    archived.save()
    rows.quote(engineer, "draft", title="Draft quote")
    rows.quote(engineer, "draft")
    _, soon = rows.quote(engineer, "sent", valid_in_days=14)  # the last day that counts
    rows.quote(engineer, "sent", valid_in_days=15)  # too far
    rows.quote(engineer, "sent", valid_in_days=-1)  # already past
    _, approved = rows.quote(engineer, "approved")
    rows.document(approved, engineer)
    rows.quote(teammate, "draft", title="Teammate's quote")
    put_away, _ = rows.quote(engineer, "draft", title="Archived quote")
    put_away.archived_at = timezone.now()
    put_away.save()
    client.force_login(engineer)
    html = client.get(reverse("home")).content.decode()
    drafts = html.split('data-testid="my-drafts"')[1].split("</section>")[0]
    assert "Draft pod" in drafts
    assert "Draft quote" in drafts
    assert "Saved pod" not in drafts
    assert "Archived draft" not in drafts
    assert "Teammate" not in html
    assert "Archived quote" not in html
    counts = html.split('data-testid="quotes-by-status"')[1].split("</section>")[0]
    # Mine: 2 drafts, 3 sent, 1 approved (neither the teammate's draft nor my archived one).
    assert re.search(r">Draft</span> 2<", counts)
    assert re.search(r">Sent</span> 3<", counts)
    assert re.search(r">Approved</span> 1<", counts)
    expiring = html.split('data-testid="expiring"')[1].split("</section>")[0]
    assert expiring.count("<tr>") == 1 + 1  # header + the one due in 14 days
    assert soon.label in expiring
    documents = html.split('data-testid="recent-documents"')[1].split("</section>")[0]
    assert approved.label in documents
    assert 'data-testid="approval-queue"' not in html
    assert 'data-testid="nav-approvals"' not in html


def test_manager_sees_the_approval_queue_and_its_count(
    client, manager, engineer, other_engineer, rows
):
    outsider = other_engineer  # Team B; the manager is Team A's
    first, _ = rows.quote(engineer, "pending_approval")
    second, _ = rows.quote(engineer, "pending_approval")
    rows.quote(outsider, "pending_approval")  # another team's: another manager's queue
    rows.quote(engineer, "draft")
    client.force_login(manager)
    html = client.get(reverse("home")).content.decode()
    queue = html.split('data-testid="approval-queue"')[1].split("</section>")[0]
    assert first.number in queue
    assert second.number in queue
    assert queue.count("<tr>") == 1 + 2
    nav = html.split('data-testid="nav-approvals"')[1].split("</a>")[0]
    assert ">2</span>" in nav
    # The count shows on every page, not only the dashboard.
    other_page = client.get(reverse("quotes:quote-list")).content.decode()
    assert 'data-testid="nav-approvals"' in other_page


def test_an_empty_queue_still_shows_zero_to_a_manager(client, manager):
    client.force_login(manager)
    html = client.get(reverse("home")).content.decode()
    assert ">0</span>" in html.split('data-testid="nav-approvals"')[1].split("</a>")[0]
    assert "No quote awaits your approval." in html


def _fill(rows, engineer, n):
    for _ in range(n):
        DesignFactory(owner=engineer, is_draft=True)
        rows.quote(engineer, "draft")
        _, revision = rows.quote(engineer, "sent", valid_in_days=3)
        rows.document(revision, engineer)
        rows.quote(engineer, "pending_approval")


@pytest.mark.parametrize("who", ["engineer", "manager"])
def test_dashboard_queries_do_not_grow_with_rows(
    client, engineer, manager, rows, who, django_assert_num_queries
):
    user = engineer if who == "engineer" else manager
    client.force_login(user)
    _fill(rows, engineer, 1)
    with CaptureQueriesContext(connection) as one:
        assert client.get(reverse("home")).status_code == 200
    _fill(rows, engineer, 19)  # 20 of each now
    with django_assert_num_queries(len(one.captured_queries)):
        html = client.get(reverse("home")).content.decode()
    if who == "manager":
        # 20 awaiting approval in the navigation; the queue shows the oldest 8.
        assert ">20</span>" in html.split('data-testid="nav-approvals"')[1].split("</a>")[0]
