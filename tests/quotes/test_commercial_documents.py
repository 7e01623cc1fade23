"""Documents a customer can sign and exports people use: the draft mark on every page of a PDF of
a revision not approved (read back as text and as pixels), the sales engineer on the cover and
the share page, the quote spreadsheet for procurement and the priced BOM with its cabling sheet.

Amounts are those of test_services.py's quote: products 262,450.00 at 13% (34,118.50), services
59,000.00 at 6% (3,540.00); subtotal 321,450.00, total 359,108.50."""

import io
import re
import shutil
import subprocess
from decimal import Decimal

import pytest
from django.urls import reverse
from openpyxl import load_workbook
from PIL import Image

from catalog.models import Price
from engine.cabling import CablingRow
from engine.catalog import MediaKind
from planner.document import CABLING_ROWS_IN_PDF
from planner.exports import files as exports
from quotes import services
from quotes.models import Document, Quote, QuoteRevision, QuoteStatus
from quotes.pdf import DRAFT_MARK, render_document, template_version_for
from tests.quotes.factories import small_result
from tests.quotes.test_documents import full_catalog, make_quote  # noqa: F401 (a fixture)

D = Decimal


def _page_texts(content: bytes, tmp_path) -> list[str]:
    """Each page's text as poppler reads it."""
    path = tmp_path / "doc.pdf"
    path.write_bytes(content)
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    pages = int(next(x for x in info.stdout.splitlines() if x.startswith("Pages:")).split()[1])
    return [
        subprocess.run(
            ["pdftotext", "-f", str(n), "-l", str(n), str(path), "-"],
            capture_output=True, text=True, check=True,
        ).stdout
        for n in range(1, pages + 1)
    ]  # fmt: skip


def _reddish_pixels(content: bytes, tmp_path, page: int) -> int:
    """Pixels of the page's top margin (rendered at 60 dpi: the 22 mm margin is the top 52 rows)
    tinted red the way the mark is (red well above green and blue); the running head there is
    blue and grey."""
    path = tmp_path / "doc.pdf"
    path.write_bytes(content)
    out = tmp_path / "page"
    subprocess.run(
        ["pdftoppm", "-r", "60", "-f", str(page), "-l", str(page), "-png", str(path), str(out)],
        check=True,
    )
    image = Image.open(next(tmp_path.glob("page*.png"))).convert("RGB")
    for png in tmp_path.glob("page*.png"):
        png.unlink()
    margin = image.crop((0, 0, image.width, 50))
    data = margin.tobytes()  # RGB triples
    pixels = zip(data[0::3], data[1::3], data[2::3], strict=True)
    return sum(1 for r, g, b in pixels if r > 150 and r - g > 25 and r - b > 25)


needs_poppler = pytest.mark.skipif(
    shutil.which("pdftotext") is None or shutil.which("pdftoppm") is None,
    reason="poppler-utils (pdftotext, pdftoppm) not installed",
)


@pytest.mark.slow
@needs_poppler
@pytest.mark.django_db
def test_a_revision_not_approved_prints_the_draft_mark_on_every_page(
    full_catalog,  # noqa: F811
    engineer,
    tmp_path,
):
    engineer.first_name, engineer.last_name, engineer.email = "Wei", "Zhang", "wei@ezmax.example"
    engineer.save()
    first = make_quote(engineer)
    phone = "+86 21 5555 0100"
    quote = services.quote_create(
        user=engineer, design=first.design, customer=first.customer, contact_phone=phone
    )
    revision = quote.current_revision
    draft = render_document(revision, kind="plan", language="en").content
    pages = _page_texts(draft, tmp_path)
    assert len(pages) >= 2
    for number, text in enumerate(pages, start=1):
        flat = " ".join(text.split())
        assert "DRAFT · NOT APPROVED" in flat, number
        assert "草稿 · 未审批" in flat, number
    # The cover names the sales engineer with email and phone.
    cover = " ".join(pages[0].split())
    assert "Wei Zhang · wei@ezmax.example · +86 21 5555 0100" in cover
    marked = _reddish_pixels(draft, tmp_path, page=2)

    # Approved (its 64 x 400G leaf is a catalog gap the submit would want priced first: the
    # status is what the mark follows).
    QuoteRevision.objects.filter(pk=revision.pk).update(status=QuoteStatus.APPROVED)
    revision.refresh_from_db()
    approved = render_document(revision, kind="plan", language="zh-hans").content
    for text in _page_texts(approved, tmp_path):
        assert "NOT APPROVED" not in text
        assert "未审批" not in text
    unmarked = _reddish_pixels(approved, tmp_path, page=2)
    # The mark is a framed line of about 36 characters of 10.5 pt bold: hundreds of red pixels
    # at 60 dpi (a 10.5 pt glyph is about 9 pixels high there).
    assert marked > 100 > unmarked, (marked, unmarked)


