"""The design request as the API documents it. The serializer checks types and shapes; the engine's
`parse_request` then checks the network rules, and its field errors come back the same way."""

import re
from typing import Any, TypeVar

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.base import ShallowFieldCopies
from core.api.json_types import JsonTypes, has_json_type
from engine.request import (
    FIELDS,
    MAX_OVERSUBSCRIPTION,
    MAX_POOLS,
    REQUEST_FIELDS,
    FieldKind,
    MediaPolicy,
    RequestField,
)
from planner.models import Design, Scenario

# Named in SPECTACULAR_SETTINGS (one enum name for the request's `media` choices).
MEDIA_POLICY_CHOICES = [(m.value, m.value) for m in MediaPolicy]
S = TypeVar("S", bound=serializers.Serializer[Any])

REQUEST_EXAMPLE = {
    "gpus": 1024,
    "gpus_per_server": 8,
    "rails": 8,
    "nic_speed": 400,
    "fabric": "rail",
    "leaf": "64x400",
    "spine": "64x400",
    "oversubscription": 1,
    "media": "auto",
}


RATIO_PATTERN = r"^\s*\d+(\.\d+)?\s*(:\s*\d+(\.\d+)?\s*)?$"
TIER_RATIO = {"type": "number", "minimum": 1, "maximum": MAX_OVERSUBSCRIPTION}


@extend_schema_field(
    {
        "oneOf": [
            TIER_RATIO,
            {"type": "string", "pattern": RATIO_PATTERN, "example": "3:1"},
            {
                "type": "object",
                "properties": {"leaf": TIER_RATIO, "spine": TIER_RATIO},
                "additionalProperties": False,
            },
        ]
    }
)
class OversubscriptionField(serializers.JSONField):
    """A ratio (3), a ratio as written ("3:1") or one per tier ({"leaf": 3, "spine": 1}). The
    engine reads the values (and names the tier that is out of range); here a JSON value of
    another kind is refused, as JsonTypes refuses one for a typed field: `true` or `"2"` for a
    tier's ratio."""

    # DRF formats the message (str.format): the object's braces are doubled.
    default_error_messages = {
        "invalid": _(
            'Give a number, a ratio such as "3:1", or one per tier: {{"leaf": 3, "spine": 1}}.'
        )
    }

    def to_internal_value(self, data: Any) -> Any:
        # "" too: the engine reads it as "not given" (a form's empty field); in JSON, leaving the
        # field out says that, and "" is no ratio (the schema's pattern).
        if isinstance(data, str):
            if not re.fullmatch(RATIO_PATTERN, data):
                self.fail("invalid")
        elif not all(has_json_type(value, "number") for value in _tiers(data)):
            self.fail("invalid")
        return super().to_internal_value(data)


def _tiers(data: Any) -> list[Any]:
    return list(data.values()) if isinstance(data, dict) else [data]


class PlaneSerializer(JsonTypes, ShallowFieldCopies, serializers.Serializer[Any]):
    nic_speed = serializers.IntegerField(required=False, min_value=1, help_text="Gbps per port")
    ports = serializers.IntegerField(required=False, min_value=1, help_text="ports per server")
    nic = serializers.CharField(required=False, help_text="catalog NIC SKU")
    oversubscription = serializers.FloatField(required=False, min_value=1)
    leaf = serializers.CharField(required=False, help_text="PORTSxSPEED or a switch SKU")
    spine = serializers.CharField(required=False, help_text="PORTSxSPEED or a switch SKU")
    storage_nodes = serializers.IntegerField(required=False, min_value=0)
    storage_node_ports = serializers.IntegerField(required=False, min_value=0)


class PoolSerializer(JsonTypes, ShallowFieldCopies, serializers.Serializer[Any]):
    """Another kind of server on the compute fabric (engine.request.pool_parse's fields)."""

    # The ranges are the request's own fields' (REQUEST_FIELDS), which the engine checks.
    gpus = serializers.IntegerField(min_value=1, max_value=int(FIELDS["gpus"].high or 0))
    gpus_per_server = serializers.IntegerField(
        required=False, min_value=1, max_value=int(FIELDS["gpus_per_server"].high or 0)
    )
    rails = serializers.IntegerField(
        required=False, min_value=1, max_value=int(FIELDS["rails"].high or 0)
    )
    nic_speed = serializers.IntegerField(required=False, min_value=1, help_text="Gbps per port")
    nic = serializers.CharField(required=False, help_text="catalog NIC SKU")
    servers_per_rack = serializers.IntegerField(
        required=False, min_value=1, max_value=int(FIELDS["servers_per_rack"].high or 0)
    )

    def to_internal_value(self, data: Any) -> Any:
        # A misspelt option must not be dropped: the pool would be sized from defaults.
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: [_("Unknown field.")] for name in unknown})
        return super().to_internal_value(data)


