# mypy: disallow-subclassing-any=False
# import-export, simple-history, DRF and django-filter ship no type stubs: their base classes
# are Any to mypy, so subclassing them is allowed in this module (the rest stays strict).
"""CSV/XLSX import and export (django-import-export) of products, prices, media rules, and the
cable and patch-panel specifications (one row per product SKU).

Every row goes through the model's `full_clean()` (`clean_model_instances`), so a negative price,
a 0 m reach, an unknown lifecycle, a copper cable without its B end or a fibre without its
connector is reported on its row and field. The admin previews an import as a dry run, offers to
confirm it only when no row has an error, and runs the confirmed import in one transaction that
rolls back on any error or invalid row (whoever calls `import_data`): nothing is ever
half-imported.

The exports are formula-safe like every other export of the site (planner.exports.files): a
text cell that starts like a formula (`=`, `+`, `-`, `@`, a tab or a carriage return) is written
to CSV behind a single quote, and every text cell of the XLSX is a string, never a formula; a
catalog name or source written as `=HYPERLINK(...)` stays text. Importing a CSV takes the quote
off again, so an export imports back unchanged."""

from __future__ import annotations

import io
import re
from typing import Any

import tablib
from import_export import fields, resources, widgets
from import_export.formats.base_formats import CSV, XLSX
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

from catalog.models import CableSpec, MediaRule, PatchPanelSpec, Price, PriceList, Product, Vendor

PRODUCT_FIELDS: tuple[str, ...] = (
    "sku",
    "category",
    "vendor",
    "lifecycle",
    "name_en",
    "name_zh",
    "description_en",
    "description_zh",
    "source",
)
COST_FIELDS: tuple[str, ...] = ("cost", "cost_currency", "cost_is_sample")

# planner.exports.files has the same rule; the catalog sits below planner, so it keeps its own.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# A number written as text ("-40", "+1.5e3") opens as a number, not a formula: left as it is.
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def formula_safe(value: Any) -> Any:
    """A CSV cell no spreadsheet reads as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def formula_unescaped(value: Any) -> Any:
    """What `formula_safe` was given: an imported cell loses the quote an export put before it."""
    if isinstance(value, str) and value.startswith("'") and formula_safe(value[1:]) == value:
        return value[1:]
    return value


def _mapped(dataset: tablib.Dataset, change: Any) -> tablib.Dataset:
    mapped = tablib.Dataset(headers=dataset.headers, title=dataset.title)
    for row in dataset:
        mapped.append([change(value) for value in row])
    return mapped


class FormulaSafeCSV(CSV):
    def export_data(self, dataset: tablib.Dataset, **kwargs: Any) -> Any:
        return super().export_data(_mapped(dataset, formula_safe), **kwargs)

    def create_dataset(self, in_stream: Any, **kwargs: Any) -> tablib.Dataset:
        return _mapped(super().create_dataset(in_stream, **kwargs), formula_unescaped)


class FormulaSafeXLSX(XLSX):
    """Every text cell a string: openpyxl (through tablib) makes a formula of text starting
    with `=`."""

    def export_data(self, dataset: tablib.Dataset, **kwargs: Any) -> bytes:
        book = Workbook()
        sheet = book.active
        assert sheet is not None  # a new workbook has one sheet
        for row_number, row in enumerate([dataset.headers or [], *dataset], start=1):
            for column, value in enumerate(row, start=1):
                cell = sheet.cell(row=row_number, column=column)
                if isinstance(value, str):
                    cell.value = ILLEGAL_CHARACTERS_RE.sub("", value)
                    cell.data_type = "s"  # after the value: openpyxl infers "f" from "="
                else:
                    cell.value = value
        output = io.BytesIO()
        book.save(output)
        return output.getvalue()


class StrictForeignKeyWidget(widgets.ForeignKeyWidget):
    """A foreign key by natural key that names the missing value instead of a bare DoesNotExist."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> Any:
        try:
            return super().clean(value, row, **kwargs)
        except self.model.DoesNotExist as exc:
            raise ValueError(f"no {self.model._meta.verbose_name} {value!r}") from exc


