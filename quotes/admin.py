from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from quotes.models import (
    AuditEvent,
    CustomerDecision,
    DiscountPolicy,
    Document,
    Quote,
    QuoteLine,
    QuoteNumberCounter,
    QuoteRevision,
    ShareLink,
)


@admin.register(DiscountPolicy)
class DiscountPolicyAdmin(admin.ModelAdmin[DiscountPolicy]):
    """The discount policy is data: thresholds and the role that approves above them."""

    list_display = ["name", "metric", "threshold", "currency", "approver_group", "is_active"]
    list_editable = ["threshold", "is_active"]
    list_filter = ["metric", "is_active"]


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    """Quotes change through their services only (numbering, freezing, audit)."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


LINE_FIELDS = ("position", "kind", "plane", "tier", "sku", "quantity", "is_optional",
               "discount_percent", "override_unit_price", "unit_price", "line_total")  # fmt: skip


class QuoteLineInline(admin.TabularInline[QuoteLine, QuoteRevision]):
    model = QuoteLine
    extra = 0
    fields = LINE_FIELDS
    readonly_fields = LINE_FIELDS
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Quote)
class QuoteAdmin(ReadOnlyAdmin):
    list_display = ["number", "title", "customer", "owner", "team", "status", "total", "currency"]
    list_filter = ["status", "team"]
    search_fields = ["number", "title", "customer__name_en"]


@admin.register(QuoteRevision)
class QuoteRevisionAdmin(ReadOnlyAdmin):
    list_display = [
        "__str__",
        "status",
        "total",
        "currency",
        "approved_by",
        "sent_at",
        "valid_until",
    ]
    list_filter = ["status"]
    inlines = [QuoteLineInline]


@admin.register(ShareLink)
class ShareLinkAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "created_by", "created_at", "revoked_at"]


@admin.register(CustomerDecision)
class CustomerDecisionAdmin(ReadOnlyAdmin):
    list_display = ["revision", "decision", "name", "email", "ip", "decided_at", "pdf_sha256"]


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "quote", "revision", "action", "actor_label", "ip"]
    list_filter = ["action"]
    search_fields = ["quote__number", "actor_label"]


admin.site.register(QuoteNumberCounter, ReadOnlyAdmin)


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin[Document]):
    list_display = [
        "pk",
        "revision",
        "kind",
        "language",
        "status",
        "progress",
        "attempts",
        "created_at",
    ]
    list_filter = ["status", "kind", "language"]
    search_fields = ["revision__quote__number", "sha256"]
    readonly_fields = [f.name for f in Document._meta.fields]
