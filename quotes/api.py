"""Quotes, customers and opportunities over REST (/api/v1/quotes/, /customers/, /opportunities/).
Visibility is the UI's (`quotes.selectors`): someone else's quote is a 404. Refusals are
DomainErrors, answered as problem+json by `core.api.problem_exception_handler` (409 for a
transition not allowed now)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from config.api_urls import router
from core.api import NUMERIC_ID
from core.authentication import ModelPermissions, TokenScopePermission
from quotes import selectors, services
from quotes.filters import OpportunityFilter, QuoteFilter
from quotes.models import Customer, Opportunity, Quote, QuoteLine, QuoteRevision
from quotes.serializers import (
    CustomerSerializer,
    CustomerUpsertSerializer,
    LineUpdateSerializer,
    OpportunitySerializer,
    OpportunityUpsertSerializer,
    QuoteCreateSerializer,
    QuoteSerializer,
    RejectSerializer,
    RevisionSerializer,
    SendResultSerializer,
)

PROBLEM = {"description": "RFC 9457 problem+json"}
_View = TypeVar("_View", bound=Callable[..., Any])
ACTION_ERRORS = {400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM}


def crm_upsert(
    noun: str,
    body: type[serializers.Serializer],  # type: ignore[type-arg]
    result: type[serializers.Serializer],  # type: ignore[type-arg]
) -> Callable[[_View], _View]:
    """The `PUT .../by-external-id/{source}/{external_id}/` action a CRM upserts a record with:
    the route and its documented schema, the same for every kind of record."""
    schema = extend_schema(
        summary=f"Create or update {noun} by its CRM id (201 created, 200 updated)",
        request=body,
        parameters=[
            OpenApiParameter(
                "source",
                {"type": "string", "minLength": 1, "maxLength": 50},
                OpenApiParameter.PATH,
                description="CRM name",
            ),
            OpenApiParameter(
                "external_id",
                {"type": "string", "minLength": 1, "maxLength": 100},
                OpenApiParameter.PATH,
                description="CRM id",
            ),
        ],
        responses={200: result, 201: result, **ACTION_ERRORS},
    )
    route = action(
        detail=False,
        methods=["put"],
        url_path=r"by-external-id/(?P<source>[^/]+)/(?P<external_id>[^/]+)",
        url_name="by-external-id",
    )

    def decorate(view: _View) -> _View:
        return schema(route(view))  # type: ignore[no-any-return]

    return decorate


def crm_key_check(model: type[Customer] | type[Opportunity], source: str, external_id: str) -> None:
    """The CRM source and id from the path must fit their columns (PostgreSQL refuses a longer
    value: a 500), as 400 field errors named after the path parameters."""
    errors = {}
    for name, field, value in (
        ("source", "external_source", source),
        ("external_id", "external_id", external_id),
    ):
        limit = getattr(model._meta.get_field(field), "max_length", None)
        if limit is not None and len(value) > limit:
            errors[name] = [_("At most %(limit)d characters.") % {"limit": limit}]
    if errors:
        raise serializers.ValidationError(errors)


def _upserted(data: Any, created: bool) -> Response:
    return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class QuotePermissions(ModelPermissions):
    """Model permissions; a status action (POST .../submit/ etc.) needs change_quote."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if getattr(view, "action", None) in QuoteViewSet.status_actions:
            user = request.user
            return bool(user and user.is_authenticated and user.has_perm("quotes.change_quote"))
        return super().has_permission(request, view)


