"""The recommended spares as optional quote lines and a growth step as a quote revision, on a
design the engine sized from the seed catalog (quotes.services.spares and .growth), through the
services and through the buttons of the quote page and the design page."""

import math
from decimal import Decimal

import pytest
from django.urls import reverse

from engine.failures import spares
from engine.growth_steps import growth_steps
from planner import services as planner_services
from planner.services import catalog_prices
from quotes.models import LineKind, QuoteStatus
from quotes.services import quote_create, quote_growth_revise, revision_send, revision_spares_add
from quotes.services.spares import revision_engine_design
from quotes.transitions import ActionNotAllowed
from tests.conftest import load_seed_catalog
from tests.quotes.factories import CustomerFactory

pytestmark = pytest.mark.django_db
# 192 GPUs = 24 servers x 8 rails; a 64x400 leaf at 1:1 serves 32 servers, so the unit is a
# quarter empty: growth starts by filling it (8 servers, 64 GPUs) with no cable moved.
RAIL_192 = {"gpus": 192, "gpus_per_server": 8, "rails": 8, "nic_speed": 400, "fabric": "rail",
            "leaf": "64x400", "spine": "64x400", "oversubscription": "1:1"}  # fmt: skip
SHARE = {"switch": Decimal("0.02"), "transceiver": Decimal("0.03"), "cable": Decimal("0.02")}


def _drop_unpriced(revision):
    """Lines left to price (generic parts) would keep the revision from being sent."""
    revision.lines.exclude(kind=LineKind.NOTE).filter(
        frozen_list_price__isnull=True, override_unit_price__isnull=True
    ).delete()


@pytest.fixture
def quote(engineer):
    load_seed_catalog()
    design = planner_services.design_create(owner=engineer, name="192", request_data=RAIL_192)
    customer = CustomerFactory(name_en="Example AI Lab", team=engineer.membership.team)
    return quote_create(user=engineer, design=design, customer=customer)


def test_spares_become_optional_lines_once(quote, engineer):
    revision = quote.revisions.get()
    design, _catalog = revision_engine_design(revision)
    recommended, _total = spares(design)
    before = revision.lines.count()
    added = revision_spares_add(user=engineer, revision=revision)
    assert added.lines
    by_sku = {line.sku: line for line in added.lines}
    for spare in recommended:
        if spare.sku in by_sku:
            line = by_sku[spare.sku]
            # A share of what is installed, at least one: e.g. 2 % of 6 leaves -> 1.
            assert line.quantity == max(1, math.ceil(spare.installed * SHARE[spare.category]))
            assert line.is_optional
            assert line.tier == "spares"
        else:
            assert (spare.sku or spare.description) in added.skipped
    assert revision.lines.count() == before + len(added.lines)
    # Optional lines are offered, not summed into the total.
    revision.refresh_from_db()
    again = revision_spares_add(user=engineer, revision=revision)
    assert again.lines == ()
    assert revision.lines.count() == before + len(added.lines)


def test_a_growth_step_on_a_draft_then_as_a_new_revision_of_a_sent_quote(quote, engineer):
    revision = quote.revisions.get()
    design, catalog = revision_engine_design(revision)
    plan = growth_steps(design, catalog, catalog_prices(catalog))
    first = plan.steps[0]
    assert (first.kind, first.gpus_before, first.gpus_after) == ("fill_unit", 192, 256)
    assert first.cables_moved == 0
    # A draft cannot be revised ("change it instead"): the step's lines go on the draft itself.
    quoted = quote_growth_revise(user=engineer, quote=quote, step=0)
    assert quoted.revision.pk == revision.pk
    growth = list(revision.lines.filter(plane="growth").order_by("position"))
    assert growth[0].kind == LineKind.NOTE
    assert "192 to 256 GPUs" in growth[0].description
    expected = {(p.sku, p.quantity) for p in first.parts if p.sku}
    assert {(line.sku, line.quantity) for line in growth[1:]} == expected
    # Once sent, the next step becomes the next revision, with the sent one's lines copied.
    revision.refresh_from_db()
    _drop_unpriced(revision)
    revision_send(user=engineer, revision=revision)
    revision.refresh_from_db()
    assert revision.status == QuoteStatus.SENT
    second = quote_growth_revise(user=engineer, quote=quote, step=len(plan.steps) - 1)
    assert second.revision.number == revision.number + 1
    assert second.revision.status == QuoteStatus.DRAFT
    assert second.revision.lines.filter(plane="growth", kind=LineKind.NOTE).count() == 2


def test_a_step_the_plan_does_not_have_is_refused(quote, engineer):
    with pytest.raises(Exception, match="growth steps"):
        quote_growth_revise(user=engineer, quote=quote, step=99)


def test_spares_are_refused_on_a_sent_revision(quote, engineer):
    revision = quote.revisions.get()
    _drop_unpriced(revision)
    revision_send(user=engineer, revision=revision)
    revision.refresh_from_db()
    with pytest.raises(ActionNotAllowed):
        revision_spares_add(user=engineer, revision=revision)


def test_the_buttons(client, quote, engineer):
    client.force_login(engineer)
    page = client.get(reverse("quotes:quote-detail", args=[quote.pk])).content.decode()
    assert 'data-testid="add-spares"' in page
    response = client.post(reverse("quotes:meaning-spares", args=[quote.pk]))
    assert response.status_code == 302
    assert quote.revisions.get().lines.filter(tier="spares", is_optional=True).exists()
    response = client.post(reverse("quotes:meaning-growth", args=[quote.pk]), {"step": "0"})
    assert response.status_code == 302
    assert quote.revisions.get().lines.filter(plane="growth").exists()
    # The design page's section offers both for the design's quotes.
    design_url = reverse("planner:design-meaning", args=[quote.design_id])
    section = client.get(design_url, HTTP_HX_REQUEST="true").content.decode()
    assert reverse("quotes:meaning-spares", args=[quote.pk]) in section
    assert reverse("quotes:meaning-growth", args=[quote.pk]) in section
