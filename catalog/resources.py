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
half-imported."""

from __future__ import annotations

from typing import Any

from import_export import fields, resources, widgets

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