def _request_field(spec: RequestField) -> serializers.Field[Any, Any, Any, Any]:
    """The API's field for one engine request field: its JSON type, the range the engine
    accepts (so the schema states what the engine checks) and its help, translated."""
    # The engine's English help is in the catalogue (makemessages finds its gettext_noop).
    options: dict[str, Any] = {"required": spec.required, "help_text": _(spec.help)}
    if spec.kind is FieldKind.INTEGER:
        return serializers.IntegerField(
            min_value=int(spec.low or 0), max_value=int(spec.high or 0), **options
        )
    if spec.kind is FieldKind.NUMBER:
        return serializers.FloatField(min_value=spec.low, max_value=spec.high, **options)
    if spec.kind is FieldKind.BOOLEAN:
        return serializers.BooleanField(**options)
    if spec.kind is FieldKind.CHOICE:
        return serializers.ChoiceField(choices=list(spec.choices), **options)
    if spec.kind is FieldKind.TEXT:
        return serializers.CharField(**options)
    if spec.kind is FieldKind.RATIO:
        return OversubscriptionField(**options)
    if spec.kind is FieldKind.POOLS:
        return serializers.ListField(child=PoolSerializer(), max_length=MAX_POOLS, **options)
    return PlaneSerializer(**options)


def with_request_fields(cls: type[S]) -> type[S]:
    """Declares one field per engine request field (engine.request.REQUEST_FIELDS), before the
    fields the class declares itself: the API takes what the CLI and the wizard take, from the
    one definition (issue 26, item 4: `uplink_speed`, `planes`, `build` and
    `oversubscription_tolerance` were refused here as unknown)."""
    fields = {spec.name: _request_field(spec) for spec in REQUEST_FIELDS}
    cls._declared_fields = {**fields, **cls._declared_fields}
    return cls


@with_request_fields
class DesignRequestSerializer(JsonTypes, ShallowFieldCopies, serializers.Serializer[Any]):
    """The engine's request fields (CLI option names with underscores), from REQUEST_FIELDS."""

    def to_internal_value(self, data: Any) -> Any:
        # A misspelt field (e.g. "gpu") must not be silently ignored: the design would be sized
        # from defaults the engineer never chose.
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: [_("Unknown field.")] for name in unknown})
        return super().to_internal_value(data)

    def request_data(self) -> dict[str, Any]:
        """The validated request as the engine reads it (unset fields left to engine defaults)."""
        return {
            key: value
            for key, value in self.validated_data.items()
            if key in self.fields and key not in DesignCreateSerializer.META_FIELDS
        }


class DesignCreateSerializer(DesignRequestSerializer):
    META_FIELDS = frozenset({"name", "scenario", "customer"})

    name = serializers.CharField(required=False, max_length=200)
    scenario = serializers.ChoiceField(choices=Scenario.choices, required=False)
    # An id only: whether the caller may use that customer is `customer_for`'s to decide.
    customer = serializers.IntegerField(required=False, allow_null=True)


class DesignSerializer(serializers.ModelSerializer[Design]):
    owner = serializers.CharField(source="owner.username", read_only=True)
    team = serializers.CharField(source="team.name", read_only=True)
    links = serializers.SerializerMethodField()

    class Meta:
        model = Design
        fields = [
            "id", "name", "scenario", "customer", "owner", "team", "is_draft", "gpus",
            "catalog_version", "copied_from", "created_at", "updated_at", "request", "result",
            "links",
        ]  # fmt: skip
        read_only_fields = fields

    def get_links(self, design: Design) -> dict[str, str]:
        base = f"/api/v1/designs/{design.pk}/"
        return {
            "self": base,
            "bom_xlsx": f"{base}bom.xlsx",
            "bom_csv": f"{base}bom.csv",
            "cabling_csv": f"{base}cabling.csv",
        }


class DesignPreviewSerializer(serializers.Serializer[Any]):
    request = serializers.JSONField()
    result = serializers.JSONField()


class BomChangeSerializer(serializers.Serializer[Any]):
    sku = serializers.CharField(help_text=_("Empty for a generic part (named by description)."))
    description = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=["added", "removed", "quantity", "repriced", "quantity_repriced"]
    )
    quantity_before = serializers.IntegerField()
    quantity_after = serializers.IntegerField()
    unit_price_before = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    unit_price_after = serializers.DecimalField(max_digits=16, decimal_places=2, allow_null=True)
    amount_delta = serializers.DecimalField(
        max_digits=18,
        decimal_places=2,
        allow_null=True,
        help_text=_("Null when a side has no price, or the currencies differ."),
    )


class ResizePreviewSerializer(serializers.Serializer[Any]):
    """What re-sizing a saved design against today's catalog would change (nothing is saved)."""

    catalog_version_before = serializers.CharField()
    catalog_version_after = serializers.CharField()
    currency_before = serializers.CharField()
    currency_after = serializers.CharField()
    total_before = serializers.DecimalField(max_digits=18, decimal_places=2)
    total_after = serializers.DecimalField(max_digits=18, decimal_places=2)
    total_delta = serializers.DecimalField(
        max_digits=18,
        decimal_places=2,
        allow_null=True,
        help_text=_("Null when the price lists' currencies differ."),
    )
    changed = serializers.BooleanField()
    changes = BomChangeSerializer(many=True)
