"""Issue 29, item 5: fair use of the workers. The services that queue documents and exports
refuse one more job to a user (or a team) who already has JOBS_PER_USER_MAX (JOBS_PER_TEAM_MAX)
queued or running: a domain error, 429 with Retry-After in the API, the same words on the page.

Nothing here reaches a broker: jobs are sent when their transaction commits, and each test's
transaction is rolled back."""

from __future__ import annotations

from datetime import date

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from core.errors import TooManyJobs
from planner.exports.jobs import export_request
from planner.exports.models import ExportFormat, ExportJob
from quotes.documents import document_request
from quotes.models import Document, DocumentStatus
from quotes.services import quote_create
from tests.quotes.factories import CustomerFactory, DesignFactory, load_seed_subset

pytestmark = pytest.mark.django_db


@pytest.fixture
def revision(engineer):
    load_seed_subset()
    design = DesignFactory(owner=engineer)
    customer = CustomerFactory(team__name="Team A")
    return quote_create(user=engineer, design=design, customer=customer).current_revision


def ask(user, revision, day: int) -> Document:
    # One document per project start date: each is a new job.
    return document_request(
        user=user, revision=revision, language="en", start_date=date(2026, 1, day)
    )


def test_the_eleventh_queued_document_of_one_user_is_refused(engineer, revision, settings):
    assert settings.JOBS_PER_USER_MAX == 10
    for day in range(1, 11):
        ask(engineer, revision, day)
    with pytest.raises(TooManyJobs) as refused:
        ask(engineer, revision, 11)
    assert refused.value.http_status == 429
    assert refused.value.retry_after == settings.JOBS_RETRY_AFTER_SECONDS == 30
    assert "You already have 10 documents and exports queued" in refused.value.message
    assert Document.objects.count() == 10  # the refused one was not kept
    # Asking again for one already queued is not a new job: it is answered, not refused.
    assert ask(engineer, revision, 3).start_date == date(2026, 1, 3)


def test_a_finished_job_frees_a_place(engineer, revision):
    documents = [ask(engineer, revision, day) for day in range(1, 11)]
    Document.objects.filter(pk=documents[0].pk).update(status=DocumentStatus.READY)
    ask(engineer, revision, 11)  # 9 under way: one more is fair
    with pytest.raises(TooManyJobs):
        ask(engineer, revision, 12)


def test_running_jobs_count_too(engineer, revision):
    documents = [ask(engineer, revision, day) for day in range(1, 11)]
    Document.objects.filter(pk__in=[d.pk for d in documents]).update(
        status=DocumentStatus.RENDERING
    )
    with pytest.raises(TooManyJobs):
        ask(engineer, revision, 11)


def test_a_failed_document_asked_again_is_a_new_job_and_counts(engineer, revision):
    documents = [ask(engineer, revision, day) for day in range(1, 11)]
    Document.objects.filter(pk=documents[0].pk).update(status=DocumentStatus.FAILED)
    ask(engineer, revision, 11)  # back to 10 under way
    with pytest.raises(TooManyJobs):
        ask(engineer, revision, 1)  # the failed one, asked again: one more job
    assert Document.objects.get(pk=documents[0].pk).status == DocumentStatus.FAILED


def test_exports_and_documents_share_the_cap(engineer, revision):
    for day in range(1, 10):
        ask(engineer, revision, day)
    design = DesignFactory(owner=engineer)
    export_request(user=engineer, design=design, format=ExportFormat.BOM_CSV)  # the 10th
    with pytest.raises(TooManyJobs):
        export_request(user=engineer, design=design, format=ExportFormat.CABLING_CSV)
    assert ExportJob.objects.count() == 1
    with pytest.raises(TooManyJobs):
        ask(engineer, revision, 10)


def test_a_team_has_its_own_cap_and_other_teams_are_not_held(
    engineer, teammate, other_engineer, revision, settings
):
    settings.JOBS_PER_TEAM_MAX = 3
    ask(engineer, revision, 1)
    ask(engineer, revision, 2)
    ask(teammate, revision, 3)  # Team A: 3 under way
    with pytest.raises(TooManyJobs) as refused:
        ask(teammate, revision, 4)
    assert "Your team already has 3" in refused.value.message
    design = DesignFactory(owner=other_engineer)
    export_request(user=other_engineer, design=design, format=ExportFormat.BOM_CSV)  # Team B


def test_the_refusal_is_in_chinese_for_a_chinese_reader(engineer, revision, settings):
    settings.JOBS_PER_USER_MAX = 1
    ask(engineer, revision, 1)
    with translation.override("zh-hans"), pytest.raises(TooManyJobs) as refused:
        ask(engineer, revision, 2)
    assert "您已有 1 个文档和导出" in refused.value.message


def test_the_api_answers_429_with_retry_after(engineer, revision, settings):
    settings.JOBS_PER_USER_MAX = 1
    ask(engineer, revision, 1)
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(engineer)
    quote = revision.quote
    response = client.post(
        f"/api/v1/quotes/{quote.pk}/documents/",
        {"language": "en", "start_date": "2026-02-01"},
        format="json",
    )
    assert response.status_code == 429
    assert response["Content-Type"] == "application/problem+json"
    assert response["Retry-After"] == "30"
    problem = response.json()
    assert problem["code"] == "too_many_jobs"
    assert problem["detail"].startswith("You already have 1 documents and exports")


def test_the_page_says_it_on_the_form_in_the_readers_language(
    engineer_client, revision, engineer, settings
):
    settings.JOBS_PER_USER_MAX = 1
    ask(engineer, revision, 1)
    quote = revision.quote
    response = engineer_client.post(
        f"/quotes/{quote.pk}/r{revision.number}/documents/",
        {"kind": "proposal", "language": "en", "start_date": "2026-02-01"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 400
    assert "您已有 1 个文档和导出" in response.content.decode()


def test_the_export_page_says_it_on_the_design_page(engineer_client, engineer, revision, settings):
    settings.JOBS_PER_USER_MAX = 1
    settings.EXPORT_SYNC_MAX_ROWS = 0  # every cabling schedule is a job
    ask(engineer, revision, 1)
    design = DesignFactory(owner=engineer)
    response = engineer_client.get(f"/designs/{design.pk}/cabling.csv", follow=True)
    assert response.redirect_chain[-1][0] == f"/designs/{design.pk}/"
    assert "You already have 1 documents and exports" in response.content.decode()
    assert ExportJob.objects.count() == 0


def test_the_customers_copy_is_never_refused(engineer, revision, settings):
    # At the cap, sending still queues the customer's proposal, and the share page may still
    # ask for it in the other language: at most one per language, and the customer waits.
    from quotes import services

    settings.JOBS_PER_USER_MAX = 1
    ask(engineer, revision, 1)
    services.revision_send(user=engineer, revision=revision)
    revision.refresh_from_db()
    # The one asked for on 1 January, and the customer's, queued by the sending.
    assert Document.objects.filter(revision=revision, kind="proposal").count() == 2
    document_request(user=engineer, revision=revision, language="zh-hans")
    document_request(user=engineer, revision=revision, language="en")
    # Anything else of that revision is still counted: a plan, or another start date.
    with pytest.raises(TooManyJobs):
        document_request(user=engineer, revision=revision, kind="plan", language="en")
    with pytest.raises(TooManyJobs):
        ask(engineer, revision, 2)
