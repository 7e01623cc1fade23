"""API representations of customers and quotes. Cost and margin only with quotes.view_margin."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from rest_framework import serializers

from catalog.models import Currency
from quotes.models import Contact, Customer, Opportunity, Quote, QuoteLine, QuoteRevision


class ContactSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Contact
        fields = ["id", "name", "email", "phone", "title", "is_primary"]


class CustomerSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    team = serializers.CharField(source="team.name", read_only=True)
    contacts = ContactSerializer(many=True, read_only=True)

    class Meta:
        model = Customer
        fields = [
            "id",
            "name_en",
            "name_zh",
            "external_source",
            "external_id",
            "preferred_language",
            "team",
            "contacts",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["external_source", "external_id", "created_at", "updated_at"]


class CustomerUpsertSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name_en = serializers.CharField(max_length=200, min_length=1)
    name_zh = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    preferred_language = serializers.ChoiceField(
        choices=settings.LANGUAGES, required=False, allow_null=True, default=None
    )


class OpportunitySerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    owner = serializers.CharField(source="owner.username", read_only=True, allow_null=True)

    class Meta:
        model = Opportunity
        fields = ["id", "name", "customer", "external_source", "external_id", "owner", "created_at"]
        read_only_fields = fields


class OpportunityUpsertSerializer(serializers.Serializer):  # type: ignore[type-arg]
    customer = serializers.IntegerField(min_value=1, help_text="id of a customer you see")
    name = serializers.CharField(max_length=200, min_length=1)


# Bounds that keep a value, and what is computed from it, inside its column.
MAX_EXCHANGE_RATE = Decimal("100000")
MAX_LINE_QUANTITY = 100_000_000

_MONEY = {"max_digits": 14, "decimal_places": 2, "read_only": True, "allow_null": True}


class QuoteLineSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    """A line. One to be priced (a catalog gap: no SKU, no price entered yet) has
    `to_be_priced: true` and null prices and amount; the revision's totals leave it out."""

    to_be_priced = serializers.BooleanField(read_only=True)
    list_unit_price = serializers.DecimalField(**_MONEY)
    unit_price = serializers.DecimalField(**_MONEY)
    line_total = serializers.DecimalField(max_digits=16, decimal_places=2, read_only=True,
                                          allow_null=True)  # fmt: skip

    class Meta:
        model = QuoteLine
        fields = [
            "id",
            "position",
            "kind",
            "plane",
            "tier",
            "sku",
            "description",
            "quantity",
            "is_optional",
            "to_be_priced",
            "price_source",
            "list_unit_price",
            "discount_percent",
            "override_unit_price",
            "effective_discount_percent",
            "unit_price",
            "line_total",
            "unit_cost",
        ]

    def to_representation(self, instance: QuoteLine) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.to_be_priced:
            data.update(list_unit_price=None, unit_price=None, line_total=None)
        if not self.context.get("show_margin"):
            data.pop("unit_cost", None)
        return data


class RevisionSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    label = serializers.CharField(read_only=True)
    approved_by = serializers.CharField(source="approved_by.username", default=None)
    sent_by = serializers.CharField(source="sent_by.username", default=None)
    lines = QuoteLineSerializer(many=True, read_only=True)
    unpriced_lines = serializers.IntegerField(
        source="unpriced_line_count",
        read_only=True,
        help_text="Lines still to be priced: the totals exclude them, and the revision cannot "
        "be submitted or sent until there are none.",
    )

    class Meta:
        model = QuoteRevision
        fields = [
            "id",
            "number",
            "label",
            "status",
            "price_list_code",
            "price_list_currency",
            "prices_are_samples",
            "currency",
            "exchange_rate",
            "tax_rate",
            "terms",
            "validity_days",
            "valid_until",
            "list_total",
            "subtotal",
            "tax",
            "total",
            "optional_total",
            "unpriced_lines",
            "max_discount_percent",
            "cost_total",
            "margin_percent",
            "approval_reasons",
            "submitted_at",
            "approved_by",
            "approved_at",
            "sent_by",
            "sent_at",
            "closed_at",
            "created_at",
            "lines",
        ]

    def to_representation(self, instance: QuoteRevision) -> dict[str, Any]:
        data = super().to_representation(instance)
        if not self.context.get("show_margin"):
            data.pop("cost_total", None)
            data.pop("margin_percent", None)
        return data


class QuoteSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    owner = serializers.CharField(source="owner.username", read_only=True)
    team = serializers.CharField(source="team.name", read_only=True)
    current_revision = serializers.SerializerMethodField()

    class Meta:
        model = Quote
        fields = [
            "id",
            "number",
            "title",
            "status",
            "currency",
            "total",
            "customer",
            "opportunity",
            "design",
            "owner",
            "team",
            "created_at",
            "updated_at",
            "current_revision",
        ]

    def get_current_revision(self, quote: Quote) -> dict[str, Any] | None:
        revision = quote.current_revision
        if revision is None:
            return None
        return RevisionSerializer(revision, context=self.context).data  # type: ignore[no-any-return]


class QuoteCreateSerializer(serializers.Serializer):  # type: ignore[type-arg]
    design = serializers.IntegerField(help_text="Id of a sized design visible to the caller.")
    customer = serializers.IntegerField(help_text="Id of a customer of the caller's team.")
    opportunity = serializers.IntegerField(required=False, allow_null=True, default=None)
    title = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    price_list = serializers.CharField(
        required=False, allow_null=True, default=None, help_text="Price list code; default list."
    )
    currency = serializers.ChoiceField(
        choices=Currency.choices, required=False, allow_null=True, default=None
    )
    exchange_rate = serializers.DecimalField(
        max_digits=14,
        decimal_places=6,
        required=False,
        allow_null=True,
        default=None,
        min_value=Decimal("0.000001"),
        # The column holds up to 99,999,999; far beyond any real rate, prices times such a rate
        # overflow the price columns (a 500 on PostgreSQL). 100,000 covers every currency.
        max_value=MAX_EXCHANGE_RATE,
        help_text="Units of the quote's currency per unit of the price list's currency "
        "(at most 100,000).",
    )
    support_years = serializers.IntegerField(min_value=0, max_value=10, default=1)


class LineUpdateSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """What may change on a line of an editable revision; fields left out keep their value."""

    quantity = serializers.IntegerField(required=False, min_value=0, max_value=MAX_LINE_QUANTITY)
    discount_percent = serializers.DecimalField(
        max_digits=5, decimal_places=2, required=False, min_value=Decimal("0"),
        max_value=Decimal("100"),
    )  # fmt: skip
    override_unit_price = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        required=False,
        allow_null=True,
        min_value=Decimal("0"),
        help_text="Unit price in the quote's currency: prices a line to be priced, or overrides "
        "the catalog price; null clears it.",
    )
    sku = serializers.CharField(
        required=False,
        max_length=64,
        help_text="Replace the line's product with this catalog SKU (e.g. a line to be priced).",
    )
    description = serializers.CharField(required=False, max_length=2000)
    is_optional = serializers.BooleanField(required=False)


class RejectSerializer(serializers.Serializer):  # type: ignore[type-arg]
    reason = serializers.CharField(max_length=500)


class SendResultSerializer(serializers.Serializer):  # type: ignore[type-arg]
    revision = RevisionSerializer()
    share_url = serializers.URLField()
