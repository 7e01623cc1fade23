"""Quote revisions' frozen designs move from a JSON column to planner.FrozenDesign rows (quotes
migration 0016): every revision keeps what it froze, revisions that froze the same design share
a row, and the content hash a revision was approved under still matches after the move."""

import importlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from quotes.content import revision_content_sha256
from quotes.models import QuoteRevision

OLD = importlib.import_module("quotes.migrations.0015_revision_content_lock")


def _migrate(quotes_migration=None):
    """Every app at its latest migration, quotes at `quotes_migration` when given."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    targets = executor.loader.graph.leaf_nodes()
    if quotes_migration is not None:
        targets = [node for node in targets if node[0] != "quotes"] + [("quotes", quotes_migration)]
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_frozen_designs_move_to_rows_and_approved_hashes_still_match():
    old = _migrate("0015_revision_content_lock")
    try:
        team = old.get_model("core", "Team").objects.create(name="North")
        user = old.get_model("auth", "User").objects.create(username="se1")
        customer = old.get_model("customers", "Customer").objects.create(name_en="Acme", team=team)
        snapshot = old.get_model("planner", "SizingSnapshot").objects.create(
            sha256="ab" * 32, catalog_version="2026.11", currency="CNY", data={}
        )
        design = old.get_model("planner", "Design").objects.create(
            name="256 GPUs", owner=user, team=team
        )
        quote = old.get_model("quotes", "Quote").objects.create(
            number="Q-2026-00001", year=2026, sequence=1, customer=customer, design=design,
            owner=user, team=team,
        )  # fmt: skip
        frozen = {
            "design_id": design.pk,
            "name": "256 GPUs",
            "catalog_version": "2026.11",
            "sizing_snapshot": snapshot.sha256,
            "request": {"gpus": 256, "nic_speed": 400},
            "result": {"gpus": 256, "bom": []},
        }
        revision_model = old.get_model("quotes", "QuoteRevision")
        approved, revised = (
            revision_model.objects.create(
                quote=quote, number=n, created_by=user, design_snapshot=frozen, status=status
            )
            for n, status in ((0, "superseded"), (1, "approved"))
        )
        bare = revision_model.objects.create(
            quote=quote, number=2, created_by=user, design_snapshot={}
        )
        hashes = {}
        for revision in (approved, revised, bare):
            revision = revision_model.objects.get(pk=revision.pk)  # as a migration reads it
            digest = OLD.content_sha256(revision, [])
            hashes[revision.pk] = digest
            revision_model.objects.filter(pk=revision.pk).update(
                content_sha256=digest, approved_sha256=digest
            )
    finally:
        _migrate()

    first, second, third = (
        QuoteRevision.objects.select_related("frozen_design").get(pk=pk)
        for pk in (approved.pk, revised.pk, bare.pk)
    )
    assert first.frozen_design_id == second.frozen_design_id  # one row for one content
    assert third.frozen_design is None
    row = first.frozen_design
    assert (row.source_design_id, row.name, row.sizing_snapshot.sha256) == (
        design.pk, "256 GPUs", "ab" * 32,
    )  # fmt: skip
    assert row.as_json() == frozen
    for revision in (first, second, third):
        # What approval bound to is still what the revision says, hashed by today's code.
        assert revision_content_sha256(revision) == hashes[revision.pk] == revision.approved_sha256

    # And back: the JSON column is written again from the rows.
    back = _migrate("0015_revision_content_lock")
    try:
        stored = back.get_model("quotes", "QuoteRevision").objects.get(pk=approved.pk)
        assert stored.design_snapshot == frozen
    finally:
        _migrate()
