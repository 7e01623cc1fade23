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


def test_the_factorys_design_is_sized_by_the_service_and_pins_its_snapshot(
    catalog, engineer, customer
):
    """DesignFactory saves through planner.services.design_create: the engine's result, the
    catalog version and the sizing snapshot, which the quote's first revision pins."""
    design = DesignFactory(owner=engineer)
    assert design.sizing_snapshot is not None
    assert design.catalog_version == design.sizing_snapshot.catalog_version != ""
    # 16 x 7,800 + 96,000 + 8 x 520 + 16 x 600 + 8 x 700 + 22,000 + 5 x 58 = 262,450.00
    # (the CNY-2026 list prices, tests/quotes/factories.py's docstring).
    assert (design.result["cost"], design.result["unpriced_lines"]) == ("262450.00", 0)
    assert not any(line["catalog_gap"] for line in design.result["bom"])
    revision = quote_create(user=engineer, design=design, customer=customer).current_revision
    assert revision is not None
    assert revision.frozen_design.sizing_snapshot_sha256 == design.sizing_snapshot.sha256


def test_a_design_saved_before_snapshots_pins_none(catalog, engineer, customer):
    # Saved before snapshots were kept: no snapshot row (the service stores one today).
    design = DesignFactory(owner=engineer, sizing_snapshot=None)
    assert design.sizing_snapshot is None
    revision = quote_create(user=engineer, design=design, customer=customer).current_revision
    assert revision is not None
    # planner.frozen.frozen_engine then falls back to the design's own snapshot (or catalog).
    assert revision.frozen_design.sizing_snapshot_sha256 == ""


def test_lines_come_from_the_typed_bill_of_materials(catalog, engineer, customer):
    """The seven BOM lines of the factory's design (tests/quotes/factories.py) become product
    lines in BOM order, with the BOM's plane, tier and quantity: 16 NICs (32 GPU ports on
    dual-port NICs), 1 leaf, 32 DACs in three lengths (8 x 1 m, 16 x 2 m, 8 x 3 m: one per GPU
    port), 1 management switch, 5 patch cords (4 servers' BMCs and the leaf)."""
    design = DesignFactory(owner=engineer)
    revision = quote_create(user=engineer, design=design, customer=customer).current_revision
    assert revision is not None
    products = [
        (line.sku, line.plane, line.tier, line.quantity)
        for line in revision.lines.filter(kind="product").order_by("position")
    ]
    assert products == [
        ("MCX623106AN-CDAT", "compute", "server", 16),
        ("MSN2700-CS2F", "compute", "leaf", 1),
        ("MCP1600-C001E30N", "compute", "server-leaf", 8),
        ("MCP1600-C002E30N", "compute", "server-leaf", 16),
        ("MCP1600-C003E26N", "compute", "server-leaf", 8),
        ("MSN2201-CB2F", "oob", "leaf", 1),
        ("CAT6A-RJ45-10M", "oob", "endpoint-leaf", 5),
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
