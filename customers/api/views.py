"""Customers and opportunities over REST (/api/v1/customers/, /api/v1/opportunities/), as a CRM
keeps them: listed and read as the caller's team sees them (customers.selectors), created or
updated by the CRM's own ids (customers.services decide). Another team's customer, named in the
path or in a body, is a 404; refusals are DomainErrors, answered as problem+json by
`core.api.errors`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import ApiViewSet, User
from core.services import user_signed_in
from customers import services
from customers.api.filters import OpportunityFilter
from customers.api.serializers import (
    CustomerSerializer,
    CustomerUpsertSerializer,
    OpportunitySerializer,
    OpportunityUpsertSerializer,
)
from customers.models import Customer, Opportunity
from customers.selectors import customer_for, customers_visible_to, opportunities_visible_to

PROBLEM = {"description": "RFC 9457 problem+json"}
_View = TypeVar("_View", bound=Callable[..., Any])
ACTION_ERRORS = {400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM}


def crm_upsert(
    noun: str,
    body: type[serializers.Serializer[Any]],
    result: type[serializers.Serializer[Any]],
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
        return cast(_View, schema(route(view)))

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


@extend_schema_view(
    list=extend_schema(summary="Customers of the caller's team"),
    retrieve=extend_schema(summary="One customer with its contacts"),
)
class CustomerViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    ApiViewSet[Customer],
):
    serializer_class = CustomerSerializer

    def visible(self, user: User) -> QuerySet[Customer]:
        return customers_visible_to(user).order_by("-pk")

    @crm_upsert("a customer", CustomerUpsertSerializer, CustomerSerializer)
    def by_external_id(self, request: Request, source: str, external_id: str) -> Response:
        crm_key_check(Customer, source, external_id)
        data = CustomerUpsertSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        customer, created = services.customer_upsert_by_external_id(
            user=user_signed_in(request.user),
            source=source,
            external_id=external_id,
            **data.validated_data,
        )
        # Read back as the list shows it (team and contacts fetched along).
        customer = customer_for(user=self.viewer, customer_id=customer.pk)
        return _upserted(CustomerSerializer(customer).data, created)


@extend_schema_view(
    list=extend_schema(summary="Opportunities of the customers the caller sees"),
    retrieve=extend_schema(summary="One opportunity"),
)
class OpportunityViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    ApiViewSet[Opportunity],
):
    """CRM deals. A quote names one (`opportunity` on POST /quotes/) so the CRM can find the
    quotes of a deal."""

    serializer_class = OpportunitySerializer
    filterset_class = OpportunityFilter

    def visible(self, user: User) -> QuerySet[Opportunity]:
        return opportunities_visible_to(user).order_by("-pk")

    @crm_upsert("an opportunity", OpportunityUpsertSerializer, OpportunitySerializer)
    def by_external_id(self, request: Request, source: str, external_id: str) -> Response:
        crm_key_check(Opportunity, source, external_id)
        data = OpportunityUpsertSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        opportunity, created = services.opportunity_upsert_by_external_id(
            user=user_signed_in(request.user),
            source=source,
            external_id=external_id,
            customer_id=data.validated_data["customer"],
            name=data.validated_data["name"],
        )
        return _upserted(OpportunitySerializer(opportunity).data, created)
