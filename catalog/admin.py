# mypy: disallow-subclassing-any=False
# import-export, simple-history, DRF and django-filter ship no type stubs: their base classes
# are Any to mypy, so subclassing them is allowed in this module (the rest stays strict).
"""Admin for catalog managers: search, filters, inline specs, compatibility, CSV/XLSX import and
export with a dry-run preview, and the change history of every row. Cost only with
`catalog.view_cost`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from import_export.admin import ImportExportModelAdmin
from import_export.formats.base_formats import XLSX
from simple_history.admin import SimpleHistoryAdmin

from catalog.models import (
    CableSpec,
    ContractPrice,
    MediaRule,
    NicSpec,
    PatchPanelSpec,
    PortBreakout,
    PortGroup,
    Price,
    PriceList,
    PriceTier,
    Product,
    ServerSpec,
    ServiceSpec,
    SwitchSpec,
    TransceiverReach,
    TransceiverSpec,
    Vendor,
)
from catalog.resources import (
    CableSpecResource,
    FormulaSafeCSV,
    FormulaSafeXLSX,
    MediaRuleResource,
    PatchPanelSpecResource,
    PriceResource,
    ProductCostResource,
    ProductResource,
)
from catalog.selectors import catalog_problems, compatible_items

if TYPE_CHECKING:  # generic in django-stubs, not subscriptable at run time
    StackedInline = admin.StackedInline[Any, Any]
    TabularInline = admin.TabularInline[Any, Any]
else:
    StackedInline = admin.StackedInline
    TabularInline = admin.TabularInline

VIEW_COST = "catalog.view_cost"
COST_FIELDS = ("cost", "cost_currency", "cost_is_sample")


class CatalogImportExportAdmin(ImportExportModelAdmin, SimpleHistoryAdmin):
    """CSV and XLSX. Import needs the add and change permissions of the model; export needs view."""

    # Formula-safe (catalog.resources): catalog text never becomes a spreadsheet formula.
    import_formats = [FormulaSafeCSV, XLSX]
    export_formats = [FormulaSafeCSV, FormulaSafeXLSX]

    def has_import_permission(self, request: HttpRequest) -> bool:
        opts = self.opts
        return bool(
            request.user.has_perm(f"{opts.app_label}.add_{opts.model_name}")
            and request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}")
        )

    def has_export_permission(self, request: HttpRequest) -> bool:
        return bool(self.has_view_permission(request))


# --- Specs (inlines on the product) -----------------------------------------------------------


class SpecInline(StackedInline):
    extra = 1
    max_num = 1
    can_delete = True
    show_change_link = True


class NicSpecInline(SpecInline):
    model = NicSpec


class TransceiverSpecInline(SpecInline):
    model = TransceiverSpec
    verbose_name_plural = _("transceiver specification (reaches: follow the change link)")


class CableSpecInline(SpecInline):
    model = CableSpec


class SwitchSpecInline(SpecInline):
    model = SwitchSpec
    verbose_name_plural = _("switch specification (port groups: follow the change link)")


class PatchPanelSpecInline(SpecInline):
    model = PatchPanelSpec


class ServiceSpecInline(SpecInline):
    model = ServiceSpec


class ServerSpecInline(SpecInline):
    model = ServerSpec


SPEC_INLINES = {
    "nic": NicSpecInline,
    "transceiver": TransceiverSpecInline,
    "copper_cable": CableSpecInline,
    "aoc": CableSpecInline,
    "fibre": CableSpecInline,
    "patch_panel": PatchPanelSpecInline,
    "switch": SwitchSpecInline,
    "service": ServiceSpecInline,
    "customer_supplied": ServerSpecInline,
}


class PriceInline(TabularInline):
    model = Price
    extra = 0
    fields = ["price_list", "amount", "is_sample", "note"]
    show_change_link = True


@admin.register(Vendor)
class VendorAdmin(SimpleHistoryAdmin):
    list_display = ["code", "name", "is_own_brand"]
    search_fields = ["code", "name"]


@admin.register(Product)
class ProductAdmin(CatalogImportExportAdmin):
    resource_classes = [ProductResource]
    list_display = ["sku", "name_en", "category", "vendor", "lifecycle", "updated_at"]
    list_filter = ["category", "vendor", "lifecycle"]
    search_fields = ["sku", "name_en", "name_zh", "description_en", "description_zh"]
    list_select_related = ["vendor"]
    readonly_fields = ["compatibility", "problems", "created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": ["sku", "category", "vendor", "lifecycle", "source"]}),
        (
            _("Names and descriptions"),
            {"fields": ["name_en", "name_zh", "description_en", "description_zh"]},
        ),
        (_("Cost"), {"fields": list(COST_FIELDS)}),
        (_("Checks"), {"fields": ["problems", "compatibility", "created_at", "updated_at"]}),
    ]

    def get_resource_classes(self, request: HttpRequest | None = None) -> list[Any]:
        if request is not None and request.user.has_perm(VIEW_COST):
            return [ProductResource, ProductCostResource]
        return [ProductResource]

    def get_fieldsets(self, request: HttpRequest, obj: Product | None = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.has_perm(VIEW_COST):
            return fieldsets
        return [fs for fs in fieldsets if fs[0] != _("Cost")]

    def get_list_display(self, request: HttpRequest) -> Any:
        columns = list(super().get_list_display(request))
        if request.user.has_perm(VIEW_COST):
            columns.append("cost")
        return columns

    def get_inlines(self, request: HttpRequest, obj: Product | None) -> Any:
        if obj is None:
            return []  # choose the category first; the matching spec appears after saving
        spec_inline = SPEC_INLINES.get(obj.category)
        return [spec_inline, PriceInline] if spec_inline else [PriceInline]

    @admin.display(description=_("compatible items"))
    def compatibility(self, obj: Product) -> str:
        if obj.pk is None:
            return "—"
        items = compatible_items(obj)
        if not items:
            return str(_("none in the catalog"))
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                '<li><a href="{}">{}</a> — {}</li>',
                (
                    (
                        reverse("admin:catalog_product_change", args=[item.product.pk]),
                        item.product.sku,
                        item.reason,
                    )
                    for item in items
                ),
            ),
        )

    @admin.display(description=_("problems"))
    def problems(self, obj: Product) -> str:
        if obj.pk is None:
            return "—"
        found = catalog_problems([obj])
        if not found:
            return str(_("none: the spec is complete"))
        return format_html(
            "<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((p,) for p in found))
        )


class ReachInline(TabularInline):
    model = TransceiverReach
    extra = 1


@admin.register(TransceiverSpec)
class TransceiverSpecAdmin(SimpleHistoryAdmin):
    list_display = ["product", "standard", "form_factor", "speed_gbps", "media", "connector"]
    list_filter = ["form_factor", "media", "speed_gbps"]
    search_fields = ["product__sku", "standard"]
    inlines = [ReachInline]


@admin.register(CableSpec)
class CableSpecAdmin(CatalogImportExportAdmin):
    """Cable specs on their own, for CSV/XLSX import and export by SKU."""

    resource_classes = [CableSpecResource]
    list_display = [
        "product",
        "kind",
        "media",
        "end_a",
        "end_b",
        "speed_gbps",
        "length_m",
        "fibre_type",
        "connector",
    ]
    list_filter = ["kind", "media", "connector", "fibre_type"]
    search_fields = ["product__sku"]
    list_select_related = ["product"]


@admin.register(PatchPanelSpec)
class PatchPanelSpecAdmin(CatalogImportExportAdmin):
    resource_classes = [PatchPanelSpecResource]
    list_display = [
        "product",
        "connector",
        "ports",
        "rack_units",
        "insertion_loss_db",
        "fibre_type",
    ]
    list_filter = ["connector", "rack_units"]
    search_fields = ["product__sku"]
    list_select_related = ["product"]


class PortGroupInline(TabularInline):
    model = PortGroup
    extra = 1
    show_change_link = True
    fields = ["position", "count", "speed_gbps", "form_factor"]


@admin.register(SwitchSpec)
class SwitchSpecAdmin(SimpleHistoryAdmin):
    list_display = [
        "product",
        "switching_capacity_gbps",
        "rack_units",
        "power_typical_w",
        "power_max_w",
    ]
    search_fields = ["product__sku"]
    inlines = [PortGroupInline]


class BreakoutInline(TabularInline):
    model = PortBreakout
    extra = 1


@admin.register(PortGroup)
class PortGroupAdmin(SimpleHistoryAdmin):
    list_display = ["switch", "count", "speed_gbps", "form_factor", "breakout_modes"]
    search_fields = ["switch__product__sku"]
    inlines = [BreakoutInline]

    @admin.display(description=_("breakout modes"))
    def breakout_modes(self, obj: PortGroup) -> str:
        return ", ".join(str(b) for b in obj.breakouts.all()) or "—"


@admin.register(MediaRule)
class MediaRuleAdmin(CatalogImportExportAdmin):
    resource_classes = [MediaRuleResource]
    list_display = ["speed_gbps", "media", "max_reach_m", "stock_lengths_m", "source"]
    list_editable = ["max_reach_m", "stock_lengths_m"]
    list_filter = ["media", "speed_gbps"]


class PriceTierInline(TabularInline):
    model = PriceTier
    extra = 1


@admin.register(PriceList)
class PriceListAdmin(SimpleHistoryAdmin):
    list_display = [
        "code",
        "name",
        "currency",
        "valid_from",
        "valid_until",
        "is_default",
        "is_sample",
    ]
    list_filter = ["currency", "is_default", "is_sample"]
    search_fields = ["code", "name"]


@admin.register(Price)
class PriceAdmin(CatalogImportExportAdmin):
    resource_classes = [PriceResource]
    list_display = ["product", "price_list", "amount", "is_sample", "note"]
    list_filter = ["price_list", "product__category", "product__vendor", "is_sample"]
    search_fields = ["product__sku", "product__name_en", "product__name_zh"]
    list_select_related = ["product", "price_list"]
    autocomplete_fields = ["product"]
    inlines = [PriceTierInline]


@admin.register(ContractPrice)
class ContractPriceAdmin(SimpleHistoryAdmin):
    list_display = [
        "customer",
        "product",
        "amount",
        "currency",
        "valid_from",
        "valid_until",
        "is_sample",
    ]
    list_filter = ["currency", "is_sample"]
    search_fields = ["product__sku", "customer__name_en", "customer__name_zh"]
    list_select_related = ["customer", "product"]
    autocomplete_fields = ["product"]
