from django.contrib import admin

from quotes.models import (
    AuditEvent,
    Contact,
    Customer,
    CustomerDecision,
    DiscountPolicy,
    Document,
    Opportunity,
    Quote,
    QuoteLine,
    QuoteNumberCounter,
    QuoteRevision,
    ShareLink,
)


class ContactInline(admin.TabularInline):
    model = Contact
    extra = 0


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    list_display = ["name_en", "name_zh", "team", "external_source", "external_id"]
    list_filter = ["team", "external_source"]
    search_fields = ["name_en", "name_zh", "external_id"]
    inlines = [ContactInline]


@admin.register(Opportunity)
class OpportunityAdmin(admin.ModelAdmin):
    list_display = ["name", "customer", "owner", "external_source", "external_id", "created_at"]
    search_fields = ["name", "external_id", "customer__name_en"]


@admin.register(DiscountPolicy)
class DiscountPolicyAdmin(admin.ModelAdmin):
    """The discount policy is data: thresholds and the role that approves above them."""

    list_display = ["name", "metric", "threshold", "currency", "approver_group", "is_active"]
    list_editable = ["threshold", "is_active"]
    list_filter = ["metric", "is_active"]


class ReadOnlyAdmin(admin.ModelAdmin):
    """Quotes change through their services only (numbering, freezing, audit)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class QuoteLineInline(admin.TabularInline):
    model = QuoteLine
    extra = 0
    fields = ["position", "kind", "plane", "tier", "sku", "quantity", "is_optional",
              "discount_percent", "override_unit_price", "unit_price", "line_total"]  # fmt: skip
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
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
class DocumentAdmin(admin.ModelAdmin):
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
