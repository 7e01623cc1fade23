"""A catalog gap never withholds a design: a BOM entry the engine made up because no catalog item
fits (`"catalog_gap": true`, no SKU) becomes a quote line to be priced. It shows as such on the
page, in the API and in the PDF; the totals leave it out; the quote can be neither submitted nor
sent until the sales engineer prices it or replaces it with a catalog SKU.

Amounts are worked from the seed prices in tests/quotes/factories.py (CNY, VAT 13%); the quote
without the gap line is the one of test_services.py: subtotal 445,900.00, total 503,867.00."""

from decimal import Decimal

import pytest
from django.utils import translation

from catalog.models import Product
from quotes import services
from quotes.models import AuditAction, AuditEvent, LineKind, QuoteStatus
from quotes.pricing import PriceSource
from quotes.services import QuoteHasUnpricedLines, QuoteInvalid
from tests.quotes.factories import DesignFactory
from tests.quotes.test_services import SUBTOTAL, TAX, TOTAL

pytestmark = pytest.mark.django_db
D = Decimal
GAP_DESCRIPTION = "800G OSFP DR4 module"
PRICE = D("2350.00")  # what the sales engineer enters per module
# 128 modules x 2,350.00 = 300,800.00; subtotal 445,900.00 + 300,800.00 = 746,700.00;
# VAT 746,700.00 x 13% = 97,071.00; total 746,700.00 + 97,071.00 = 843,771.00.
PRICED_LINE_TOTAL = D("300800.00")
PRICED_SUBTOTAL = D("746700.00")
PRICED_TAX = D("97071.00")
PRICED_TOTAL = D("843771.00")
SR4 = "EZMAX-QSFP28-100G-SR4"  # list 980.00; tier >= 100: 931.00


def gap_entry(**changes):
    """A BOM entry as the engine's `design_to_dict` writes it for a catalog gap."""
    entry = {
        "sku": "",
        "description": GAP_DESCRIPTION,
        "description_text": {
            "template": "%(speed)sG %(form)s %(standard)s module",
            "params": {"speed": "800", "form": "OSFP", "standard": "DR4"},
        },
        "quantity": 128,
        "power_w": 0,
        "rack_units": 0,
        "plane": "compute",
        "tier": "leaf-spine",
        "category": "transceiver",
        "catalog_gap": True,
    }
    return {**entry, **changes}


def with_gap(design, *entries):
    """The sized design's stored result with gap entries added; every other entry without the
    key says `catalog_gap: false`, except the last, which keeps lacking it (as results stored
    before the engine wrote it do)."""
    bom = design.result["bom"]
    for entry in bom[:-1]:
        entry.setdefault("catalog_gap", False)
    bom.extend(entries or [gap_entry()])
    design.save()
    return design


@pytest.fixture
def gap_quote(catalog, engineer, customer):
    design = with_gap(DesignFactory(owner=engineer))
    return services.quote_create(user=engineer, design=design, customer=customer)


def current(quote):
    quote.refresh_from_db()
    return quote.current_revision


def gap_line(quote):
    return current(quote).lines.get(sku="")


# --- Services -------------------------------------------------------------------------------------


def test_a_catalog_gap_becomes_a_line_to_be_priced(gap_quote):
    revision = current(gap_quote)
    # 5 catalog lines + the gap + POC, pilot, full and support = 10 lines.
    assert revision.lines.count() == 10
    line = gap_line(gap_quote)
    assert (line.kind, line.sku, line.description, line.quantity) == (
        LineKind.PRODUCT, "", GAP_DESCRIPTION, 128,
    )  # fmt: skip
    assert (line.plane, line.tier) == ("compute", "leaf-spine")
    assert line.position == 60  # after the 5 catalog lines (10..50), before the services
    assert line.to_be_priced
    assert line.price_source == PriceSource.TO_BE_PRICED
    assert (line.frozen_list_price, line.frozen_contract_price, line.override_unit_price) == (
        None, None, None,
    )  # fmt: skip
    assert line.line_total == D("0")
    # The totals are those of the catalog lines alone, and say one line is left out.
    assert (revision.subtotal, revision.tax, revision.total) == (SUBTOTAL, TAX, TOTAL)
    assert revision.unpriced_line_count == 1
    assert revision.status == QuoteStatus.DRAFT


