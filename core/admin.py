from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from core.models import (
    ApiToken,
    Membership,
    Team,
    WebhookAttempt,
    WebhookDelivery,
    WebhookSubscription,
    WorkerProbe,
)
from core.services import api_token_create, api_token_revoke
from core.webhooks import TargetRefused, webhook_url_check


class MembershipInline(admin.TabularInline[Membership, Team]):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin[Team]):
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(WorkerProbe)
class WorkerProbeAdmin(admin.ModelAdmin[WorkerProbe]):
    list_display = ["pk", "status", "attempts", "worker_hostname", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in WorkerProbe._meta.fields]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    """Tokens are created here or with `manage.py api_token create`; the secret is shown once."""

    list_display = ["name", "prefix", "user", "scope", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["scope", ("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix", "user__username"]
    fields = ["user", "name", "scope", "prefix", "created_at", "last_used_at", "revoked_at"]
    # Revoking goes through the action (api_token_revoke), which also clears the token cache.
    readonly_fields = ["prefix", "created_at", "last_used_at", "revoked_at"]
    autocomplete_fields = ["user"]
    actions = ["revoke"]

    def save_model(
        self, request: HttpRequest, obj: ApiToken, form: forms.ModelForm[ApiToken], change: bool
    ) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        token, secret = api_token_create(user=obj.user, name=obj.name, scope=obj.scope)
        obj.pk = token.pk
        obj.refresh_from_db()
        messages.warning(
            request,
            _("Copy the token now; it will not be shown again: %(secret)s") % {"secret": secret},
        )

    @admin.action(description=_("Revoke selected tokens"))
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        for token in queryset:
            api_token_revoke(token=token)


class WebhookAttemptInline(admin.TabularInline[WebhookAttempt, WebhookDelivery]):
    model = WebhookAttempt
    extra = 0
    can_delete = False
    readonly_fields = ["at", "status_code", "error", "duration_ms"]


class WebhookSubscriptionForm(forms.ModelForm[WebhookSubscription]):
    """The API's rules for a target URL (core.webhooks.webhook_url_check) apply here too."""

    url = forms.URLField(label=_("URL"), max_length=500, assume_scheme="https")

    class Meta:
        model = WebhookSubscription
        fields = ["user", "url", "events", "is_active"]

    def clean_url(self) -> str:
        url: str = self.cleaned_data["url"]
        try:
            webhook_url_check(url)
        except TargetRefused as refused:
            raise forms.ValidationError(refused.message) from None
        return url


@admin.register(WebhookSubscription)
class WebhookSubscriptionAdmin(admin.ModelAdmin[WebhookSubscription]):
    form = WebhookSubscriptionForm
    list_display = ["url", "user", "is_active", "created_at"]
    list_filter = ["is_active"]
    search_fields = ["url", "user__username"]
    readonly_fields = ["secret", "created_at"]
    autocomplete_fields = ["user"]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin[WebhookDelivery]):
    list_display = ["message_id", "event", "subscription", "status", "attempts", "created_at"]
    list_filter = ["status", "event"]
    search_fields = ["message_id", "subscription__url"]
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]
    inlines = [WebhookAttemptInline]
