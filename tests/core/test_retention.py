"""Issue 29, item 6: retention. Files go with their rows (a deleted design's uploads and exports,
a failed document's file when it is asked for again), stored files no row names are swept after
a grace period, and webhook deliveries are purged WEBHOOK_DELIVERY_RETENTION_DAYS after their
final state (core.retention, `manage.py retention_sweep`)."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import timezone

from core.errors import DomainError
from core.models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookSubscription
from core.retention import orphan_files_delete, retention_sweep, webhook_deliveries_purge
from planner import services as planner_services
from planner.asbuilt.models import AsBuiltCheck
from planner.exports.models import ExportFormat, ExportJob
from quotes.documents import document_request
from quotes.models import Document, DocumentStatus
from quotes.services import quote_create
from tests.quotes.factories import CustomerFactory, DesignFactory, load_seed_subset

pytestmark = pytest.mark.django_db
DAY = 24 * 60 * 60


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    """A storage of this test's own: the sweep's counts are exact."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


def stored(name: str, *, age_hours: float = 0) -> str:
    saved = default_storage.save(name, ContentFile(b"bytes"))
    if age_hours:
        then = time.time() - age_hours * 60 * 60
        os.utime(default_storage.path(saved), (then, then))
    return saved


def exists(name: str) -> bool:
    return default_storage.exists(name)


# --- Webhook deliveries -----------------------------------------------------------------------


def _delivery(subscription, n: int, status: str, *, finished_days_ago: float | None):
    delivery = WebhookDelivery.objects.create(
        subscription=subscription,
        message_id=f"msg_{n}",
        event="design.created",
        payload={"n": n},
        status=status,
    )
    if finished_days_ago is not None:
        finished = timezone.now() - timedelta(days=finished_days_ago)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            finished_at=finished, created_at=finished
        )
    WebhookAttempt.objects.create(delivery=delivery, status_code=200)
    return delivery


def test_deliveries_are_purged_30_days_after_their_final_state(engineer, settings):
    assert settings.WEBHOOK_DELIVERY_RETENTION_DAYS == 30
    subscription = WebhookSubscription.objects.create(
        user=engineer, url="https://crm.example.com/hook", secret="s", events=["design.created"]
    )
    old_success = _delivery(subscription, 1, DeliveryStatus.SUCCEEDED, finished_days_ago=31)
    old_failure = _delivery(subscription, 2, DeliveryStatus.FAILED, finished_days_ago=31)
    recent = _delivery(subscription, 3, DeliveryStatus.SUCCEEDED, finished_days_ago=29)
    pending = _delivery(subscription, 4, DeliveryStatus.PENDING, finished_days_ago=None)
    WebhookDelivery.objects.filter(pk=pending.pk).update(
        created_at=timezone.now() - timedelta(days=60)  # old, but still being delivered
    )
    assert webhook_deliveries_purge() == 2
    left = set(WebhookDelivery.objects.values_list("pk", flat=True))
    assert left == {recent.pk, pending.pk}
    assert not WebhookAttempt.objects.filter(delivery_id__in=[old_success.pk, old_failure.pk])
    assert WebhookAttempt.objects.count() == 2  # the kept deliveries' attempts stay
    assert webhook_deliveries_purge() == 0  # again: nothing more


def test_a_backlog_is_purged_in_batches(engineer, monkeypatch):
    monkeypatch.setattr("core.retention.PURGE_BATCH", 2)
    subscription = WebhookSubscription.objects.create(
        user=engineer, url="https://crm.example.com/hook", secret="s", events=["design.created"]
    )
    for n in range(5):
        _delivery(subscription, n, DeliveryStatus.SUCCEEDED, finished_days_ago=40)
    assert webhook_deliveries_purge() == 5  # three batches: 2, 2, 1
    assert WebhookDelivery.objects.count() == 0


# --- Stored files -----------------------------------------------------------------------------


