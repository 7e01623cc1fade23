"""Admin: access, cost visibility, CSV/XLSX import with a dry-run preview, export round trip,
history."""

from decimal import Decimal

import pytest
import tablib
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from catalog.models import MediaRule, Price, Product
from catalog.resources import MediaRuleResource, PriceResource, ProductResource

CSV_INDEX, XLSX_INDEX = "0", "1"  # CatalogImportExportAdmin.import_formats


def change_url(product):
    return reverse("admin:catalog_product_change", args=[product.pk])


@pytest.fixture
def admin_client_cm(client, staff_catalog_manager):
    client.force_login(staff_catalog_manager)
    return client


def test_engineer_cannot_reach_admin_change_pages(seeded, engineer_client):
    product = Product.objects.get(sku="NETI710-4CP")
    for url in (
        change_url(product),
        reverse("admin:catalog_product_changelist"),
        reverse("admin:catalog_price_import"),
    ):
        response = engineer_client.get(url)
        assert response.status_code == 302
        assert reverse("admin:login") in response["Location"]


def test_staff_without_view_cost_sees_no_cost(seeded, client, engineer):
    engineer.is_staff = True  # even if made staff, a sales engineer has no cost permission
    engineer.save(update_fields=["is_staff"])
    client.force_login(engineer)
    product = Product.objects.get(sku="NETI710-4CP")
    response = client.get(change_url(product))
    assert response.status_code == 200  # view-only
    html = response.content.decode()
    assert "field-cost" not in html
    listing = client.get(reverse("admin:catalog_product_changelist")).content.decode()
    assert "column-cost" not in listing
    # ... and may not import.
    assert client.get(reverse("admin:catalog_price_import")).status_code == 403


def test_catalog_manager_admin_pages(seeded, admin_client_cm):
    listing = admin_client_cm.get(
        reverse("admin:catalog_product_changelist"), {"category__exact": "switch", "q": "SN5600"}
    )
    assert listing.status_code == 200
    assert "MSN5600-VS2FC" in listing.content.decode()
    assert "column-cost" in listing.content.decode()

    product = Product.objects.get(sku="MSN5600-VS2FC")
    page = admin_client_cm.get(change_url(product)).content.decode()
    assert "field-cost" in page
    assert "MCP7Y00-N001" in page  # compatible items shown
    assert "none: the spec is complete" in page
    history = admin_client_cm.get(reverse("admin:catalog_product_history", args=[product.pk]))
    assert history.status_code == 200

    for name in ("mediarule", "price", "pricelist", "switchspec", "portgroup", "transceiverspec"):
        assert admin_client_cm.get(reverse(f"admin:catalog_{name}_changelist")).status_code == 200


def test_admin_edit_records_history_with_user(seeded, admin_client_cm, staff_catalog_manager):
    rule = MediaRule.objects.get(speed_gbps=25, media="dac")
    url = reverse("admin:catalog_mediarule_change", args=[rule.pk])
    response = admin_client_cm.post(
        url,
        {
            "speed_gbps": 25,
            "media": "dac",
            "max_reach_m": "5",  # 25G DAC with RS-FEC: 5 m (IEEE 802.3by CA-25G-L)
            "stock_lengths_m": "1, 2, 3, 5",
            "source": rule.source,
        },
    )
    assert response.status_code == 302, response.content
    rule.refresh_from_db()
    assert rule.max_reach_m == Decimal("5")
    latest = rule.history.first()
    assert latest.history_user == staff_catalog_manager
    assert latest.max_reach_m == Decimal("5")


def test_admin_rejects_zero_reach_per_field(seeded, admin_client_cm):
    rule = MediaRule.objects.get(speed_gbps=25, media="dac")
    url = reverse("admin:catalog_mediarule_change", args=[rule.pk])
    response = admin_client_cm.post(
        url, {"speed_gbps": 25, "media": "dac", "max_reach_m": "0", "stock_lengths_m": ""}
    )
    assert response.status_code == 200
    assert "max_reach_m" in response.context["adminform"].form.errors


def _csv(headers, *rows):
    data = tablib.Dataset(headers=headers)
    for row in rows:
        data.append(row)
    return data.export("csv").encode()