class CatalogResource(resources.ModelResource):
    class Meta:
        abstract = True
        clean_model_instances = True
        skip_unchanged = True
        report_skipped = True
        use_transactions = True

    def import_data(self, dataset: Any, *args: Any, **kwargs: Any) -> Any:
        """One invalid row rolls the whole import back, not only a row that raised."""
        kwargs["rollback_on_validation_errors"] = True
        return super().import_data(dataset, *args, **kwargs)


class ProductResource(CatalogResource):
    """Products without cost: for everyone who may export the catalog."""

    vendor = fields.Field(
        attribute="vendor",
        column_name="vendor",
        widget=StrictForeignKeyWidget(Vendor, field="code"),
    )
    # TextFields: an empty cell is an empty description, not NULL.
    description_en = fields.Field(
        attribute="description_en",
        column_name="description_en",
        widget=widgets.CharWidget(allow_blank=True),
    )
    description_zh = fields.Field(
        attribute="description_zh",
        column_name="description_zh",
        widget=widgets.CharWidget(allow_blank=True),
    )

    class Meta(CatalogResource.Meta):
        model = Product
        import_id_fields = ("sku",)
        fields = PRODUCT_FIELDS
        export_order = PRODUCT_FIELDS
        name = "Products (without cost)"


class ProductCostResource(ProductResource):
    """Products with cost: only for users with `catalog.view_cost`."""

    class Meta(ProductResource.Meta):
        fields = PRODUCT_FIELDS + COST_FIELDS
        export_order = PRODUCT_FIELDS + COST_FIELDS
        name = "Products with cost"


class PriceResource(CatalogResource):
    price_list = fields.Field(
        attribute="price_list",
        column_name="price_list",
        widget=StrictForeignKeyWidget(PriceList, field="code"),
    )
    product = fields.Field(
        attribute="product",
        column_name="sku",
        widget=StrictForeignKeyWidget(Product, field="sku"),
    )

    class Meta(CatalogResource.Meta):
        model = Price
        import_id_fields = ("price_list", "product")
        fields = ("price_list", "product", "amount", "is_sample", "note")
        export_order = ("price_list", "product", "amount", "is_sample", "note")
        name = "List prices"


class MediaRuleResource(CatalogResource):
    class Meta(CatalogResource.Meta):
        model = MediaRule
        import_id_fields = ("speed_gbps", "media")
        fields = ("speed_gbps", "media", "max_reach_m", "stock_lengths_m", "source")
        export_order = fields
        name = "Media rules"


def _spec_product_field() -> fields.Field:
    return fields.Field(
        attribute="product",
        column_name="sku",
        widget=StrictForeignKeyWidget(Product, field="sku"),
    )


CABLE_SPEC_FIELDS = (
    "product",
    "kind",
    "media",
    "end_a",
    "end_b",
    "speed_gbps",
    "length_m",
    "breakout_ways",
    "fibre_type",
    "connector",
    "strands",
    "power_w",
    "leg_connector",
)


class CableSpecResource(CatalogResource):
    """Copper, AOC and fibre specs by SKU: a copper or AOC row needs both ends and a speed, a
    fibre row its fibre type, connector and strands (`CableSpec.clean`)."""

    product = _spec_product_field()

    class Meta(CatalogResource.Meta):
        model = CableSpec
        import_id_fields = ("product",)
        fields = CABLE_SPEC_FIELDS
        export_order = CABLE_SPEC_FIELDS
        name = "Cable specifications"


PATCH_PANEL_SPEC_FIELDS = (
    "product",
    "connector",
    "ports",
    "rack_units",
    "insertion_loss_db",
    "fibre_type",
)


class PatchPanelSpecResource(CatalogResource):
    product = _spec_product_field()

    class Meta(CatalogResource.Meta):
        model = PatchPanelSpec
        import_id_fields = ("product",)
        fields = PATCH_PANEL_SPEC_FIELDS
        export_order = PATCH_PANEL_SPEC_FIELDS
        name = "Patch panel specifications"