def test_files_no_row_names_are_swept_after_the_grace_period(engineer, settings):
    assert settings.ORPHAN_FILE_GRACE_HOURS == 24
    design = DesignFactory(owner=engineer)
    named = stored("exports/design-1-bom-csv-1-abc.csv", age_hours=48)
    ExportJob.objects.create(
        design=design,
        format=ExportFormat.BOM_CSV,
        design_updated_at=design.updated_at,
        rows_total=1,
        requested_by=engineer,
        file=named,
    )
    old_orphans = [
        stored("exports/left-by-a-killed-worker.csv", age_hours=25),
        stored("asbuilt/design-9-upload.csv", age_hours=25),
        stored("documents/Q-2026-00001/7-proposal-en-0123.pdf", age_hours=25),  # in a folder
    ]
    young_orphan = stored("asbuilt/being-committed.csv", age_hours=1)
    elsewhere = stored("notes/readme.txt", age_hours=100)  # not a folder of any file field

    assert orphan_files_delete() == 3
    assert not any(exists(name) for name in old_orphans)
    assert exists(named)
    assert exists(young_orphan)
    assert exists(elsewhere)


def test_deleting_a_design_deletes_its_uploads_and_exports(
    engineer, django_capture_on_commit_callbacks
):
    design = DesignFactory(owner=engineer)
    upload = stored("asbuilt/design-upload.csv")
    export = stored("exports/design-cabling.csv")
    AsBuiltCheck.objects.create(
        design=design,
        design_updated_at=design.updated_at,
        format="csv",
        original_name="n.csv",
        file=upload,
        sha256="0" * 64,
        size_bytes=5,
        neighbours=1,
        requested_by=engineer,
    )
    ExportJob.objects.create(
        design=design,
        format=ExportFormat.CABLING_CSV,
        design_updated_at=design.updated_at,
        rows_total=1,
        requested_by=engineer,
        file=export,
    )
    with django_capture_on_commit_callbacks(execute=True):
        planner_services.design_delete(design=design, user=engineer)
    assert not exists(upload)
    assert not exists(export)


def test_a_design_kept_by_a_refusal_keeps_its_files(
    engineer, other_engineer, django_capture_on_commit_callbacks
):
    design = DesignFactory(owner=engineer)
    upload = stored("asbuilt/design-upload.csv")
    AsBuiltCheck.objects.create(
        design=design,
        design_updated_at=design.updated_at,
        format="csv",
        original_name="n.csv",
        file=upload,
        sha256="0" * 64,
        size_bytes=5,
        neighbours=1,
        requested_by=engineer,
    )
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(DomainError):
        planner_services.design_delete(design=design, user=other_engineer)  # not theirs
    assert exists(upload)


def test_a_failed_documents_file_is_deleted_when_it_is_asked_for_again(
    engineer, django_capture_on_commit_callbacks
):
    load_seed_subset()
    design = DesignFactory(owner=engineer)
    customer = CustomerFactory(team__name="Team A")
    revision = quote_create(user=engineer, design=design, customer=customer).current_revision
    document = document_request(user=engineer, revision=revision, language="en")
    corrupt = stored("documents/Q/1-proposal-en-corrupt.pdf")
    Document.objects.filter(pk=document.pk).update(
        status=DocumentStatus.FAILED, file=corrupt, sha256="f" * 64
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        again = document_request(user=engineer, revision=revision, language="en")
    assert again.pk == document.pk
    assert again.status == DocumentStatus.QUEUED
    row = Document.objects.get(pk=document.pk)
    assert row.file.name == ""
    assert row.sha256 == ""
    assert exists(corrupt)  # until the retry commits: a rollback keeps it
    callbacks[0]()  # the deletion runs before the render's message is sent
    assert not exists(corrupt)


def test_the_command_runs_both_passes(engineer):
    stored("exports/orphan.csv", age_hours=30)
    out = StringIO()
    call_command("retention_sweep", stdout=out)
    assert out.getvalue().strip() == (
        "Deleted 0 webhook deliveries and 1 stored files no row names."
    )
    assert retention_sweep() == {"webhook_deliveries": 0, "orphan_files": 0}  # idempotent