def test_admin_import_preview_shows_row_errors_and_imports_nothing(seeded, admin_client_cm):
    before = dict(Price.objects.values_list("pk", "amount"))
    content = _csv(
        ["price_list", "sku", "amount", "is_sample", "note"],
        ["CNY-2026", "NETI710-4CP", "3100.00", "1", "sample price"],
        ["CNY-2026", "NETI710-2CP", "-1.00", "1", "sample price"],
        ["CNY-2026", "NO-SUCH-SKU", "10.00", "1", "sample price"],
    )
    response = admin_client_cm.post(
        reverse("admin:catalog_price_import"),
        {
            "format": CSV_INDEX,
            "import_file": SimpleUploadedFile("prices.csv", content, "text/csv"),
        },
    )
    assert response.status_code == 200
    result = response.context["result"]
    assert result.has_validation_errors() or result.has_errors()
    assert "confirm_form" not in response.context  # nothing to confirm while rows are wrong
    invalid_rows = {row.number for row in result.invalid_rows}
    error_rows = {number for number, _errors in result.row_errors()}
    assert 2 in invalid_rows  # the negative price
    assert 3 in invalid_rows | error_rows  # the unknown SKU
    assert dict(Price.objects.values_list("pk", "amount")) == before


def test_admin_import_malformed_file(seeded, admin_client_cm):
    count = Price.objects.count()
    response = admin_client_cm.post(
        reverse("admin:catalog_price_import"),
        {
            "format": XLSX_INDEX,
            "import_file": SimpleUploadedFile(
                "prices.xlsx", b"not a spreadsheet", "application/zip"
            ),
        },
    )
    assert response.status_code == 200
    assert response.context["form"].errors
    assert Price.objects.count() == count


def test_admin_import_confirm_applies_and_records_user(
    seeded, admin_client_cm, staff_catalog_manager
):
    content = _csv(
        ["price_list", "sku", "amount", "is_sample", "note"],
        ["CNY-2026", "NETI710-4CP", "3100.00", "1", "sample price"],
    )
    preview = admin_client_cm.post(
        reverse("admin:catalog_price_import"),
        {"format": CSV_INDEX, "import_file": SimpleUploadedFile("p.csv", content, "text/csv")},
    )
    assert preview.status_code == 200
    price = Price.objects.get(price_list__code="CNY-2026", product__sku="NETI710-4CP")
    assert price.amount != Decimal("3100.00")  # the dry run changed nothing
    confirm = preview.context["confirm_form"]
    response = admin_client_cm.post(reverse("admin:catalog_price_process_import"), confirm.initial)
    assert response.status_code == 302
    price.refresh_from_db()
    assert price.amount == Decimal("3100.00")
    assert price.history.first().history_user == staff_catalog_manager


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_export_import_round_trip(seeded, file_format):
    for resource_class, model in ((ProductResource, Product), (PriceResource, Price)):
        exported = resource_class().export()
        assert len(exported) == model.objects.count()
        raw = exported.export(file_format)
        dataset = tablib.Dataset().load(raw, format=file_format)
        result = resource_class().import_data(
            dataset, dry_run=False, rollback_on_validation_errors=True
        )
        assert not result.has_errors(), [
            (n, [e.error for e in errs]) for n, errs in result.row_errors()
        ] + [e.error for e in result.base_errors]
        assert not result.has_validation_errors()
        assert result.totals["skip"] == len(dataset)  # nothing changed
        assert resource_class().export().dict == exported.dict


def test_import_changes_a_name_and_rejects_bad_rows_atomically(seeded):
    dataset = ProductResource().export()
    row = next(i for i, sku in enumerate(dataset["sku"]) if sku == "NETI710-2CP")
    values = list(dataset[row])
    values[dataset.headers.index("name_en")] = "EZMAX NETI710-2CP (renamed)"
    dataset[row] = values
    result = ProductResource().import_data(
        dataset, dry_run=False, rollback_on_validation_errors=True
    )
    assert result.totals["update"] == 1
    assert Product.objects.get(sku="NETI710-2CP").name_en.endswith("(renamed)")

    bad = tablib.Dataset(headers=dataset.headers)
    good_row = list(dataset[row])
    good_row[dataset.headers.index("name_en")] = "would be renamed again"
    bad.append(good_row)
    broken = list(dataset[row])
    broken[dataset.headers.index("sku")] = "EZMAX-NEW-1"
    broken[dataset.headers.index("lifecycle")] = "someday"
    bad.append(broken)
    result = ProductResource().import_data(bad, dry_run=False, rollback_on_validation_errors=True)
    assert result.has_validation_errors()
    (invalid,) = result.invalid_rows
    assert "lifecycle" in invalid.field_specific_errors
    assert Product.objects.get(sku="NETI710-2CP").name_en.endswith("(renamed)")  # not again
    assert not Product.objects.filter(sku="EZMAX-NEW-1").exists()


def test_media_rule_import_with_zero_reach(seeded):
    dataset = MediaRuleResource().export()
    dataset[0] = [
        0 if h == "max_reach_m" else v for h, v in zip(dataset.headers, dataset[0], strict=True)
    ]
    result = MediaRuleResource().import_data(
        dataset, dry_run=False, rollback_on_validation_errors=True
    )
    (invalid,) = result.invalid_rows
    assert "max_reach_m" in invalid.field_specific_errors
    assert not MediaRule.objects.filter(max_reach_m=0).exists()
