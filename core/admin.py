from django.contrib import admin

from core.models import Membership, Team, WorkerProbe


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(WorkerProbe)
class WorkerProbeAdmin(admin.ModelAdmin):
    list_display = ["pk", "status", "attempts", "worker_hostname", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in WorkerProbe._meta.fields]
