"""Quote lines in both languages (issue 15, item 1 "Bilingual by design"): a line keeps the
catalog's English and Chinese names, so a quote made in one language prints in the other; the
document's language is chosen when it is rendered. The PDFs are real WeasyPrint output read back
with pypdf; the expected names come from the catalog seed (catalog/seed/catalog.json)."""

import io
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import translation
from pypdf import PdfReader
from rest_framework.test import APIClient

from catalog.models import Product
from customers.models import Customer
from quotes import services
from quotes.exports import quote_xlsx
from quotes.models import AuditAction, LineKind, QuoteLine

# 64 GPUs, rail-optimized, on an inline 64 x 400G leaf: the leaf is no catalog product, so the
# proposal's switch table and the quote's lines name it from the engine's text.
REQUEST_64 = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
              "leaf": "64x400"}  # fmt: skip
# The inline switch's text (engine.ports.INLINE_DESCRIPTION) and its msgstr in
# locale/zh_Hans/LC_MESSAGES/django.po.
INLINE_EN = "Switch, 64 x 400G (inline spec, not a catalog product)"
INLINE_ZH = "交换机，64 × 400G（手工规格，非目录产品）"
NIC = "MCX623106AN-CDAT"  # in the seed: "NVIDIA ConnectX-6 Dx 2 x 100GbE QSFP56 adapter"
NIC_ZH = "NVIDIA ConnectX-6 Dx 双口 100GbE QSFP56 网卡"


def flat(text: str) -> str:
    """Without whitespace: the PDF wraps table cells anywhere, Chinese ones between any two
    characters."""
    return "".join(text.split())


def pdf_text(content: bytes) -> str:
    reader = PdfReader(io.BytesIO(content))
    return "\n".join(page.extract_text() or "" for page in reader.pages)


def make_quote(user, *, language: str, request=REQUEST_64):
    """A quote made by `user` working in `language`, for a customer who prefers it too."""
    from planner.services import design_create

    customer = Customer.objects.create(
        name_en="Acme AI Lab",
        name_zh="极智算力实验室",
        preferred_language=language,
        team=user.membership.team,
    )
    with translation.override(language):
        design = design_create(owner=user, name="Training cluster", request_data=request)
        return services.quote_create(user=user, design=design, customer=customer)


def catalog_lines(quote) -> list[QuoteLine]:
    return [line for line in quote.current_revision.lines.all() if line.sku]


@pytest.fixture
def full_catalog(db):
    from tests.conftest import load_seed_catalog

    load_seed_catalog()


# --- documents -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("made_in", "printed_in"), [("en", "zh-hans"), ("zh-hans", "en")], ids=["en-to-zh", "zh-to-en"]
)
def test_a_quote_prints_its_lines_in_the_documents_language(
    full_catalog, engineer, made_in, printed_in
):
    from quotes.pdf import render_document

    quote = make_quote(engineer, language=made_in)
    lines = catalog_lines(quote)
    products = {p.sku: p for p in Product.objects.filter(sku__in={line.sku for line in lines})}
    # The 400G AOCs and three services (the servers' NICs are the customer's).
    assert len(products) == len({line.sku for line in lines}) >= 4
    for line in lines:  # each line keeps both of the catalog's names, whoever made it
        product = products[line.sku]
        assert (line.description, line.description_zh) == (product.name_en, product.name_zh)

    text = flat(pdf_text(render_document(quote.current_revision, kind="proposal",
                                         language=printed_in).content))  # fmt: skip
    for product in products.values():
        wanted, other = (product.name_zh, product.name_en)
        if printed_in == "en":
            wanted, other = other, wanted
        assert flat(wanted) in text, (product.sku, wanted)
        assert flat(other) not in text, (product.sku, other)
    # The inline leaf, in the switch table and on its quote line, in the document's language.
    wanted, other = (INLINE_ZH, INLINE_EN) if printed_in == "zh-hans" else (INLINE_EN, INLINE_ZH)
    assert text.count(flat(wanted)) >= 2
    assert flat(other) not in text


@pytest.mark.django_db
def test_the_quote_spreadsheet_names_lines_in_its_language(quote):
    from openpyxl import load_workbook

    revision = quote.current_revision
    for language, name in (("zh-hans", NIC_ZH), ("en", Product.objects.get(sku=NIC).name_en)):
        sheet = load_workbook(io.BytesIO(quote_xlsx(revision, language=language))).active
        rows = {row[1]: row[2] for row in sheet.iter_rows(values_only=True) if row[1]}
        assert rows[NIC] == name


# --- lines added and changed by hand -----------------------------------------------------------


@pytest.mark.django_db
def test_a_product_added_by_sku_takes_both_catalog_names(quote, engineer):
    revision = quote.current_revision
    line = services.revision_line_add(user=engineer, revision=revision, sku=NIC, quantity=2)
    product = Product.objects.get(sku=NIC)
    assert (line.description, line.description_zh) == (product.name_en, NIC_ZH)
    assert line.description_in("zh-hans") == NIC_ZH
    assert line.description_in("en") == product.name_en


