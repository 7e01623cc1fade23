"""CSV/XLSX import and export (django-import-export) of products, prices and media rules.

Every row goes through the model's `full_clean()` (`clean_model_instances`), so a negative price,
a 0 m reach or an unknown lifecycle is reported on its row and field. The admin previews an import
as a dry run, offers to confirm it only when no row has an error, and runs the confirmed import in
one transaction that rolls back on any error: nothing is ever half-imported."""

from __future__ import annotations

from typing import Any

from import_export import fields, resources, widgets

from catalog.models import MediaRule, Price, PriceList, Product, Vendor

PRODUCT_FIELDS = (
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
COST_FIELDS = ("cost", "cost_currency", "cost_is_sample")


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
