"""API representations of customers, their contacts and opportunities, and the bodies a CRM
upserts them with. They parse; access and the rules are the services' (customers.services)."""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers

from core.api.json_types import JsonTypes
from customers.models import Contact, Customer, Opportunity


class ContactSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Contact
        fields = ["id", "name", "email", "phone", "title", "is_primary"]


class CustomerSerializer(JsonTypes, serializers.ModelSerializer):  # type: ignore[type-arg]
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


class CustomerUpsertSerializer(JsonTypes, serializers.Serializer):  # type: ignore[type-arg]
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


class OpportunityUpsertSerializer(JsonTypes, serializers.Serializer):  # type: ignore[type-arg]
    customer = serializers.IntegerField(min_value=1, help_text="id of a customer you see")
    name = serializers.CharField(max_length=200, min_length=1)
