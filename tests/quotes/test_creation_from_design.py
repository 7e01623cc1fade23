"""A quote is made from the design's stored, typed result (engine.result), and its first
revision pins the catalog snapshot the design was sized with (issue 14)."""

import pytest

from planner.models import SizingSnapshot
from quotes.services import QuoteInvalid, quote_create
from tests.quotes.factories import DesignFactory, small_result

pytestmark = pytest.mark.django_db


def test_the_revision_pins_the_designs_sizing_snapshot(catalog, engineer, customer):
    design = DesignFactory(owner=engineer)
    design.sizing_snapshot = SizingSnapshot.objects.create(
        sha256="ab" * 32, catalog_version="seed-test", data={}
    )
    design.save(update_fields=["sizing_snapshot"])
    revision = quote_create(user=engineer, design=design, customer=customer).current_revision
    assert revision is not None
    assert revision.frozen_design.sizing_snapshot_sha256 == "ab" * 32
    assert revision.frozen_design.result == design.result


def test_a_design_saved_before_snapshots_pins_none(catalog, engineer, customer):
    design = DesignFactory(owner=engineer)
    assert design.sizing_snapshot is None
    revision = quote_create(user=engineer, design=design, customer=customer).current_revision
    assert revision is not None
    # planner.frozen.frozen_engine then falls back to the design's own snapshot (or catalog).
    assert revision.frozen_design.sizing_snapshot_sha256 == ""


def test_lines_come_from_the_typed_bill_of_materials(catalog, engineer, customer):
    """The five SMALL_BOM lines (tests/quotes/factories.py) become product lines in BOM order,
    with the BOM's plane, tier and quantity: 32 NICs, 1 leaf, 32 DACs, 1 management switch,
    4 patch cords."""
    design = DesignFactory(owner=engineer)
    revision = quote_create(user=engineer, design=design, customer=customer).current_revision
    assert revision is not None
    products = [
        (line.sku, line.plane, line.tier, line.quantity)
        for line in revision.lines.filter(kind="product").order_by("position")
    ]
    assert products == [
        ("MCX623106AN-CDAT", "compute", "server", 32),
        ("MSN2700-CS2F", "compute", "leaf", 1),
        ("MCP1600-C002E30N", "compute", "server-leaf", 32),
        ("MSN2201-CB2F", "oob", "leaf", 1),
        ("CAT6A-RJ45-3M", "oob", "server-leaf", 4),
    ]


@pytest.mark.parametrize(
    "result",
    [
        None,  # never sized
        {"schema": 999},  # a result version this code cannot read
        {**small_result(), "bom": []},  # sized, but nothing to sell
    ],
)
def test_a_design_without_a_readable_bill_of_materials_is_refused(
    catalog, engineer, customer, result
):
    design = DesignFactory(owner=engineer)
    design.result = result
    design.save(update_fields=["result"])
    with pytest.raises(QuoteInvalid) as refused:
        quote_create(user=engineer, design=design, customer=customer)
    assert refused.value.errors == {
        "design": "The design has no bill of materials: size it before quoting."
    }
