"""API representations of customers, their contacts and opportunities, and the bodies a CRM
upserts them with. They parse; access and the rules are the services' (customers.services)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from customers.models import Contact, Customer, Opportunity


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


class JsonStringField(serializers.CharField):
    """A string as the schema says: a JSON number or boolean is refused (DRF's CharField turned
    0 into "0", so a CRM sending the wrong field got a customer named "0"), and the length is
    the one sent, before surrounding spaces are trimmed."""

    default_error_messages = {"invalid": _("Enter text (a JSON string).")}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return str(super().to_internal_value(data))


class JsonIntegerField(serializers.IntegerField):
    """A whole number as the schema says: a JSON string ("5"), decimal (5.0) or boolean is
    refused, not converted."""

    default_error_messages = {"invalid": _("Enter a whole number (a JSON integer).")}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class CustomerUpsertSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name_en = JsonStringField(max_length=200, min_length=1)
    name_zh = JsonStringField(max_length=200, required=False, allow_blank=True, default="")
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
    customer = JsonIntegerField(min_value=1, help_text="id of a customer you see")
    name = JsonStringField(max_length=200, min_length=1)
