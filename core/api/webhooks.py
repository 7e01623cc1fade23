"""Webhook subscriptions over the API: an integration manages its own endpoints and reads every
delivery attempt. The signing secret is returned once, at creation."""

from typing import Any, cast

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import ApiViewSet, User
from core.api.json_types import JsonTypes
from core.models import WebhookAttempt, WebhookDelivery, WebhookEvent, WebhookSubscription
from core.webhooks import TargetRefused, webhook_subscription_create, webhook_url_check


class WebhookSubscriptionSerializer(JsonTypes, serializers.ModelSerializer[WebhookSubscription]):
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=WebhookEvent.values), allow_empty=False
    )

    class Meta:
        model = WebhookSubscription
        fields = ["id", "url", "events", "is_active", "created_at"]
        read_only_fields = ["id", "created_at"]
        extra_kwargs = {
            "url": {
                "help_text": "An https:// endpoint on a public address (never loopback, private, "
                "link-local, multicast or reserved); redirects are not followed."
            }
        }

    def validate_url(self, url: str) -> str:
        try:
            webhook_url_check(url)
        except TargetRefused as refused:
            raise serializers.ValidationError(refused.message) from None
        return url


class WebhookSubscriptionCreatedSerializer(WebhookSubscriptionSerializer):
    class Meta(WebhookSubscriptionSerializer.Meta):
        fields = [*WebhookSubscriptionSerializer.Meta.fields, "secret"]
        read_only_fields = [*WebhookSubscriptionSerializer.Meta.read_only_fields, "secret"]


class WebhookAttemptSerializer(serializers.ModelSerializer[WebhookAttempt]):
    class Meta:
        model = WebhookAttempt
        fields = ["at", "status_code", "error", "duration_ms"]


class WebhookDeliverySerializer(serializers.ModelSerializer[WebhookDelivery]):
    tries = WebhookAttemptSerializer(many=True, read_only=True)

    class Meta:
        model = WebhookDelivery
        fields = [
            "id", "message_id", "event", "status", "attempts", "next_attempt_at", "created_at",
            "finished_at", "payload", "tries",
        ]  # fmt: skip


class WebhookSubscriptionViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    ApiViewSet[WebhookSubscription],
):
    # A subscription is its creator's alone: anyone signed in may have some (no model
    # permission), and sees only their own. (A comment: a docstring would be in the schema.)

    serializer_class = WebhookSubscriptionSerializer
    permission_classes = [IsAuthenticated]
    queryset = WebhookSubscription.objects.none()
    lookup_value_regex = "[^/.]+"  # as before: any id, a non-number is a 404 from the lookup

    def visible(self, user: User) -> QuerySet[WebhookSubscription]:
        if not user.is_authenticated:
            return WebhookSubscription.objects.none()
        return WebhookSubscription.objects.filter(user=user)

    @extend_schema(responses={201: WebhookSubscriptionCreatedSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = WebhookSubscriptionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        subscription = webhook_subscription_create(
            user=request.user,
            url=serializer.validated_data["url"],
            events=serializer.validated_data["events"],
        )
        return Response(WebhookSubscriptionCreatedSerializer(subscription).data, status=201)

    @extend_schema(responses={200: WebhookDeliverySerializer(many=True)})
    @action(detail=True, methods=["get"])
    def deliveries(self, request: Request, pk: str) -> Response:
        subscription = self.get_object()
        deliveries = subscription.deliveries.prefetch_related("tries").order_by("-pk")
        # The viewset's paginator pages any queryset; the stubs expect the viewset's own model.
        page = self.paginate_queryset(cast("QuerySet[Any, WebhookDelivery]", deliveries))
        return self.get_paginated_response(WebhookDeliverySerializer(page, many=True).data)
