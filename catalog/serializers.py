"""REST serializers. Cost and margin appear only for users with `catalog.view_cost`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import (
    CableSpec,
    MediaRule,
    NicSpec,
    PatchPanelSpec,
    PortBreakout,
    PortGroup,
    Price,
    Product,
    ServerSpec,
    ServiceSpec,
    SwitchSpec,
    TransceiverReach,
    TransceiverSpec,
    Vendor,
)
from catalog.selectors import default_price_list, margin
from core.api.json_types import JsonTypes

VIEW_COST = "catalog.view_cost"
COST_FIELDS = ("cost", "cost_currency", "cost_is_sample", "margin")


def can_view_cost(context: Mapping[str, Any]) -> bool:
    request = context.get("request")
    user = getattr(request, "user", None)
    return bool(user is not None and user.has_perm(VIEW_COST))


class NicSpecSerializer(serializers.ModelSerializer[NicSpec]):
    class Meta:
        model = NicSpec
        exclude = ["product"]


class ReachSerializer(serializers.ModelSerializer[TransceiverReach]):
    class Meta:
        model = TransceiverReach
        fields = ["fibre_type", "reach_m"]


class TransceiverSpecSerializer(serializers.ModelSerializer[TransceiverSpec]):
    reaches = ReachSerializer(many=True, read_only=True)

    class Meta:
        model = TransceiverSpec
        exclude = ["product"]


class CableSpecSerializer(serializers.ModelSerializer[CableSpec]):
    class Meta:
        model = CableSpec
        exclude = ["product"]


class PatchPanelSpecSerializer(serializers.ModelSerializer[PatchPanelSpec]):
    class Meta:
        model = PatchPanelSpec
        exclude = ["product"]


class BreakoutSerializer(serializers.ModelSerializer[PortBreakout]):
    class Meta:
        model = PortBreakout
        fields = ["ways", "speed_gbps"]


class PortGroupSerializer(serializers.ModelSerializer[PortGroup]):
    breakouts = BreakoutSerializer(many=True, read_only=True)

    class Meta:
        model = PortGroup
        fields = ["count", "speed_gbps", "form_factor", "breakouts"]


class SwitchSpecSerializer(serializers.ModelSerializer[SwitchSpec]):
    port_groups = PortGroupSerializer(many=True, read_only=True)

    class Meta:
        model = SwitchSpec
        exclude = ["product"]


class ServiceSpecSerializer(serializers.ModelSerializer[ServiceSpec]):
    class Meta:
        model = ServiceSpec
        exclude = ["product"]


class ServerSpecSerializer(serializers.ModelSerializer[ServerSpec]):
    class Meta:
        model = ServerSpec
        exclude = ["product"]


class ListPriceSerializer(serializers.ModelSerializer[Price]):
    price_list = serializers.CharField(source="price_list.code", read_only=True)
    currency = serializers.CharField(source="price_list.currency", read_only=True)

    class Meta:
        model = Price
        fields = ["price_list", "currency", "amount", "is_sample", "note"]


class ProductSerializer(JsonTypes, serializers.ModelSerializer[Product]):
    """Products with their typed spec (read-only here: specs are edited in the admin or the seed).

    Writes (catalog managers) cover the product's own fields."""

    vendor = serializers.SlugRelatedField(slug_field="code", queryset=Vendor.objects.all())
    name = serializers.CharField(read_only=True)
    nic_spec = NicSpecSerializer(read_only=True, allow_null=True)
    transceiver_spec = TransceiverSpecSerializer(read_only=True, allow_null=True)
    cable_spec = CableSpecSerializer(read_only=True, allow_null=True)
    patch_panel_spec = PatchPanelSpecSerializer(read_only=True, allow_null=True)
    switch_spec = SwitchSpecSerializer(read_only=True, allow_null=True)
    service_spec = ServiceSpecSerializer(read_only=True, allow_null=True)
    server_spec = ServerSpecSerializer(read_only=True, allow_null=True)
    list_price = serializers.SerializerMethodField()
    margin = serializers.SerializerMethodField(
        help_text="(list - cost) / list on the default price list; only with catalog.view_cost."
    )

    class Meta:
        model = Product
        fields = [
            "id",
            "sku",
            "category",
            "vendor",
            "lifecycle",
            "name",
            "name_en",
            "name_zh",
            "description_en",
            "description_zh",
            "source",
            "nic_spec",
            "transceiver_spec",
            "cable_spec",
            "patch_panel_spec",
            "switch_spec",
            "service_spec",
            "server_spec",
            "list_price",
            "cost",
            "cost_currency",
            "cost_is_sample",
            "margin",
            "updated_at",
        ]
        read_only_fields = ["updated_at"]
        extra_kwargs = {
            "cost": {"help_text": "Only present for users with catalog.view_cost."},
        }

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields: dict[str, serializers.Field[Any, Any, Any, Any]] = super().get_fields()
        if not can_view_cost(self.context):
            for name in COST_FIELDS:
                fields.pop(name, None)
        return fields

    def _default_price(self, product: Product) -> Price | None:
        # DRF's context is a dict (typed as a Mapping): the page's default prices are kept there.
        cache = cast(dict[str, Any], self.context).setdefault("_default_prices", {})
        if "list" not in cache:
            price_list = default_price_list()
            cache["list"] = price_list
            cache["prices"] = (
                {
                    p.product_id: p
                    for p in Price.objects.select_related("price_list").filter(
                        price_list=price_list
                    )
                }
                if price_list
                else {}
            )
        return cache["prices"].get(product.pk)  # type: ignore[no-any-return]

    @extend_schema_field(ListPriceSerializer(allow_null=True))
    def get_list_price(self, product: Product) -> dict[str, Any] | None:
        price = self._default_price(product)
        return ListPriceSerializer(price).data if price else None

    @extend_schema_field(serializers.DecimalField(max_digits=6, decimal_places=4, allow_null=True))
    def get_margin(self, product: Product) -> str | None:
        value = margin(product, self._default_price(product))
        return None if value is None else str(value)  # a decimal string, never a float


class MediaRuleSerializer(JsonTypes, serializers.ModelSerializer[MediaRule]):
    class Meta:
        model = MediaRule
        fields = ["id", "speed_gbps", "media", "max_reach_m", "stock_lengths_m", "source"]
