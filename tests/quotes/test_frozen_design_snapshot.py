"""The design a quote revision froze is a row of its own (planner.FrozenDesign), pointed at by
foreign key: what `quote_create` stores is what every document and service reads back."""

import pytest
from django.db.models import ProtectedError

from engine.result import content_sha256, result_from_json
from planner.frozen import frozen_design_of
from planner.models import FrozenDesign
from quotes import services

pytestmark = pytest.mark.django_db


def test_the_frozen_row_reads_back_as_the_design_it_froze(quote, design):
    frozen = quote.current_revision.frozen_design
    assert frozen == frozen_design_of(design=design)  # the same content: the same row
    assert FrozenDesign.objects.count() == 1
    # The JSON value a revision's content hash covers: the keys revisions stored before the
    # table existed, so hashes recorded then still match.
    assert set(frozen.as_json()) == {
        "design_id", "name", "catalog_version", "sizing_snapshot", "request", "result",
    }  # fmt: skip
    assert frozen.sha256 == content_sha256(frozen.as_json())
    assert frozen.result == design.result  # as JSON values: key order aside
    # Typed, both as storage gives them back: PostgreSQL's jsonb keeps an object's keys in an
    # order of its own (shorter first), and a text's params decode as ordered pairs, so the
    # service's in-memory result (the engine's order: its warnings' params) would differ in
    # order only.
    design.refresh_from_db()
    assert frozen.typed_result == result_from_json(design.result)
    assert (frozen.typed_result.gpus, frozen.name) == (design.gpus, design.name)


def test_a_revised_revision_shares_the_frozen_design_and_it_cannot_be_deleted(quote, engineer):
    services.revision_send(user=engineer, revision=quote.current_revision)
    first = quote.current_revision
    second = services.quote_revise(user=engineer, quote=quote)
    assert second.frozen_design_id == first.frozen_design_id
    with pytest.raises(ProtectedError):
        first.frozen_design.delete()


def test_a_changed_design_freezes_a_new_row_and_leaves_the_old_one(quote, design):
    old = quote.current_revision.frozen_design
    design.name = "Renamed"
    design.save()
    new = frozen_design_of(design=design)
    assert new.pk != old.pk
    old.refresh_from_db()
    assert old.name != "Renamed"