@extend_schema_view(
    list=extend_schema(
        summary="Quotes of the caller and their team", responses={200: QuoteSerializer}
    ),
    retrieve=extend_schema(summary="One quote with its current revision and lines"),
)
class QuoteViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,  # type: ignore[type-arg]
):
    serializer_class = QuoteSerializer
    # The token scope check must be listed again: permission_classes replaces the defaults.
    permission_classes = [TokenScopePermission, QuotePermissions]
    filterset_class = QuoteFilter
    lookup_value_regex = NUMERIC_ID
    status_actions = ("submit", "approve", "reject", "send", "revise")

    def get_queryset(self) -> QuerySet[Quote]:
        return selectors.quotes_visible_to(self.request.user).order_by("-pk")

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        context["show_margin"] = selectors.can_view_margin(self.request.user)
        return context

    @extend_schema(
        summary="Create a quote from a design and a customer",
        request=QuoteCreateSerializer,
        responses={201: QuoteSerializer, **ACTION_ERRORS},
    )
    def create(self, request: Request) -> Response:
        from catalog.models import PriceList
        from planner.selectors import designs_visible_to

        data = QuoteCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        errors = {}
        design = designs_visible_to(request.user).filter(pk=values["design"]).first()
        if design is None:
            errors["design"] = ["No such design among yours and your team's."]
        customer = (
            selectors.customers_visible_to(request.user).filter(pk=values["customer"]).first()
        )
        if customer is None:
            errors["customer"] = ["No such customer in your team."]
        price_list = None
        if values["price_list"]:
            price_list = PriceList.objects.filter(code=values["price_list"]).first()
            if price_list is None:
                errors["price_list"] = ["No price list with this code."]
        opportunity = None
        if values["opportunity"]:
            opportunity = Opportunity.objects.filter(
                pk=values["opportunity"], customer=customer
            ).first()
            if opportunity is None:
                errors["opportunity"] = ["No such opportunity for this customer."]
        if errors:
            raise serializers.ValidationError(errors)
        quote = services.quote_create(
            user=request.user,
            design=design,
            customer=customer,  # type: ignore[arg-type]
            opportunity=opportunity,
            price_list=price_list,
            currency=values["currency"],
            exchange_rate=values["exchange_rate"],
            support_years=values["support_years"],
            title=values["title"],
        )
        body = QuoteSerializer(quote, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED)

    def _current(self) -> QuoteRevision:
        quote = self.get_object()
        revision = quote.current_revision
        assert revision is not None
        return revision

    def _revision_response(self, revision: QuoteRevision, code: int = 200) -> Response:
        revision.refresh_from_db()
        body = RevisionSerializer(revision, context=self.get_serializer_context()).data
        return Response(body, status=code)

    @extend_schema(
        summary="Submit the current revision (draft -> pending approval, or approved)",
        request=None,
        responses={200: RevisionSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def submit(self, request: Request, pk: str | None = None) -> Response:
        revision = services.revision_submit(user=request.user, revision=self._current())
        return self._revision_response(revision)

    @extend_schema(
        summary="Approve the current revision (sales managers)",
        request=None,
        responses={200: RevisionSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str | None = None) -> Response:
        revision = services.revision_approve(user=request.user, revision=self._current())
        return self._revision_response(revision)

    @extend_schema(
        summary="Send the pending revision back to draft (sales managers)",
        request=RejectSerializer,
        responses={200: RevisionSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str | None = None) -> Response:
        data = RejectSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        revision = services.revision_reject(
            user=request.user, revision=self._current(), reason=data.validated_data["reason"]
        )
        return self._revision_response(revision)

    @extend_schema(
        summary="Send the current revision to the customer; returns its share link",
        request=None,
        responses={200: SendResultSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def send(self, request: Request, pk: str | None = None) -> Response:
        link = services.revision_send(user=request.user, revision=self._current())
        revision = link.revision
        revision.refresh_from_db()
        url = request.build_absolute_uri(reverse("share:proposal", args=[link.token]))
        return Response(
            {
                "revision": RevisionSerializer(
                    revision, context=self.get_serializer_context()
                ).data,
                "share_url": url,
            }
        )

    @extend_schema(
        summary="Copy the current (sent, declined or expired) revision into a new draft",
        request=None,
        responses={201: RevisionSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def revise(self, request: Request, pk: str | None = None) -> Response:
        revision = services.quote_revise(user=request.user, quote=self.get_object())
        return self._revision_response(revision, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a line: quantity, discount, unit price, SKU, description, optional",
        description="A line to be priced (`to_be_priced: true`: no catalog product fits it) is "
        "priced with `override_unit_price` or replaced with a catalog product with `sku`. Only "
        "a draft, pending or approved revision changes; a change to a submitted one sends it "
        "back for approval (or to draft). Answers the line's revision with its new totals.",
        request=LineUpdateSerializer,
        parameters=[OpenApiParameter("line_id", int, OpenApiParameter.PATH)],
        responses={200: RevisionSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["patch"], url_path=r"lines/(?P<line_id>[0-9]+)", url_name="line")
    def line(self, request: Request, pk: str | None = None, line_id: str | None = None) -> Response:
        quote = self.get_object()
        line = get_object_or_404(
            QuoteLine.objects.select_related("revision__quote"), pk=line_id, revision__quote=quote
        )
        data = LineUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.revision_line_update(user=request.user, line=line, **data.validated_data)
        return self._revision_response(line.revision)

    @extend_schema(
        summary="Every revision of the quote, newest first",
        responses={200: RevisionSerializer(many=True)},
    )
    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def revisions(self, request: Request, pk: str | None = None) -> Response:
        quote = self.get_object()
        revisions = selectors.revisions_of(quote).prefetch_related("lines")
        return Response(
            RevisionSerializer(revisions, many=True, context=self.get_serializer_context()).data
        )


@extend_schema_view(
    list=extend_schema(summary="Customers of the caller's team"),
    retrieve=extend_schema(summary="One customer with its contacts"),
)
class CustomerViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,  # type: ignore[type-arg]
):
    serializer_class = CustomerSerializer
    permission_classes = [TokenScopePermission, ModelPermissions]
    lookup_value_regex = NUMERIC_ID

    def get_queryset(self) -> QuerySet[Customer]:
        return selectors.customers_visible_to(self.request.user).order_by("-pk")

    @crm_upsert("a customer", CustomerUpsertSerializer, CustomerSerializer)
    def by_external_id(self, request: Request, source: str, external_id: str) -> Response:
        crm_key_check(Customer, source, external_id)
        data = CustomerUpsertSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        customer, created = services.customer_upsert_by_external_id(
            user=request.user, source=source, external_id=external_id, **data.validated_data
        )
        customer = get_object_or_404(selectors.customers_visible_to(request.user), pk=customer.pk)
        return _upserted(CustomerSerializer(customer).data, created)


@extend_schema_view(
    list=extend_schema(summary="Opportunities of the customers the caller sees"),
    retrieve=extend_schema(summary="One opportunity"),
)
class OpportunityViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,  # type: ignore[type-arg]
):
    """CRM deals. A quote names one (`opportunity` on POST /quotes/) so the CRM can find the
    quotes of a deal."""

    serializer_class = OpportunitySerializer
    filterset_class = OpportunityFilter
    permission_classes = [TokenScopePermission, ModelPermissions]
    lookup_value_regex = NUMERIC_ID

    def get_queryset(self) -> QuerySet[Opportunity]:
        return selectors.opportunities_visible_to(self.request.user).order_by("-pk")

    @crm_upsert("an opportunity", OpportunityUpsertSerializer, OpportunitySerializer)
    def by_external_id(self, request: Request, source: str, external_id: str) -> Response:
        crm_key_check(Opportunity, source, external_id)
        data = OpportunityUpsertSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        opportunity, created = services.opportunity_upsert_by_external_id(
            user=request.user,
            source=source,
            external_id=external_id,
            customer_id=data.validated_data["customer"],
            name=data.validated_data["name"],
        )
        return _upserted(OpportunitySerializer(opportunity).data, created)


router.register("quotes", QuoteViewSet, basename="quote")
router.register("opportunities", OpportunityViewSet, basename="opportunity")
router.register("customers", CustomerViewSet, basename="customer")
