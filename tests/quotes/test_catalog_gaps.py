"""A catalog gap never withholds a design: a BOM entry the engine made up because no catalog item
fits (`"catalog_gap": true`, no SKU) becomes a quote line to be priced. It shows as such on the
page, in the API and in the PDF; the totals leave it out; the quote can be neither submitted nor
sent until the sales engineer prices it or replaces it with a catalog SKU.

Amounts are worked from the seed prices in tests/quotes/factories.py (CNY, VAT 13%); the quote
without the gap line is the one of test_services.py: subtotal 321,450.00, total 359,108.50."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from catalog.models import Product
from planner.models import Design
from quotes import services
from quotes.models import AuditAction, AuditEvent, LineKind, QuoteStatus
from quotes.pricing import PriceSource
from quotes.services import QuoteHasUnpricedLines, QuoteInvalid
from tests.quotes.factories import DesignFactory
from tests.quotes.test_services import SUBTOTAL, TAX, TOTAL

pytestmark = pytest.mark.django_db
D = Decimal
PROBLEM = "application/problem+json"
GAP_DESCRIPTION = "800G OSFP DR4 module"
# The same text in Chinese (its template's msgstr in locale/zh_Hans): a quote line keeps both.
GAP_DESCRIPTION_ZH = "800G OSFP DR4 光模块"
PRICE = D("2350.00")  # what the sales engineer enters per module
# 128 modules x 2,350.00 = 300,800.00; subtotal 321,450.00 + 300,800.00 = 622,250.00;
# VAT per kind: goods (262,450 + 300,800) x 13% = 563,250 x 13% = 73,222.50, services
# 59,000 x 6% = 3,540.00; tax 76,762.50; total 622,250.00 + 76,762.50 = 699,012.50.
PRICED_LINE_TOTAL = D("300800.00")
PRICED_SUBTOTAL = D("622250.00")
PRICED_TAX = D("76762.50")
PRICED_TOTAL = D("699012.50")
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
    # 7 catalog lines + the gap + POC, pilot, full and support = 12 lines.
    assert revision.lines.count() == 12
    line = gap_line(gap_quote)
    assert (line.kind, line.sku, line.description, line.quantity) == (
        LineKind.PRODUCT, "", GAP_DESCRIPTION, 128,
    )  # fmt: skip
    assert (line.plane, line.tier) == ("compute", "leaf-spine")
    assert line.position == 80  # after the 7 catalog lines (10..70), before the services
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


def test_the_gap_is_described_in_both_languages(catalog, engineer, customer):
    customer.preferred_language = "zh-hans"
    customer.save()
    # A template the catalogue translates, to show the Text dict is put through gettext; an
    # entry without one keeps its English description, in both. Whatever the customer's
    # language, the line keeps both texts: the document's language is chosen when it is printed.
    cage = {"template": "%(plug)s in a %(ff)s cage, at %(speed)sG",
            "params": {"plug": "OSFP", "ff": "OSFP", "speed": "800"}}  # fmt: skip
    design = with_gap(
        DesignFactory(owner=engineer),
        gap_entry(description_text=cage, description="OSFP in a OSFP cage, at 800G"),
        gap_entry(description_text=None, description="Cat8 cord, 40 m", quantity=4),
    )
    quote = services.quote_create(user=engineer, design=design, customer=customer)
    descriptions = list(
        current(quote)
        .lines.filter(sku="")
        .order_by("position")
        .values_list("description", "description_zh")
    )
    assert descriptions == [
        ("OSFP in a OSFP cage, at 800G", "OSFP 插入 OSFP 端口笼，以 800G 运行"),
        ("Cat8 cord, 40 m", "Cat8 cord, 40 m"),
    ]


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
    assert refused.value.message.startswith(f"还有 1 行待定价（{GAP_DESCRIPTION_ZH}）")
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
    assert revision.subtotal == SUBTOTAL + D("119168.00")  # 321,450 + 119,168 = 440,618.00
    services.revision_submit(user=engineer, revision=revision)
    assert current(gap_quote).status == QuoteStatus.APPROVED


def test_an_approved_revision_is_frozen_and_withdrawing_it_reopens_the_price(gap_quote, engineer):
    line = gap_line(gap_quote)
    services.revision_line_update(user=engineer, line=line, override_unit_price=PRICE)
    approved = services.revision_submit(user=engineer, revision=current(gap_quote))
    assert approved.status == QuoteStatus.APPROVED
    # Issue 24: what was approved does not change; the price stays as approved.
    with pytest.raises(services.QuoteNotEditable, match="Withdraw it"):
        services.revision_line_update(user=engineer, line=line, override_unit_price=None)
    line.refresh_from_db()
    assert line.override_unit_price == PRICE
    draft = services.revision_withdraw(user=engineer, revision=approved)
    approved.refresh_from_db()
    assert (approved.status, draft.status, draft.number) == (
        QuoteStatus.WITHDRAWN, QuoteStatus.DRAFT, 1,
    )  # fmt: skip
    copied = draft.lines.get(sku="", kind=line.kind, description=line.description)
    services.revision_line_update(user=engineer, line=copied, override_unit_price=None)
    copied.refresh_from_db()
    assert copied.to_be_priced
    line.refresh_from_db()
    assert line.override_unit_price == PRICE  # the withdrawn revision kept its own


# --- Pages ----------------------------------------------------------------------------------------


def test_page_marks_the_line_and_refuses_submit_with_the_message(client, gap_quote, engineer):
    client.force_login(engineer)
    detail = reverse("quotes:quote-detail", args=[gap_quote.pk])
    page = client.get(detail, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-testid="to-be-priced"' in page
    assert "To be priced" in page
    assert "The totals exclude 1 line to be priced." in page
    assert 'data-testid="unpriced-callout"' in page
    assert f"{TOTAL:,.2f}" in page  # 359,108.50: the catalog lines only
    chinese = client.get(detail, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "待定价" in chinese
    assert "合计不含 1 行待定价项目。" in chinese

    for action in ("submit", "send"):
        url = reverse("quotes:revision-action", args=[gap_quote.pk, 0, action])
        response = client.post(url, follow=True, HTTP_ACCEPT_LANGUAGE="en")
        assert "1 line is still to be priced (800G OSFP DR4 module)" in response.content.decode()
    url = reverse("quotes:revision-action", args=[gap_quote.pk, 0, "submit"])
    response = client.post(url, follow=True, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert f"还有 1 行待定价（{GAP_DESCRIPTION_ZH}）" in response.content.decode()
    assert current(gap_quote).status == QuoteStatus.DRAFT

    line = gap_line(gap_quote)
    client.post(
        reverse("quotes:line-update", args=[gap_quote.pk, line.pk]),
        {"quantity": "128", "discount_percent": "0", "override_unit_price": "2350.00"},
    )
    line.refresh_from_db()
    assert line.line_total == PRICED_LINE_TOTAL  # 128 x 2,350.00
    page = client.get(detail, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-testid="to-be-priced"' not in page
    assert f"{PRICED_TOTAL:,.2f}" in page  # 699,012.50
    client.post(reverse("quotes:revision-action", args=[gap_quote.pk, 0, "send"]))
    revision = current(gap_quote)
    assert revision.status == QuoteStatus.SENT
    # The customer's page lists the priced line by its description (it has no SKU).
    client.logout()
    token = revision.share_links.get().token
    share = client.get(reverse("share:proposal", args=[token])).content.decode()
    assert GAP_DESCRIPTION in share
    assert f"{PRICED_TOTAL:,.2f}" in share


def test_page_replaces_the_line_with_a_sku(client, gap_quote, engineer):
    client.force_login(engineer)
    line = gap_line(gap_quote)
    client.post(
        reverse("quotes:line-update", args=[gap_quote.pk, line.pk]),
        {"quantity": "128", "discount_percent": "0", "override_unit_price": "", "sku": SR4},
    )
    line.refresh_from_db()
    assert (line.sku, line.line_total) == (SR4, D("119168.00"))  # 128 x 931.00 (tier)
    response = client.post(
        reverse("quotes:line-update", args=[gap_quote.pk, line.pk]),
        {"quantity": "128", "discount_percent": "0", "sku": "NO-SUCH-SKU"},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert "No product with SKU NO-SUCH-SKU." in response.content.decode()


# --- API ------------------------------------------------------------------------------------------


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_api_shows_the_line_to_be_priced_refuses_then_prices_it(
    catalog, engineer, other_engineer, customer
):
    design = with_gap(DesignFactory(owner=engineer))
    client = as_user(engineer)
    response = client.post(
        "/api/v1/quotes/", {"design": design.pk, "customer": customer.pk}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    revision = body["current_revision"]
    [line] = [line for line in revision["lines"] if line["to_be_priced"]]
    assert (line["sku"], line["description"], line["quantity"]) == ("", GAP_DESCRIPTION, 128)
    assert (line["unit_price"], line["line_total"], line["list_unit_price"]) == (None, None, None)
    assert line["price_source"] == "unpriced"  # fits the 10-character column
    assert not any(other["to_be_priced"] for other in revision["lines"] if other is not line)
    # The catalog lines only: test_services.py's total, 359,108.50.
    assert (revision["unpriced_lines"], revision["total"]) == (1, "359108.50")

    url = f"/api/v1/quotes/{body['id']}/"
    for action in ("submit", "send"):
        response = client.post(f"{url}{action}/")
        assert response.status_code == 400
        assert response["Content-Type"] == PROBLEM
        problem = response.json()
        assert problem["code"] == "quote_has_unpriced_lines"
        assert problem["detail"].startswith("1 line is still to be priced (800G OSFP DR4 module)")
        assert problem["errors"] == {"lines": [problem["detail"]]}
    response = client.post(f"{url}submit/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.json()["errors"]["lines"][0].startswith("还有 1 行待定价")

    line_url = f"{url}lines/{line['id']}/"
    assert as_user(other_engineer).patch(line_url, {}, format="json").status_code == 404
    response = client.patch(line_url, {"override_unit_price": "-1"}, format="json")
    assert response.status_code == 400
    assert "override_unit_price" in response.json()["errors"]
    response = client.patch(line_url, {"override_unit_price": "2350.00"}, format="json")
    assert response.status_code == 200, response.content
    revision = response.json()
    [priced] = [x for x in revision["lines"] if x["id"] == line["id"]]
    assert (priced["to_be_priced"], priced["unit_price"], priced["line_total"]) == (
        False, "2350.00", "300800.00",  # 128 x 2,350.00
    )  # fmt: skip
    assert (revision["unpriced_lines"], revision["total"]) == (0, "699012.50")  # PRICED_TOTAL
    assert client.post(f"{url}submit/").json()["status"] == "approved"
    response = client.post(f"{url}send/")
    assert response.status_code == 200
    assert response.json()["revision"]["status"] == "sent"
    # A sent revision no longer changes.
    assert client.patch(line_url, {"quantity": 1}, format="json").status_code == 409


def test_api_replaces_the_line_with_a_sku(gap_quote, engineer):
    client = as_user(engineer)
    line_url = f"/api/v1/quotes/{gap_quote.pk}/lines/{gap_line(gap_quote).pk}/"
    response = client.patch(line_url, {"sku": "NO-SUCH-SKU"}, format="json")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"sku"}
    response = client.patch(line_url, {"sku": SR4}, format="json")
    assert response.status_code == 200, response.content
    [line] = [x for x in response.json()["lines"] if x["sku"] == SR4]
    # 128 modules at the >= 100 tier: 128 x 931.00 = 119,168.00.
    assert (line["to_be_priced"], line["unit_price"], line["line_total"]) == (
        False, "931.00", "119168.00",
    )  # fmt: skip


# --- The proposal PDF (real WeasyPrint, read back) ------------------------------------------------


def _totals_note(language: str, lines: int) -> str:
    if language == "en":
        return f"The totals exclude {lines} line{'' if lines == 1 else 's'} to be priced."
    return f"合计不含{lines}行待定价项目。"


@pytest.mark.slow
@pytest.mark.parametrize(("language", "marker"), [("en", "To be priced"), ("zh-hans", "待定价")])
def test_proposal_pdf_marks_the_line_to_be_priced(engineer, language, marker):
    from customers.models import Customer
    from planner.services import design_create
    from quotes.documents import document_render, document_request
    from quotes.models import DocumentStatus
    from tests.conftest import load_seed_catalog
    from tests.quotes.test_documents import REQUEST_64, pdf_text

    load_seed_catalog()
    design = design_create(
        owner=engineer, name="Training cluster", request_data={**REQUEST_64, "gpus": 32}
    )
    # The engine may itself stand generic lines in for catalog gaps in this design; ours is
    # one more.
    gaps = sum(1 for entry in design.result["bom"] if entry.get("catalog_gap") is True) + 1
    with_gap(design)
    # A stored result edited by hand is not what the engine gives: the render would refuse to
    # derive its cabling from it (issue 24, `DesignEngineChanged`). Stored as a design saved
    # before catalog snapshots were kept, whose catalog has changed since, it is checked by its
    # engine version only, so the hand-made gap reaches the PDF.
    Design.objects.filter(pk=design.pk).update(
        sizing_snapshot=None, catalog_version="before-snapshots"
    )
    design.refresh_from_db()
    customer = Customer.objects.create(
        name_en="Acme AI Lab", preferred_language="en", team=engineer.membership.team
    )
    quote = services.quote_create(user=engineer, design=design, customer=customer)
    revision = current(quote)
    assert revision.unpriced_line_count == gaps
    document = document_request(user=engineer, revision=revision, language=language)
    document = document_render(document_id=document.pk)
    assert document.status == DocumentStatus.READY, document.error
    _reader, text = pdf_text(document.file.read())
    # The line's row: no SKU, its description (in the document's language, whatever the
    # customer's), quantity, the marker instead of a unit price, and no amount.
    description = GAP_DESCRIPTION if language == "en" else GAP_DESCRIPTION_ZH
    assert f"{description} 128 {marker} —" in text
    flat = "".join(text.split())  # the PDF wraps lines anywhere in Chinese text
    assert _totals_note(language, gaps).replace(" ", "") in flat
    # The totals printed are those of the priced lines alone.
    assert f"{revision.total:,.2f}" in text
