"""A saved design is frozen: after the catalog retires a product it uses and re-prices it, the
design page, the BOM exports, the cabling schedule and a freshly rendered proposal PDF still
carry the saved SKUs and prices; only the explicit re-size shows the difference and saves a new
version. Real database catalog (the seed, loaded as `make run` does), real WeasyPrint."""

import csv
import io
import re
from decimal import Decimal

import pytest
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader

from catalog.models import LifecycleChoices, Price, Product
from customers.models import Customer
from engine.cabling import iter_cabling
from planner import resize, services
from planner.models import Design, SizingSnapshot
from planner.selectors import current_catalog
from quotes.documents import document_render, document_request
from quotes.models import DocumentStatus
from quotes.services import quote_create
from tests.conftest import load_seed_catalog

# 256 GPUs = 32 servers x 8 rails on 64x400 leaves. The seed prices its 10 m 400G AOC below
# two 400G modules and 10 m of fibre, so the 10 m runs of the rail fabric take it: 192 of them
# (the engine's own count, checked below against the cabling schedule, one row per cable).
REQUEST_256 = {"gpus": 256, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail",
               "leaf": "64x400"}  # fmt: skip
RETIRED = "AOC-D-D-400G-10M"
NEW_PRICE = Decimal("9999.00")


@pytest.fixture
def full_catalog(db):
    load_seed_catalog()


def _retire_and_reprice(sku: str, capture) -> Decimal:
    """End of sale for `sku` and a new list price, as the catalog manager would save them; the
    catalog-changed signal runs on commit, as in production. Returns the old price."""
    product = Product.objects.get(sku=sku)
    price = Price.objects.get(product=product, price_list__is_default=True)
    old = price.amount
    with capture(execute=True):
        product.lifecycle = LifecycleChoices.END_OF_SALE
        product.save()
        price.amount = NEW_PRICE
        price.save()
    return old


@pytest.mark.slow
@pytest.mark.django_db
def test_a_saved_design_keeps_its_parts_and_prices_after_the_catalog_changes(
    full_catalog, engineer, client, django_capture_on_commit_callbacks
):
    design = services.design_create(owner=engineer, name="256 GPUs", request_data=REQUEST_256)
    saved = design.typed_result
    assert saved is not None
    retired_lines = [line for line in saved.bom if line.sku == RETIRED]
    quantity = sum(line.quantity for line in retired_lines)
    assert quantity == 192  # the engine's count for this request (see REQUEST_256)
    customer = Customer.objects.create(
        name_en="Acme AI Lab", name_zh="极智算力实验室", team=engineer.membership.team
    )
    quote = quote_create(user=engineer, design=design, customer=customer)

    old_price = _retire_and_reprice(RETIRED, django_capture_on_commit_callbacks)
    assert old_price != NEW_PRICE
    # Today's catalog no longer sells it: a fresh sizing would not pick it.
    assert RETIRED not in current_catalog().by_sku()
    today = services.design_size(request_data=REQUEST_256).value
    assert RETIRED not in {line.sku for line in today.bom}

    client.force_login(engineer)

    # The design page: the saved line, quantity and unit price (sized with), not today's.
    html = client.get(reverse("planner:design-detail", args=[design.pk])).content.decode()
    assert f'data-sku="{RETIRED}">192<' in html
    assert f"{old_price:,.2f}" in html
    assert f"{old_price * quantity:,.2f}" in html  # the line's amount
    assert f"{NEW_PRICE:,.2f}" not in html

    # BOM exports: CSV and XLSX carry the saved line.
    body = client.get(reverse("planner:bom-csv", args=[design.pk])).content.decode("utf-8-sig")
    rows = [row for row in csv.DictReader(io.StringIO(body)) if row["SKU"] == RETIRED]
    assert sum(int(row["Quantity"]) for row in rows) == quantity
    workbook = load_workbook(
        io.BytesIO(client.get(reverse("planner:bom-xlsx", args=[design.pk])).content)
    )
    cells = [(r[0].value, r[2].value) for r in workbook["BOM"].iter_rows(min_row=3)]
    assert sum(q for sku, q in cells if sku == RETIRED) == quantity

    # The cabling schedule: one row per cable, the retired AOC on 192 of them.
    response = client.get(reverse("planner:cabling-csv", args=[design.pk]))
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    cabling = list(csv.DictReader(io.StringIO(body)))
    assert len(cabling) == saved.cables_total
    assert sum(1 for row in cabling if row["cable"] == RETIRED) == quantity

    # A proposal rendered now (real WeasyPrint): the retired part in the link table and the
    # quote's lines at the saved price; its cabling schedule (512 cables: attached, not printed)
    # still names it on 192 rows.
    document = document_request(user=engineer, revision=quote.current_revision, language="en")
    document = document_render(document_id=document.pk)
    assert document.status == DocumentStatus.READY, document.error
    reader = PdfReader(io.BytesIO(document.file.read()))
    # Whitespace out (cells wrap anywhere); NULs too: without the CJK fonts CI installs, pypdf
    # reads the fallback font's two-byte codes with a NUL in each.
    text = "".join("".join(page.extract_text() or "" for page in reader.pages).split())
    text = text.replace("\x00", "")
    assert RETIRED in text
    # The quote priced it when it was made (a quantity tier may sit below the list price).
    line = quote.current_revision.lines.get(sku=RETIRED)
    assert line.quantity == quantity
    assert f"{line.unit_price:,.2f}{line.unit_price * quantity:,.2f}" in text  # unit, amount
    assert f"{NEW_PRICE:,.2f}" not in text
    attached = {name: data for name, items in reader.attachments.items() for data in items}
    [schedule] = [data for name, data in attached.items() if name.endswith("cabling.csv")]
    rows = list(csv.DictReader(io.StringIO(schedule.decode("utf-8-sig"))))
    assert len(rows) == saved.cables_total
    assert sum(1 for row in rows if row["cable"] == RETIRED) == quantity


