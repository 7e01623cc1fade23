"""API representations of quotes. Cost and margin only with quotes.view_margin."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import Currency
from core.api.base import ShallowFieldCopies
from core.api.json_types import JsonTypes
from quotes.models import Quote, QuoteLine, QuoteRevision, QuoteStatus, percent_text
from quotes.services.terms import MILESTONES

# Bounds that keep a value, and what is computed from it, inside its column.
MAX_EXCHANGE_RATE = Decimal("100000")
MAX_LINE_QUANTITY = 100_000_000

_MONEY: dict[str, Any] = {
    "max_digits": 14,
    "decimal_places": 2,
    "read_only": True,
    "allow_null": True,
}


class QuoteLineSerializer(serializers.ModelSerializer[QuoteLine]):
    """A line. One to be priced (a catalog gap: no SKU, no price entered yet) has
    `to_be_priced: true` and null prices and amount; the revision's totals leave it out."""

    to_be_priced = serializers.BooleanField(read_only=True)
    list_unit_price = serializers.DecimalField(**_MONEY)
    unit_price = serializers.DecimalField(**_MONEY)
    line_total = serializers.DecimalField(max_digits=16, decimal_places=2, read_only=True,
                                          allow_null=True)  # fmt: skip
    tax_percent = serializers.SerializerMethodField(
        help_text='The VAT rate the line is taxed at, in percent ("13" is 13%).'
    )
    description = serializers.CharField(
        source="localized_description",
        read_only=True,
        help_text="The description in the request's language (Accept-Language), else the other.",
    )
    description_en = serializers.CharField(
        source="description", read_only=True, help_text="The description in English."
    )
    description_zh = serializers.CharField(
        read_only=True, help_text="The description in Chinese (blank: none, use the English)."
    )

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
            "description_en",
            "description_zh",
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
            "override_unit_cost",
            "tax_percent",
            "version",
        ]
        extra_kwargs = {
            "override_unit_cost": {
                "help_text": "The unit cost entered for a line priced by hand (no catalog "
                "product), in the price list's currency; null: none. Only with "
                "quotes.view_margin."
            },
            "version": {
                "read_only": True,
                "help_text": "The line's version, bumped by every change; its ETag is "
                '"line-<id>-v<version>" (send it as If-Match to change or delete the line).',
            },
        }

    def get_tax_percent(self, line: QuoteLine) -> str:
        return percent_text(line.tax_rate)

    def to_representation(self, instance: QuoteLine) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.to_be_priced:
            data.update(list_unit_price=None, unit_price=None, line_total=None)
        if not self.context.get("show_margin"):
            data.pop("unit_cost", None)
            data.pop("override_unit_cost", None)
        return data


class RevisionSerializer(serializers.ModelSerializer[QuoteRevision]):
    # A field named like Field.label: the revision's label (Q-2026-0001-R1), not a caption.
    label = serializers.CharField(read_only=True)  # type: ignore[assignment]
    # Read-only and nullable: a revision nobody approved or sent yet answers null (the schema
    # said a required string, a Schemathesis violation on every revision response).
    approved_by = serializers.CharField(
        source="approved_by.username", default=None, read_only=True, allow_null=True
    )
    sent_by = serializers.CharField(
        source="sent_by.username", default=None, read_only=True, allow_null=True
    )
    lines = QuoteLineSerializer(many=True, read_only=True)
    unpriced_lines = serializers.IntegerField(
        source="unpriced_line_count",
        read_only=True,
        help_text="Lines still to be priced: the totals exclude them, and the revision cannot "
        "be submitted or sent until there are none.",
    )
    goods_tax_percent = serializers.CharField(
        source="tax_percent", read_only=True, help_text='VAT on goods in percent ("13").'
    )
    services_tax_percent = serializers.CharField(read_only=True)
    freight_tax_percent = serializers.CharField(read_only=True)

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
            "goods_tax_percent",
            "services_tax_percent",
            "freight_tax_percent",
            "tax_breakdown",
            "payment_milestones",
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
            "content_sha256",
            "submitted_sha256",
            "approved_sha256",
            "submitted_at",
            "approved_by",
            "approved_at",
            "sent_by",
            "sent_at",
            "closed_at",
            "created_at",
            "version",
            "lines",
        ]
        extra_kwargs = {
            "content_sha256": {
                "read_only": True,
                "help_text": "SHA-256 of what the revision says (lines, terms, totals, design "
                "snapshot) as of its last change; every document records the one it was "
                "rendered from.",
            },
            "submitted_sha256": {
                "read_only": True,
                "help_text": "The content submitted: a submitted revision no longer changes.",
            },
            "approved_sha256": {
                "read_only": True,
                "help_text": "The content approved (the submitted one): sending checks it again.",
            },
            "version": {
                "read_only": True,
                "help_text": "The revision's version, bumped by every change of it or of its "
                'lines; its ETag is "revision-<id>-v<version>" (send it as If-Match to change '
                "the terms or the freight).",
            },
        }

    def to_representation(self, instance: QuoteRevision) -> dict[str, Any]:
        data = super().to_representation(instance)
        if not self.context.get("show_margin"):
            data.pop("cost_total", None)
            data.pop("margin_percent", None)
        return data