def test_the_gap_is_described_in_the_customers_language(catalog, engineer, customer):
    customer.preferred_language = "zh-hans"
    customer.save()
    # A template the catalogue translates, to show the Text dict is put through gettext; an
    # entry without one keeps its English description.
    cage = {"template": "%(plug)s in a %(ff)s cage, at %(speed)sG",
            "params": {"plug": "OSFP", "ff": "OSFP", "speed": "800"}}  # fmt: skip
    design = with_gap(
        DesignFactory(owner=engineer),
        gap_entry(description_text=cage, description="OSFP in a OSFP cage, at 800G"),
        gap_entry(description_text=None, description="Cat8 cord, 40 m", quantity=4),
    )
    quote = services.quote_create(user=engineer, design=design, customer=customer)
    descriptions = list(
        current(quote).lines.filter(sku="").order_by("position").values_list("description")
    )
    assert descriptions == [("OSFP 插入 OSFP 端口笼，以 800G 运行",), ("Cat8 cord, 40 m",)]


def test_submit_and_send_are_refused_until_the_line_is_priced(gap_quote, engineer):
    revision = current(gap_quote)
    for refuse in (services.revision_submit, services.revision_send):
        with pytest.raises(QuoteHasUnpricedLines) as refused:
            refuse(user=engineer, revision=revision)
        message = refused.value.message
        assert message.startswith("1 line is still to be priced (800G OSFP DR4 module)")
        assert refused.value.errors == {"lines": message}
        assert refused.value.http_status == 400
    with translation.override("zh-hans"), pytest.raises(QuoteHasUnpricedLines) as refused:
        services.revision_submit(user=engineer, revision=revision)
    assert refused.value.message.startswith("还有 1 行待定价（800G OSFP DR4 module）")
    assert current(gap_quote).status == QuoteStatus.DRAFT
    assert not revision.share_links.exists()

    line = gap_line(gap_quote)
    services.revision_line_update(user=engineer, line=line, override_unit_price=PRICE)
    line = gap_line(gap_quote)
    assert not line.to_be_priced
    assert (line.price_source, line.unit_price) == (PriceSource.OVERRIDE, PRICE)
    assert line.line_total == PRICED_LINE_TOTAL  # 128 x 2,350.00
    revision = current(gap_quote)
    assert (revision.subtotal, revision.tax, revision.total) == (
        PRICED_SUBTOTAL, PRICED_TAX, PRICED_TOTAL,
    )  # fmt: skip
    assert revision.unpriced_line_count == 0
    event = AuditEvent.objects.filter(action=AuditAction.PRICE_OVERRIDE).get()
    assert (event.before["override_unit_price"], event.after["override_unit_price"]) == (
        None, "2350.00",
    )  # fmt: skip
    services.revision_submit(user=engineer, revision=revision)
    assert current(gap_quote).status == QuoteStatus.APPROVED  # no policy asks for approval
    services.revision_send(user=engineer, revision=revision)
    assert current(gap_quote).status == QuoteStatus.SENT


def test_replacing_the_line_with_a_catalog_sku(gap_quote, engineer):
    line = gap_line(gap_quote)
    with pytest.raises(QuoteInvalid) as refused:
        services.revision_line_update(user=engineer, line=line, sku="NO-SUCH-SKU")
    assert set(refused.value.errors) == {"sku"}
    assert gap_line(gap_quote).to_be_priced

    services.revision_line_update(user=engineer, line=line, sku=SR4)
    line.refresh_from_db()
    product = Product.objects.get(sku=SR4)
    assert (line.sku, line.kind, line.description, line.quantity) == (
        SR4, LineKind.PRODUCT, product.name_en, 128,
    )  # fmt: skip
    assert not line.to_be_priced
    assert line.frozen_list_price == D("980.00")
    # 128 modules reach the >= 100 tier: 931.00 each, 128 x 931.00 = 119,168.00.
    assert (line.price_source, line.unit_price, line.line_total) == (
        PriceSource.TIER, D("931.00"), D("119168.00"),
    )  # fmt: skip
    revision = current(gap_quote)
    assert revision.subtotal == SUBTOTAL + D("119168.00")  # 565,068.00
    services.revision_submit(user=engineer, revision=revision)
    assert current(gap_quote).status == QuoteStatus.APPROVED


def test_a_line_left_unpriced_sends_an_approved_revision_back_to_draft(gap_quote, engineer):
    line = gap_line(gap_quote)
    services.revision_line_update(user=engineer, line=line, override_unit_price=PRICE)
    services.revision_submit(user=engineer, revision=current(gap_quote))
    assert current(gap_quote).status == QuoteStatus.APPROVED
    services.revision_line_update(user=engineer, line=line, override_unit_price=None)
    assert gap_line(gap_quote).to_be_priced
    assert current(gap_quote).status == QuoteStatus.DRAFT