@pytest.mark.django_db
def test_resize_shows_the_difference_then_saves_a_new_version(
    full_catalog, engineer, client, django_capture_on_commit_callbacks
):
    design = services.design_create(owner=engineer, name="256 GPUs", request_data=REQUEST_256)
    old_price = _retire_and_reprice(RETIRED, django_capture_on_commit_callbacks)

    preview = resize.design_resize_preview(design=design)
    [removed] = [c for c in preview.changes if c.sku == RETIRED]
    assert removed.kind == "removed"
    assert (removed.quantity_before, removed.quantity_after) == (192, 0)
    assert removed.unit_price_before == old_price
    assert removed.amount_delta == -old_price * 192  # the whole saved line goes
    # The 10 m runs still need a part: whatever takes them is added or grows.
    assert any(c.kind in ("added", "quantity", "quantity_repriced") for c in preview.changes)
    # Totals are the sums of the priced lines on either side.
    saved_result = design.typed_result
    assert saved_result is not None
    saved_prices = services.design_prices(design=design).prices
    assert preview.total_before == sum(
        (saved_prices[line.sku] * line.quantity for line in saved_result.bom
         if line.sku in saved_prices),
        Decimal(0),
    )  # fmt: skip
    assert preview.total_delta == preview.total_after - preview.total_before

    client.force_login(engineer)
    url = reverse("planner:design-resize", args=[design.pk])
    html = client.get(url).content.decode()
    assert f'data-sku="{RETIRED}" data-kind="removed"' in html
    assert f"{-old_price * 192:,.2f}" in html
    # Nothing is saved by looking.
    assert Design.objects.count() == 1

    shown = re.search(r'name="catalog_version" value="([^"]+)"', html)
    assert shown is not None
    assert shown.group(1) == current_catalog().version

    # A save against another catalog than the one shown is refused: look again.
    response = client.post(url, {"catalog_version": design.catalog_version})
    assert response["Location"] == url
    assert Design.objects.count() == 1

    response = client.post(url, {"catalog_version": shown.group(1)})
    new = Design.objects.exclude(pk=design.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("planner:design-detail", args=[new.pk])
    assert (new.version, new.copied_from_id, new.is_draft) == (2, design.pk, False)
    assert new.typed_result is not None
    assert RETIRED not in {line.sku for line in new.typed_result.bom}
    # The old version is untouched, and keeps its own snapshot.
    design.refresh_from_db()
    assert design.version == 1
    assert design.typed_result is not None
    assert RETIRED in {line.sku for line in design.typed_result.bom}
    assert new.sizing_snapshot_id != design.sizing_snapshot_id
    html = client.get(reverse("planner:design-detail", args=[new.pk])).content.decode()
    assert "version 2" in html


@pytest.mark.django_db
def test_designs_on_one_catalog_share_one_snapshot(full_catalog, engineer):
    first = services.design_create(owner=engineer, name="A", request_data=REQUEST_256)
    second = services.design_create(
        owner=engineer, name="B", request_data={**REQUEST_256, "gpus": 64}
    )
    assert first.sizing_snapshot_id == second.sizing_snapshot_id
    assert SizingSnapshot.objects.count() == 1
    snapshot = first.sizing_snapshot
    assert snapshot is not None
    assert snapshot.catalog_version == current_catalog().version
    # The stored snapshot is today's catalog, read back whole (prices included).
    assert services.sizing_snapshot_catalog(snapshot=snapshot) == current_catalog()


@pytest.mark.django_db
def test_a_draft_cannot_be_resized(full_catalog, engineer):
    draft = services.design_save_draft(owner=engineer, request_data=REQUEST_256, name="Draft")
    with pytest.raises(services.DesignIsDraft):
        resize.design_resize_preview(design=draft)
    with pytest.raises(services.DesignIsDraft):
        resize.design_resize(design=draft, owner=engineer)


@pytest.mark.django_db
def test_a_design_saved_before_snapshots_is_frozen_when_its_catalog_is_still_current(
    full_catalog, engineer, django_capture_on_commit_callbacks
):
    """Rows from before this change have no snapshot. While today's catalog is still the one
    they were sized with (same version), it is theirs: it is stored with them on first use, so
    a later catalog change no longer reaches them."""
    design = services.design_create(owner=engineer, name="Old", request_data=REQUEST_256)
    Design.objects.filter(pk=design.pk).update(sizing_snapshot=None)
    SizingSnapshot.objects.all().delete()
    design.refresh_from_db()
    rows = list(services.design_cabling(design=design))
    design.refresh_from_db()
    assert design.sizing_snapshot is not None
    assert design.sizing_snapshot.catalog_version == design.catalog_version
    _retire_and_reprice(RETIRED, django_capture_on_commit_callbacks)
    assert list(services.design_cabling(design=design)) == rows


@pytest.mark.django_db
def test_a_quote_that_pinned_its_snapshot_keeps_it_whatever_its_design_points_at(
    full_catalog, engineer, django_capture_on_commit_callbacks
):
    """A quote pins the snapshot its design was sized with (its FrozenDesign points at it):
    the proposal's cabling then comes from that one, even if the design row (a draft re-saved,
    say) now points at another."""
    from planner.frozen import frozen_engine

    design = services.design_create(owner=engineer, name="256 GPUs", request_data=REQUEST_256)
    customer = Customer.objects.create(name_en="Acme", team=engineer.membership.team)
    revision = quote_create(user=engineer, design=design, customer=customer).current_revision
    assert design.sizing_snapshot is not None
    assert revision.frozen_design.sizing_snapshot_id == design.sizing_snapshot_id
    _retire_and_reprice(RETIRED, django_capture_on_commit_callbacks)
    today = services.design_size(request_data=REQUEST_256)
    Design.objects.filter(pk=design.pk).update(
        sizing_snapshot=services._snapshot_row(today.catalog)
    )
    revision.refresh_from_db()
    engine = frozen_engine(frozen=revision.frozen_design, design=revision.quote.design)
    assert engine is not None
    cables = [row.cable for row in iter_cabling(engine)]
    assert cables.count(RETIRED) == 192
