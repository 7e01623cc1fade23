"""The design a quote revision froze, read through one typed reader (quotes.frozen_design):
what `quote_create` stores is what every document and service reads back, key for key."""

import pytest

from engine.result import result_from_json
from quotes.frozen_design import FrozenDesign

pytestmark = pytest.mark.django_db


def test_the_stored_form_reads_back_as_the_design_it_froze(quote, design):
    frozen = quote.current_revision.frozen_design
    assert frozen == FrozenDesign.of(design)
    assert FrozenDesign.from_json(frozen.to_json()) == frozen
    # The keys quotes have always stored, so revisions made before this reader read the same.
    assert set(quote.current_revision.design_snapshot) == {
        "design_id", "name", "catalog_version", "sizing_snapshot", "request", "result",
    }  # fmt: skip
    assert frozen.result == result_from_json(design.result)
    assert (frozen.result.gpus, frozen.name) == (design.gpus, design.name)


def test_an_empty_snapshot_reads_as_no_design():
    frozen = FrozenDesign.from_json({})
    assert (frozen.result, frozen.request, frozen.sizing_snapshot_sha256) == (None, {}, "")