class QuoteSerializer(serializers.ModelSerializer[Quote]):
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
            "archived_at",
            "sales_contact",
            "current_revision",
        ]

    def get_current_revision(self, quote: Quote) -> dict[str, Any] | None:
        # The API's detail prefetches it (`QuoteViewSet.shown`).
        prefetched = getattr(quote, "current_revisions", None)
        if prefetched is not None:
            revision = prefetched[0] if prefetched else None
        else:
            revision = quote.current_revision
        if revision is None:
            return None
        return RevisionSerializer(revision, context=self.context).data


class RevisionSummarySerializer(ShallowFieldCopies, serializers.Serializer[QuoteRevision]):
    """The current revision in the quotes' list: status, totals and validity; no lines (the
    detail, `GET /quotes/{id}/`, has them)."""

    id = serializers.IntegerField(read_only=True)
    number = serializers.IntegerField(read_only=True)
    status = serializers.ChoiceField(choices=QuoteStatus.choices, read_only=True)
    currency = serializers.CharField(read_only=True)
    subtotal = serializers.DecimalField(max_digits=16, decimal_places=2, read_only=True)
    tax = serializers.DecimalField(max_digits=16, decimal_places=2, read_only=True)
    total = serializers.DecimalField(max_digits=16, decimal_places=2, read_only=True)
    optional_total = serializers.DecimalField(max_digits=16, decimal_places=2, read_only=True)
    valid_until = serializers.DateField(read_only=True, allow_null=True)
    created_at = serializers.DateTimeField(read_only=True)


class QuoteListSerializer(ShallowFieldCopies, serializers.Serializer[Quote]):
    """A quote in the list: number, status, customer, totals, validity and links. The lines
    stay in the detail (`links.self`): serialising every line of every quote made a page of 25
    quotes 138 KB and 265 ms (bench.load). Fields are declared, not derived from the model, as
    in planner's DesignListSerializer: mapping model fields again for every response is a large
    share of a list's time."""

    id = serializers.IntegerField(read_only=True)
    number = serializers.CharField(read_only=True)
    title = serializers.CharField(read_only=True)
    status = serializers.ChoiceField(choices=QuoteStatus.choices, read_only=True)
    currency = serializers.CharField(read_only=True)
    total = serializers.DecimalField(max_digits=16, decimal_places=2, read_only=True)
    customer = serializers.IntegerField(source="customer_id", read_only=True)
    # The English name, else the Chinese one (a customer may have only that).
    customer_name = serializers.SerializerMethodField()
    opportunity = serializers.IntegerField(source="opportunity_id", read_only=True, allow_null=True)
    design = serializers.IntegerField(source="design_id", read_only=True)
    owner = serializers.CharField(source="owner.username", read_only=True)
    team = serializers.CharField(source="team.name", read_only=True)
    created_at = serializers.DateTimeField(read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)
    archived_at = serializers.DateTimeField(read_only=True, allow_null=True)
    valid_until = serializers.SerializerMethodField()
    current_revision = serializers.SerializerMethodField()
    links = serializers.SerializerMethodField()

    def _current(self, quote: Quote) -> QuoteRevision | None:
        # The API's list answers from `quotes.api.summaries`; this serializer describes its
        # schema, and tests hold the two alike with the revision prefetched for the page.
        prefetched = getattr(quote, "current_revisions", None)
        if prefetched is None:
            return quote.current_revision
        return prefetched[0] if prefetched else None

    def get_customer_name(self, quote: Quote) -> str:
        return quote.customer.name_en or quote.customer.name_zh

    def get_valid_until(self, quote: Quote) -> date | None:
        revision = self._current(quote)
        return revision.valid_until if revision is not None else None

    @extend_schema_field(RevisionSummarySerializer(allow_null=True))
    def get_current_revision(self, quote: Quote) -> dict[str, Any] | None:
        revision = self._current(quote)
        if revision is None:
            return None
        # One summary serializer for the whole page: a new one per row copied its fields each
        # time, 12 ms of a 30 ms list request.
        summary = getattr(self, "_summary", None)
        if summary is None:
            summary = self._summary = RevisionSummarySerializer()
        return dict(summary.to_representation(revision))

    def get_links(self, quote: Quote) -> dict[str, str]:
        base = f"/api/v1/quotes/{quote.pk}/"
        return {
            "self": base,
            "revisions": f"{base}revisions/",
            "documents": f"{base}documents/",
            "xlsx": f"{base}quote.xlsx",
        }