@pytest.mark.django_db
def test_a_draft_pdf_and_an_approved_one_are_different_documents(quote, engineer):
    draft_key = template_version_for(quote.current_revision)
    assert draft_key.endswith("-d")  # a marked draft under its own key
    revision = services.revision_submit(user=engineer, revision=quote.current_revision)
    assert template_version_for(revision) != draft_key
    # The dashboard and the API tell a draft from the key, an acceptance report's too.
    approved_key = template_version_for(revision)
    for key, draft in ((draft_key, True), (f"{draft_key}-a7", True),
                       (approved_key, False), (f"{approved_key}-a7", False)):  # fmt: skip
        assert Document(template_version=key).is_draft is draft, key
    assert DRAFT_MARK == "草稿 · 未审批 / DRAFT · NOT APPROVED"


@pytest.mark.django_db
def test_the_share_page_names_the_sales_engineer(quote, engineer, client):
    Quote.objects.filter(pk=quote.pk).update(
        sales_contact={"name": "Wei Zhang", "email": "wei@ezmax.example", "phone": "+86 21 5555"}
    )
    link = services.revision_send(user=engineer, revision=quote.current_revision)
    page = client.get(reverse("share:proposal", args=[link.token])).content.decode()
    assert "Wei Zhang" in page
    assert 'href="mailto:wei@ezmax.example"' in page
    assert 'href="tel:+86 21 5555"' in page


# --- Exports --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_quote_spreadsheet_for_procurement(quote, engineer, client):
    revision = quote.current_revision
    line = revision.lines.get(sku="MSN2700-CS2F")
    services.revision_line_update(user=engineer, line=line, description='=HYPERLINK("x")')
    client.force_login(engineer)
    response = client.get(reverse("quotes:revision-xlsx", args=[quote.pk, 0]))
    assert response.status_code == 200
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    by_sku = {row[1]: row for row in rows if row[1]}
    nic = by_sku["MCX623106AN-CDAT"]
    # 16 NICs x 7,800.00 = 124,800.00 at 13% VAT.
    assert (nic[4], nic[5], nic[7], nic[8]) == (16, 7800, 13, 124800)
    assert by_sku["EZMAX-SVC-INSTALL-DAY"][7] == 6  # a service: 6%
    # The hostile description is text, never a formula.
    switch_row = next(row for row in sheet.iter_rows() if row[1].value == "MSN2700-CS2F")
    assert switch_row[2].value == '=HYPERLINK("x")'
    assert switch_row[2].data_type == "s"
    totals = {row[7]: row[8] for row in rows if row[7] and isinstance(row[8], int | float)}
    assert totals["Subtotal"] == 321450  # 262,450 products + 59,000 services
    assert totals["VAT 13% on 262450.00"] == 34118.5  # 262,450 x 13%
    assert totals["VAT 6% on 59000.00"] == 3540  # 59,000 x 6%
    assert totals["Total"] == 359108.5  # 321,450 + 34,118.50 + 3,540
    facts = {row[0]: row[1] for row in rows[:7] if row[0]}
    assert facts["Currency"] == "CNY"
    assert facts["Valid until"] == "30 days from sending"