@pytest.mark.django_db
def test_a_typed_text_is_the_description_in_both_languages(quote, engineer):
    revision = quote.current_revision
    note = "Delivery to the Shanghai site, dock 3 / 送货至上海现场 3 号月台"
    line = services.revision_line_add(
        user=engineer, revision=revision, kind=LineKind.NOTE, description=note
    )
    assert (line.description, line.description_zh) == (note, note)
    # Typed over a catalog line, the text replaces both names: every reader sees the same words.
    product_line = revision.lines.get(sku=NIC)
    line = services.revision_line_update(
        user=engineer, line=product_line, description="NIC, customer's spare"
    )
    assert (line.description, line.description_zh) == ("NIC, customer's spare",) * 2
    # One language at a time (the API's description_en / description_zh).
    line = services.revision_line_update(user=engineer, line=line, description_zh="网卡，客户备件")
    assert (line.description, line.description_zh) == ("NIC, customer's spare", "网卡，客户备件")
    # A blank language falls back to the other.
    line = services.revision_line_update(user=engineer, line=line, description_en="")
    assert line.description_in("en") == "网卡，客户备件"


@pytest.mark.django_db
def test_the_audit_trail_names_the_description_once_in_the_actors_language(quote, engineer):
    line = quote.current_revision.lines.get(sku=NIC)
    with translation.override("zh-hans"):
        services.revision_line_update(user=engineer, line=line, quantity=40)
    record = quote.audit_events.filter(action=AuditAction.LINE_CHANGED).latest("pk")
    assert "description_zh" not in record.before
    assert "description_zh" not in record.after
    assert record.after["description"] == NIC_ZH
    # A change to the other language's text alone is recorded with that text.
    with translation.override("zh-hans"):
        services.revision_line_update(user=engineer, line=line, description_en="ConnectX-6 NIC")
    record = quote.audit_events.filter(action=AuditAction.LINE_CHANGED).latest("pk")
    assert (record.before["description"], record.after["description"]) == (
        Product.objects.get(sku=NIC).name_en,
        "ConnectX-6 NIC",
    )


@pytest.mark.django_db
def test_a_revision_copies_both_descriptions(quote, engineer):
    revision = quote.current_revision
    services.revision_send(user=engineer, revision=revision)
    new = services.quote_revise(user=engineer, quote=quote)
    copied = new.lines.get(sku=NIC)
    assert (copied.description, copied.description_zh) == (
        Product.objects.get(sku=NIC).name_en,
        NIC_ZH,
    )


@pytest.mark.django_db
def test_freight_is_described_in_both_languages(quote, engineer):
    line = services.revision_freight_set(
        user=engineer, revision=quote.current_revision, amount=Decimal("1500")
    )
    # The msgid and its msgstr in locale/zh_Hans/LC_MESSAGES/django.po.
    assert line.description == "Freight and insurance to the customer's site"
    assert line.description_zh == "运至客户现场的运费和保险"


# --- the API ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_api_shows_both_descriptions_and_writes_either(quote, engineer):
    client = APIClient()
    client.force_authenticate(engineer)
    url = f"/api/v1/quotes/{quote.pk}/"
    name_en = Product.objects.get(sku=NIC).name_en
    for language, shown in (("en", name_en), ("zh-hans", NIC_ZH)):
        body = client.get(url, HTTP_ACCEPT_LANGUAGE=language).json()
        [line] = [x for x in body["current_revision"]["lines"] if x["sku"] == NIC]
        assert (line["description_en"], line["description_zh"]) == (name_en, NIC_ZH)
        assert line["description"] == shown
    response = client.patch(
        f"{url}lines/{line['id']}/", {"description_zh": "网卡（客户指定）"}, format="json"
    )
    assert response.status_code == 200, response.content
    [line] = [x for x in response.json()["lines"] if x["sku"] == NIC]
    assert (line["description_en"], line["description_zh"]) == (name_en, "网卡（客户指定）")
    response = client.patch(
        f"{url}lines/{line['id']}/", {"description_en": "x" * 2001}, format="json"
    )
    assert response.status_code == 400


