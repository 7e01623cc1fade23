"""Keeps the engine's catalog snapshot fresh: a saved or deleted catalog row bumps the revision."""

from typing import Any

from django.apps import apps
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from planner.selectors import catalog_changed


def _on_catalog_write(sender: Any, **kwargs: Any) -> None:
    # Robust: the write has committed; a failing cache must not turn its answer into a 500.
    transaction.on_commit(catalog_changed, robust=True)


def connect() -> None:
    for model in apps.get_app_config("catalog").get_models():
        post_save.connect(_on_catalog_write, sender=model, dispatch_uid=f"catalog-rev-{model}")
        post_delete.connect(_on_catalog_write, sender=model, dispatch_uid=f"catalog-rev-d-{model}")
