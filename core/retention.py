"""Retention: nothing is kept longer than it is needed.

- A stored file goes with its row: the services that delete rows (a design, a quote, a failed
  document asked for again) hand its files' names to `files_delete_on_commit`, which deletes
  them once the deletion commits (a rollback keeps both).
- A stored file that no row names (its row went by another way: a cascade, the admin, a worker
  killed between writing the file and committing its row) is deleted by the sweep once it is
  older than ORPHAN_FILE_GRACE_HOURS: a file is written just before its row commits, so a young
  one may be about to be named.
- Webhook deliveries and their attempts are deleted WEBHOOK_DELIVERY_RETENTION_DAYS after they
  succeeded or finally failed (one run once left 18,916 rows); pending ones are kept whatever
  their age, they are still being delivered.

`retention_sweep` does both passes; `manage.py retention_sweep` runs it, and so may beat.
Every model's file fields are found among the models, so this module imports none of the apps
above it."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta

from django.apps import apps
from django.conf import settings
from django.core.files.storage import Storage, default_storage
from django.db import models, transaction
from django.utils import timezone

from core.models import DeliveryStatus, WebhookDelivery

logger = logging.getLogger(__name__)
# Rows deleted per statement: a purge of a backlog never holds one long transaction.
PURGE_BATCH = 1000


def files_delete(*, names: Iterable[str], storage: Storage | None = None) -> int:
    """Delete stored files by name (missing ones are skipped); returns how many were deleted.
    A failure is logged and the others are still deleted: the sweep retries what is left."""
    storage = storage or default_storage
    deleted = 0
    for name in names:
        if not name:
            continue
        try:
            if storage.exists(name):
                storage.delete(name)
                deleted += 1
        except OSError:
            logger.exception("retention: could not delete %s", name)
    return deleted


def files_delete_on_commit(*, names: Iterable[str]) -> None:
    """Delete these files once the current transaction commits (at once outside one)."""
    kept = [name for name in names if name]
    if kept:
        # A named function, not a functools.partial: Django logs a failing robust callback by
        # its __qualname__, which a partial lacks (that log call then raised; issue 29).
        def delete_files_after_commit() -> None:
            files_delete(names=kept)

        transaction.on_commit(delete_files_after_commit, robust=True)


def _file_fields() -> Iterator[tuple[type[models.Model], models.FileField]]:
    for model in apps.get_models():
        for field in model._meta.get_fields():
            if isinstance(field, models.FileField):
                yield model, field


def _folder(field: models.FileField) -> str:
    upload_to = field.upload_to if isinstance(field.upload_to, str) else ""
    return upload_to.strip("/").split("/")[0]


def _walk(storage: Storage, folder: str) -> Iterator[str]:
    """Every file under `folder`, as the storage names it."""
    try:
        directories, files = storage.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in files:
        yield f"{folder}/{name}"
    for directory in directories:
        yield from _walk(storage, f"{folder}/{directory}")


def orphan_files_delete(*, now: datetime | None = None) -> int:
    """Delete the stored files, in the folders file fields write to, that no row names and that
    are older than ORPHAN_FILE_GRACE_HOURS; returns how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(hours=settings.ORPHAN_FILE_GRACE_HOURS)
    folders: dict[str, list[tuple[type[models.Model], str]]] = {}
    for model, field in _file_fields():
        folder = _folder(field)
        if folder:  # a field writing to the storage's top level has no folder of its own to sweep
            folders.setdefault(folder, []).append((model, field.name))
    deleted = 0
    for folder, owners in sorted(folders.items()):
        named: set[str] = set()
        for model, field_name in owners:
            named.update(
                model._default_manager.exclude(**{field_name: ""}).values_list(
                    field_name, flat=True
                )
            )
        for name in _walk(default_storage, folder):
            if name in named:
                continue
            try:
                modified = default_storage.get_modified_time(name)
            except (OSError, NotImplementedError):
                continue
            if modified < cutoff:
                deleted += files_delete(names=[name])
    if deleted:
        logger.info("retention: %s stored files no row names deleted", deleted)
    return deleted


def webhook_deliveries_purge(*, now: datetime | None = None) -> int:
    """Delete the deliveries (their attempts with them) that reached their final state more than
    WEBHOOK_DELIVERY_RETENTION_DAYS ago; returns how many deliveries."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.WEBHOOK_DELIVERY_RETENTION_DAYS)
    finished = WebhookDelivery.objects.filter(
        status__in=(DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED), finished_at__lt=cutoff
    )
    deleted = 0
    while True:
        batch = list(finished.order_by("pk").values_list("pk", flat=True)[:PURGE_BATCH])
        if not batch:
            break
        with transaction.atomic():
            count, _by_model = WebhookDelivery.objects.filter(pk__in=batch).delete()
        deleted += len(batch)
        if count == 0:  # deleted meanwhile by another sweep
            break
    if deleted:
        logger.info("retention: %s webhook deliveries purged", deleted)
    return deleted


def retention_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Both passes; what each deleted."""
    return {
        "webhook_deliveries": webhook_deliveries_purge(now=now),
        "orphan_files": orphan_files_delete(now=now),
    }
