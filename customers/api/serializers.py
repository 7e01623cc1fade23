"""API representations of customers, their contacts and opportunities, and the bodies a CRM
upserts them with. They parse; access and the rules are the services' (customers.services)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from core.api.json_types import JsonTypes
from customers.models import Contact, Customer, Opportunity
from customers.services import customer_field_errors


class ContactSerializer(serializers.ModelSerializer[Contact]):
    class Meta:
        model = Contact
        fields = ["id", "name", "email", "phone", "title", "is_primary"]


class CustomerSerializer(JsonTypes, serializers.ModelSerializer[Customer]):
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
            "address",
            "tax_id",
            "billing_contact",
            "team",
            "contacts",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["external_source", "external_id", "created_at", "updated_at"]


class CustomerUpsertSerializer(JsonTypes, serializers.Serializer[Any]):
    """A name in Chinese or English (at least one); the tax id, when given, is a unified social
    credit code (GB 32100-2015). Field errors are the services' own words
    (`customers.services.customer_field_errors`), the form's too. Address and tax id left out
    keep their values on an update."""

    name_en = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    name_zh = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    preferred_language = serializers.ChoiceField(
        choices=settings.LANGUAGES, required=False, allow_null=True, default=None
    )
    address = serializers.CharField(
        max_length=2000, required=False, allow_blank=True, allow_null=True, default=None
    )
    tax_id = serializers.CharField(
        max_length=40,
        required=False,
        allow_blank=True,
        allow_null=True,
        default=None,
        help_text=(
            "Unified social credit code (统一社会信用代码): 18 characters, check character per "
            "GB 32100-2015"
        ),
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        errors = customer_field_errors(
            name_en=attrs.get("name_en") or "",
            name_zh=attrs.get("name_zh") or "",
            tax_id=attrs.get("tax_id") or "",
        )
        if errors:
            raise serializers.ValidationError({name: [message] for name, message in errors.items()})
        return attrs


class OpportunitySerializer(serializers.ModelSerializer[Opportunity]):
    owner = serializers.CharField(source="owner.username", read_only=True, allow_null=True)

    class Meta:
        model = Opportunity
        fields = ["id", "name", "customer", "external_source", "external_id", "owner", "created_at"]
        read_only_fields = fields


class OpportunityUpsertSerializer(JsonTypes, serializers.Serializer[Any]):
    customer = serializers.IntegerField(min_value=1, help_text="id of a customer you see")
    name = serializers.CharField(max_length=200, min_length=1)