# --- old lines -------------------------------------------------------------------------------


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
def test_the_migration_keeps_old_lines_text():
    old = _migrate("0011_quote_sales_contact")
    try:
        team = old.get_model("core", "Team").objects.create(name="North")
        user = old.get_model("auth", "User").objects.create(username="se1")
        vendor = old.get_model("catalog", "Vendor").objects.create(code="v", name="V")
        product_model = old.get_model("catalog", "Product")
        product_model.objects.create(
            sku="NIC-1", name_en="Dual-port NIC", name_zh="双口网卡", category="nic", vendor=vendor
        )
        product_model.objects.create(
            sku="CAB-1", name_en="DAC 2 m", category="cable", vendor=vendor
        )
        customer = old.get_model("customers", "Customer").objects.create(
            name_en="Acme", team=team, preferred_language="zh-hans"
        )
        design = old.get_model("planner", "Design").objects.create(
            name="256 GPUs", owner=user, team=team
        )
        quote = old.get_model("quotes", "Quote").objects.create(
            number="Q-2026-00001",
            year=2026,
            sequence=1,
            customer=customer,
            design=design,
            owner=user,
            team=team,
        )
        revision = old.get_model("quotes", "QuoteRevision").objects.create(
            quote=quote, number=0, created_by=user
        )
        line_model = old.get_model("quotes", "QuoteLine")
        texts = {
            "zh-name": ("NIC-1", "双口网卡"),  # a Chinese customer's line: its Chinese name
            "en-name": ("NIC-1", "Dual-port NIC"),  # an English customer's line
            "no-zh-name": ("CAB-1", "DAC 2 m"),  # the catalog has no Chinese name
            "typed": ("NIC-1", "NIC, customer's spare"),  # changed by hand
            "gap": ("", "800G OSFP DR4 光模块"),  # a catalog gap, in the customer's language
            "gone": ("OLD-1", "Removed product"),  # no longer in the catalog
        }
        ids = {
            key: line_model.objects.create(revision=revision, sku=sku, description=text).pk
            for key, (sku, text) in texts.items()
        }
    finally:
        new = _migrate()
    line_model = new.get_model("quotes", "QuoteLine")
    stored = {
        key: line_model.objects.values_list("description", "description_zh").get(pk=pk)
        for key, pk in ids.items()
    }
    assert stored == {
        "zh-name": ("Dual-port NIC", "双口网卡"),
        "en-name": ("Dual-port NIC", "双口网卡"),
        "no-zh-name": ("DAC 2 m", ""),
        "typed": ("NIC, customer's spare", ""),
        "gap": ("800G OSFP DR4 光模块", ""),
        "gone": ("Removed product", ""),
    }

    # Back to one text: the line's customer's language (Chinese here), as lines were written.
    try:
        old = _migrate("0011_quote_sales_contact")
        line_model = old.get_model("quotes", "QuoteLine")
        assert line_model.objects.get(pk=ids["en-name"]).description == "双口网卡"
        assert line_model.objects.get(pk=ids["no-zh-name"]).description == "DAC 2 m"
    finally:
        _migrate()


@pytest.mark.django_db
def test_growth_notes_and_generic_spares_are_named_in_both_languages(full_catalog, engineer):
    from tests.quotes.test_spares_growth import RAIL_192

    quote = make_quote(engineer, language="en", request=RAIL_192)
    revision = quote.current_revision
    # The inline 64 x 400G leaves and spines have no SKU: the spares skip them, and say so in
    # the reader's language.
    with translation.override("zh-hans"):
        added = services.revision_spares_add(user=engineer, revision=revision)
    assert INLINE_ZH in added.skipped
    # 192 GPUs fill their unit to 256 first (tests/quotes/test_spares_growth.py): the step's
    # note, written once in each language (the msgid and its msgstr in the catalogue).
    services.quote_growth_revise(user=engineer, quote=quote, step=0)
    note = revision.lines.get(plane="growth", kind=LineKind.NOTE)
    assert note.description.startswith("Growth from 192 to 256 GPUs: ")
    assert note.description_zh.startswith("从 192 个 GPU 扩容到 256 个 GPU：")
    assert not any(word in note.description_zh for word in ("Growth", "fill", "unit"))


@pytest.mark.django_db
def test_the_switch_table_names_catalog_and_inline_switches_in_the_readers_language(
    full_catalog, engineer
):
    from planner import presenters
    from planner.services import design_create

    # A catalog leaf (ToR, as tests/test_bilingual_pages.py sizes it) and an inline one.
    tor = {"gpus": 64, "gpus_per_server": 8, "rails": 8, "nic_speed": 25,
           "nic": "MCX631102AN-ADAT", "leaf": "MSN2410-CB2F", "fabric": "tor"}  # fmt: skip
    leaf = Product.objects.get(sku="MSN2410-CB2F")
    assert leaf.name_zh not in ("", leaf.name_en)
    cases = [(tor, (leaf.name_en, leaf.name_zh)), (REQUEST_64, (INLINE_EN, INLINE_ZH))]
    for request, expected in cases:
        result = design_create(owner=engineer, name="d", request_data=request).typed_result
        shown = []
        for language in ("en", "zh-hans"):
            with translation.override(language):
                [tier] = [t for t in presenters.tier_rows(result) if t.plane == "compute"
                          and t.role == "leaf"]  # fmt: skip
                shown.append(tier.description)
        assert tuple(shown) == expected


@pytest.mark.django_db
def test_the_share_page_names_lines_in_the_customers_reading_language(quote, engineer):
    from django.test import Client

    link = services.revision_send(user=engineer, revision=quote.current_revision)
    name_en = Product.objects.get(sku=NIC).name_en
    for language, wanted, other in (("zh-hans", NIC_ZH, name_en), ("en", name_en, NIC_ZH)):
        client = Client()
        client.cookies["django_language"] = language
        page = client.get(f"/s/{link.token}/").content.decode()
        assert wanted in page
        assert other not in page
