from django.contrib import admin

from customers.models import Contact, Customer, Opportunity


class ContactInline(admin.TabularInline[Contact, Customer]):
    model = Contact
    extra = 0


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin[Customer]):
    list_display = ["name_en", "name_zh", "team", "external_source", "external_id"]
    list_filter = ["team", "external_source"]
    search_fields = ["name_en", "name_zh", "external_id"]
    inlines = [ContactInline]


@admin.register(Opportunity)
class OpportunityAdmin(admin.ModelAdmin[Opportunity]):
    list_display = ["name", "customer", "owner", "external_source", "external_id", "created_at"]
    search_fields = ["name", "external_id", "customer__name_en"]