@pytest.mark.django_db
def test_bom_xlsx_has_prices_totals_and_a_cabling_sheet(catalog):
    row = CablingRow(
        plane="compute", a_device="leaf-1", a_port="swp1", b_device="=cmd|' /C calc'!A0",
        b_port="eth0", media=MediaKind.DAC, length_m=2.0, cable_sku="MCP1600-C002E30N",
        links=1, label="C-0001", speed_gbps=100, cable="MCP1600-C002E30N",
    )  # fmt: skip
    # small_result()'s hand-made BOM (tests/quotes/factories.py), not the factory's design: the
    # figures below are SMALL_BOM's. The list prices of the seed's default price list (CNY), as
    # a saved design stores them.
    listed = Price.objects.filter(price_list__is_default=True).values_list("product__sku", "amount")
    prices = exports.BomPrices(currency="CNY", price_list="CNY", unit_prices=dict(listed))
    content = exports.bom_xlsx(small_result(), title="Test", prices=prices, cabling=[row])
    workbook = load_workbook(io.BytesIO(content))
    bom = workbook["BOM"]
    header = [cell.value for cell in bom[2]]
    assert header[-3:] == ["Unit price", "Currency", "Line total"]  # for people, in English here
    rows = {r[0]: r for r in bom.iter_rows(min_row=3, values_only=True)}
    assert rows["MCX623106AN-CDAT"][8:] == (7800, "CNY", 249600)  # 32 x 7,800
    # 32 x 7,800 + 96,000 + 32 x 600 + 22,000 + 4 x 25 = 386,900.
    assert rows["Total"][9:] == ("CNY", 386900)
    cabling = workbook["Cabling"]
    values = [cell.value for cell in cabling[2]]
    assert values[exports.CABLING_COLUMNS.index("speed_gbps")] == 100
    assert values[exports.CABLING_COLUMNS.index("cable_sku")] == "MCP1600-C002E30N"
    hostile = cabling.cell(row=2, column=exports.CABLING_COLUMNS.index("b_device") + 1)
    assert hostile.data_type == "s"


@pytest.mark.django_db
def test_the_cabling_sheet_is_capped(monkeypatch):
    monkeypatch.setattr(exports, "CABLING_ROWS_IN_XLSX", 3)
    row = CablingRow(
        plane="compute", a_device="a", a_port="1", b_device="b", b_port="2", media=MediaKind.DAC,
        length_m=1.0, cable_sku="X", links=1, label="L", speed_gbps=100, cable="X",
    )  # fmt: skip
    content = exports.bom_xlsx({}, title="T", prices=None, cabling=[row] * 10)
    sheet = load_workbook(io.BytesIO(content))["Cabling"]
    assert sheet.max_row == 1 + 3 + 1  # header, 3 cables, the note
    assert "More than 3 cables" in sheet.cell(row=5, column=1).value


@pytest.mark.slow
@needs_poppler
@pytest.mark.django_db
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_no_table_leaves_a_lone_row_on_a_page(
    full_catalog,  # noqa: F811
    engineer,
    tmp_path,
    language,
):
    """The 64-GPU proposal prints its cabling schedule in the body over several pages: its first
    and last pages once held a single row each, under a header of their own. The totals of the
    priced BOM once opened a page apart from the total before tax."""
    # An SN5600 leaf (64 x 800G OSFP) takes two 400G NIC ports per cage: 48 cables, under
    # planner.document.CABLING_ROWS_IN_PDF, so the schedule is printed in the body.
    request = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
               "leaf": "MSN5600-VS2FC"}  # fmt: skip
    quote = make_quote(engineer, request=request)
    result = quote.design.result
    assert result["cables_total"] <= CABLING_ROWS_IN_PDF
    content = render_document(quote.current_revision, kind="proposal", language=language).content
    pages = _page_texts(content, tmp_path)
    labels = [re.findall(r"\bCMP-\d{7}\b", text) for text in pages]
    on_pages = [len(found) for found in labels if found]
    # One row per cable, none lost or repeated at a page break.
    assert sum(on_pages) == result["cables_total"], (on_pages, result["cables_total"])
    assert len({label for found in labels for label in found}) == result["cables_total"]
    assert len(on_pages) >= 2  # the schedule does break across pages
    assert min(on_pages) >= 3, on_pages  # the first page of it or the last: never 1 or 2 rows
    heading = "Cabling schedule" if language == "en" else "布线清单"
    first = next(n for n, found in enumerate(labels) if found)
    assert heading in pages[first]  # the heading and its first rows share a page
    total = "Total before tax" if language == "en" else "税前合计"
    grand = next(n for n, text in enumerate(pages) if total in text)
    # The total and the taxes go over with the total before tax.
    assert re.search(r"VAT|增值税", pages[grand]), pages[grand]