class QuoteCreateSerializer(JsonTypes, serializers.Serializer[Any]):
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
    contact_phone = serializers.CharField(
        max_length=40,
        required=False,
        allow_null=True,
        default=None,
        help_text="The sales engineer's phone for the customer (documents and share page); "
        "left out: the one on the caller's latest quote.",
    )


class LineUpdateSerializer(JsonTypes, serializers.Serializer[Any]):
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
    description = serializers.CharField(
        required=False,
        max_length=2000,
        help_text="A text typed by hand: the description in both languages.",
    )
    description_en = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=2000,
        help_text="The English description only (blank: none, readers see the Chinese).",
    )
    description_zh = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=2000,
        help_text="The Chinese description only (blank: none, readers see the English).",
    )
    is_optional = serializers.BooleanField(required=False)
    override_unit_cost = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        required=False,
        allow_null=True,
        min_value=Decimal("0"),
        help_text="Unit cost of a line priced by hand (no catalog product), in the price list's "
        "currency: without it the revision's margin is unknown. Needs quotes.view_margin; null "
        "clears it.",
    )


def _tax_percent(name: str) -> serializers.DecimalField:
    return serializers.DecimalField(
        max_digits=5,
        decimal_places=2,
        min_value=Decimal("0"),
        max_value=Decimal("99.99"),
        required=False,
        help_text=f"VAT on {name}, in percent: 13 is 13%.",
    )


class MilestoneSerializer(serializers.Serializer[Any]):
    phase = serializers.ChoiceField(
        choices=MILESTONES,
        help_text="A phase of the implementation plan on whose completion the payment falls "
        'due, or "acceptance": the customer\'s final acceptance.',
    )
    percent = serializers.DecimalField(
        max_digits=5, decimal_places=2, min_value=Decimal("0.01"), max_value=Decimal("100")
    )


class CommercialTermsSerializer(JsonTypes, serializers.Serializer[Any]):
    """VAT per line kind (in percent), payment milestones (summing to 100%), terms and validity
    of the current revision; fields left out keep their value. Nothing is saved unless every
    field is valid."""

    goods_tax_percent = _tax_percent("goods")
    services_tax_percent = _tax_percent("services")
    freight_tax_percent = _tax_percent("freight")
    payment_milestones = MilestoneSerializer(many=True, required=False)
    terms = serializers.CharField(required=False, allow_blank=True, max_length=10_000)
    regenerate_terms = serializers.BooleanField(
        required=False, default=False, help_text="Write the terms again from the lines."
    )
    validity_days = serializers.IntegerField(required=False, min_value=1, max_value=365)


class FreightSerializer(serializers.Serializer[Any]):
    amount = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        min_value=Decimal("0"),
        allow_null=True,
        help_text="Freight in the quote's currency before VAT; null removes the freight line.",
    )


class RejectSerializer(JsonTypes, serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=500)


class SendResultSerializer(serializers.Serializer[Any]):
    revision = RevisionSerializer()
    share_url = serializers.URLField()
