"""One set of numbers (issue 24, item 5): every figure of a design is computed once here, from the
stored typed result (`engine.result.DesignResult`) and the quote's priced revision, and
the design page, the proposal PDF (both languages), the quote page and the API must each show
that same value. Found before: racks counted one way on the design page (compute racks) and
another in the PDF's appendix (every rack, network racks included); "grows with existing
spines" on a design with no spines; a 16,384-GPU appendix with no rack in it; a connector
warning left standing once the BOM carries the parts that fit both cages.

Real pages, real WeasyPrint output read back with pypdf; the smallest designs that show each."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext, ngettext
from rest_framework.test import APIClient

from customers.models import Customer
from engine.result import DesignResult, result_from_json
from planner.document import RACKS_IN_PDF
from planner.handover.elevations import design_elevations, network_rack_count, rack_layouts
from planner.services import design_create, design_engine
from quotes.pdf import render_document
from quotes.services import quote_create
from tests.conftest import load_seed_catalog
from tests.quotes.test_documents import make_quote, pdf_text

pytestmark = pytest.mark.django_db

# 256 GPUs rail-optimized on 64-port leaves: two tiers (leaves and spines), 8 compute racks and
# 2 network racks, few enough to draw every rack in the PDF.
TWO_TIERS = {"gpus": 256, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
             "leaf": "64x400"}  # fmt: skip
# 64 GPUs on one tier: no spine to grow with.
ONE_TIER = {**TWO_TIERS, "gpus": 64}
# A QSFP56 NIC on QSFP28 leaf ports: the engine warns about the connectors, then picks AOCs
# that fit both cages (MFA1A00-C010).
CONNECTORS = {"gpus": 16, "gpus_per_server": 8, "nic": "MCX623106AN-CDAT",
              "leaf": "MSN2700-CS2F"}  # fmt: skip


def flat(text: str) -> str:
    return "".join(text.split())


@pytest.fixture
def seed(db):
    load_seed_catalog()


def customer(user):
    return Customer.objects.create(name_en="Acme AI Lab", team=user.membership.team)


def stored(design) -> DesignResult:
    return result_from_json(design.result)


def page_value(html: str, testid: str) -> str:
    """The `data-value` of the element with `data-testid`."""
    import re

    match = re.search(rf'data-testid="{re.escape(testid)}"[^>]*data-value="([^"]*)"', html)
    assert match, testid
    return match.group(1)


# Long on purpose (over 80 lines): one revision's figures read off every surface side by side,
# so that a surface that drifts shows against all the others.
@pytest.mark.slow
def test_every_surface_shows_the_stored_figures(seed, engineer, client):
    quote = make_quote(engineer, request=TWO_TIERS)
    design = quote.design
    revision = quote.current_revision
    result = stored(design)
    # Each figure, once.
    racks = result.racks
    tiers = {(plane.name, tier.role): tier.count for plane in result.planes for tier in plane.tiers}
    cables, optics = result.cables_total, result.transceivers_total
    power, power_max = result.power_w, result.power_max_w
    subtotal, tax, total = revision.subtotal, revision.tax, revision.total
    per_gpu = (subtotal / result.gpus).quantize(Decimal("0.01"))
    network = network_rack_count(design_elevations(design_engine(design=design)))
    assert (racks, network, result.tiers) == (8, 2, 2)
    assert total > 0
    assert tax > 0

    # The design page.
    client.force_login(engineer)
    html = client.get(reverse("planner:design-detail", args=[design.pk])).content.decode()
    assert page_value(html, "racks") == str(racks)
    for (plane, role), count in tiers.items():
        assert page_value(html, f"tier-{plane}-{role}") == str(count)
    assert page_value(html, "cables-total") == str(cables)
    assert page_value(html, "transceivers-total") == str(optics)
    assert page_value(html, "power-typical") == str(power)
    assert page_value(html, "power-max") == str(power_max)

    # The API: the stored result as it is, and the revision's totals.
    api = APIClient()
    api.force_authenticate(engineer)
    body = api.get(f"/api/v1/designs/{design.pk}/").json()["result"]
    assert (body["racks"], body["cables_total"], body["transceivers_total"]) == (
        racks, cables, optics,
    )  # fmt: skip
    assert (body["power_w"], body["power_max_w"]) == (power, power_max)
    api_tiers = {(p["name"], t["role"]): t["count"] for p in body["planes"] for t in p["tiers"]}
    assert api_tiers == tiers
    money = api.get(f"/api/v1/quotes/{quote.pk}/").json()["current_revision"]
    assert [Decimal(money[k]) for k in ("subtotal", "tax", "total")] == [subtotal, tax, total]

    # The quote page: the same totals, and a line per switch tier with its count.
    page = client.get(reverse("quotes:quote-detail", args=[quote.pk])).content.decode()
    for testid, amount in (("subtotal", subtotal), ("total", total)):
        assert f'data-testid="{testid}">{amount:,.2f}<' in page
    assert f"{tax:,.2f}" in page
    switch_lines = {
        line.tier: line.quantity for line in revision.lines.all() if line.tier in ("leaf", "spine")
    }
    assert switch_lines == {role: count for (_plane, role), count in tiers.items()}

    # The proposal, in both languages.
    for language in ("en", "zh-hans"):
        with translation.override(language):
            compute_label = gettext("Compute racks")
            appendix = ngettext("%(n)s compute rack", "%(n)s compute racks", racks) % {"n": racks}
            net = ngettext("%(n)s network rack", "%(n)s network racks", network) % {"n": network}
            cable_text = ngettext("%(total)s cable", "%(total)s cables", cables) % {
                "total": f"{cables:,}"
            }
            module_text = ngettext("%(total)s module", "%(total)s modules", optics) % {
                "total": f"{optics:,}"
            }
            typical = gettext("Network power, typical")
            maximum = gettext("Network power, maximum")
            per_gpu_label = gettext("Price per GPU, before tax")
        _reader, text = pdf_text(
            render_document(revision, kind="proposal", language=language).content
        )
        text = flat(text)
        assert flat(f"{compute_label} {racks}") in text
        assert flat(appendix) in text
        assert flat(net) in text
        # Nowhere does the PDF count the racks as one figure of compute and network together.
        assert flat(f"{racks + network} ") not in flat(appendix)
        assert flat(f"{cable_text} {module_text}") in text
        assert flat(f"{typical} {power:,} W") in text
        assert flat(f"{maximum} {power_max:,} W") in text
        assert flat(f"{per_gpu_label} {per_gpu:,.2f} {revision.currency}") in text
        # Tax is printed per VAT rate (goods, services), summing to the revision's.
        rates = [Decimal(at_rate["tax"]) for at_rate in revision.tax_breakdown]
        assert sum(rates) == tax
        for amount in (subtotal, *rates, total):
            assert f"{amount:,.2f}" in text
        for (_plane, role), count in tiers.items():
            switch = next(t for p in result.planes for t in p.tiers if t.role == role)
            assert flat(f"{switch.sku or switch.switch}") in text
            assert str(count) in text


@pytest.mark.slow
def test_growth_on_one_tier_speaks_of_no_spines(seed, engineer, client):
    design = design_create(owner=engineer, name="One tier", request_data=ONE_TIER)
    result = stored(design)
    assert result.tiers == 1
    quote = quote_create(user=engineer, design=design, customer=customer(engineer))
    client.force_login(engineer)
    gpus = f"{result.growth.max_gpus_current_spines:,}"
    for language, spines in (("en", "spines"), ("zh-hans", "脊")):
        with translation.override(language):
            free_ports = gettext("Growth on the switches' free ports")
            with_spines = gettext("Growth without replacing spines")
        html = client.get(
            reverse("planner:design-detail", args=[design.pk]), HTTP_ACCEPT_LANGUAGE=language
        ).content.decode()
        text = html[html.index('id="bw-h"') : html.index('id="media-h"')]
        assert spines not in text
        assert f"{escape(free_ports)}: {gpus}" in text
        _reader, pdf = pdf_text(
            render_document(quote.current_revision, kind="proposal", language=language).content
        )
        assert flat(with_spines) not in flat(pdf)
        assert flat(f"{free_ports} {gpus}") in flat(pdf)
    # Two tiers do have spines, and say so.
    two = stored(design_create(owner=engineer, name="Two tiers", request_data=TWO_TIERS))
    from planner.presenters import growth_rows

    with translation.override("en"):
        rows = growth_rows(two)
    assert [row.gpus for row in rows] == [
        two.growth.max_gpus_current_spines, two.growth.max_gpus_same_tiers,
    ]  # fmt: skip
    assert "spines" in rows[0].label


@pytest.mark.slow
def test_connector_warning_is_gone_once_the_parts_fit_both_cages(seed, engineer, client):
    design = design_create(owner=engineer, name="Connectors", request_data=CONNECTORS)
    result = stored(design)
    # The engine wrote the warning before choosing the media...
    assert "form_factor_mismatch" in [w.code for w in result.warnings]
    # ...and then chose a cable whose ends fit the QSFP56 NIC and the QSFP28 leaf.
    [link] = [link for link in result.links if link.a == "server"]
    assert (link.end_a.form_factor, link.end_b.form_factor) == ("QSFP56", "QSFP28")
    assert link.cable_sku
    assert not link.catalog_gap
    client.force_login(engineer)
    html = client.get(reverse("planner:design-detail", args=[design.pk])).content.decode()
    assert "Check that the chosen cables have the right connector" not in html
    assert "QSFP56 ports; leaf" not in html
    quote = quote_create(user=engineer, design=design, customer=customer(engineer))
    _reader, text = pdf_text(render_document(quote.current_revision, kind="proposal",
                                             language="en").content)  # fmt: skip
    assert flat("Check that the chosen cables have the right connector") not in flat(text)
    assert flat("QSFP56 ports; leaf") not in flat(text)


@pytest.mark.slow
def test_a_large_designs_rack_appendix_draws_its_rack_layouts(seed, engineer):
    # 1,024 GPUs: 32 compute racks and more network racks than the PDF draws one by one.
    request = {**TWO_TIERS, "gpus": 1024}
    quote = make_quote(engineer, request=request)
    design = quote.design
    result = stored(design)
    elevations = design_elevations(design_engine(design=design))
    assert len(elevations.racks) > RACKS_IN_PDF
    layouts = rack_layouts(elevations)
    assert sum(layout.count for layout in layouts) == len(elevations.racks)
    assert len(layouts) <= RACKS_IN_PDF
    _reader, text = pdf_text(render_document(quote.current_revision, kind="proposal",
                                             language="en").content)  # fmt: skip
    appendix = flat(text[text.index("Appendix: rack elevations") :])
    assert flat(f"{result.racks} compute racks") in appendix
    # Every layout is drawn, named by its first rack with how many racks share it.
    for layout in layouts:
        assert flat(f"{layout.rack.name} ×{layout.count:,}") in appendix
    assert "Too many racks" not in appendix
