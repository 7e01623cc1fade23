"""Quotes over REST (/api/v1/quotes/). Visibility is the UI's (`quotes.selectors`,
`customers.selectors`, `planner.selectors`): someone else's quote, or a design, customer or
opportunity named in a body that is not the caller's, is a 404.
Refusals are DomainErrors, answered as problem+json by `core.api.errors` (409 for a transition
not allowed now)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User as AuthUser
from django.db.models import OuterRef, Prefetch, QuerySet, Subquery
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, permissions, serializers, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from catalog.models import PriceList
from core.api.base import ApiViewSet, User
from core.authentication import ModelPermissions
from core.downloads import download
from core.services import user_signed_in
from customers.selectors import customer_for, opportunity_for
from planner.selectors import design_for
from quotes import selectors, services
from quotes.api.preconditions import (
    IF_MATCH,
    LINE,
    PRECONDITION_FAILED,
    REVISION,
    expected_version,
    tagged,
)
from quotes.api.summaries import QUOTE_ROWS, quote_summaries
from quotes.exports import XLSX_TYPE, quote_xlsx
from quotes.filters import QuoteFilter
from quotes.models import Quote, QuoteLine, QuoteRevision
from quotes.serializers import (
    CommercialTermsSerializer,
    FreightSerializer,
    LineUpdateSerializer,
    QuoteCreateSerializer,
    QuoteLineSerializer,
    QuoteListSerializer,
    QuoteSerializer,
    RejectSerializer,
    RevisionSerializer,
    SendResultSerializer,
)

PROBLEM = {"description": "RFC 9457 problem+json"}
ACTION_ERRORS = {400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM}
# Changes that honour If-Match (quotes.api.preconditions).
GUARDED_ERRORS: dict[Any, Any] = {**ACTION_ERRORS, **PRECONDITION_FAILED}


class QuotePermissions(ModelPermissions):
    """Model permissions; a status action (POST .../submit/ etc.) and any change of a line or of
    the terms (deleting a line included) needs change_quote; reading them, view_quote."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if (
            getattr(view, "action", None) in QuoteViewSet.status_actions
            and request.method not in permissions.SAFE_METHODS
        ):
            user = request.user
            return bool(user and user.is_authenticated and user.has_perm("quotes.change_quote"))
        return super().has_permission(request, view)


@extend_schema_view(
    list=extend_schema(
        summary="Quotes of the caller and their team",
        description="A summary of each quote (number, status, customer, totals, validity, "
        "links); the lines are in the detail, `links.self`.",
        responses={200: QuoteListSerializer},
    ),
    retrieve=extend_schema(summary="One quote with its current revision and lines"),
)
class QuoteViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    ApiViewSet[Quote],
):
    serializer_class = QuoteSerializer
    permission_classes = [QuotePermissions]
    filterset_class = QuoteFilter
    # The model for the permission check (core.authentication.ModelPermissions) and the schema;
    # the rows come from get_queryset.
    queryset = Quote.objects.none()
    status_actions = (
        "submit", "approve", "reject", "send", "revise", "withdraw", "line", "terms", "freight",
        "archive", "restore", "destroy",
    )  # fmt: skip

    def visible(self, user: User) -> QuerySet[Quote]:
        return selectors.quotes_visible_to(user).order_by("-pk")

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        return QuoteListSerializer if self.action == "list" else QuoteSerializer

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # The summaries' columns only, as dictionaries (quotes.api.summaries says why): the
        # visible quotes, filtered and paged as before, then one query for their revisions.
        rows = selectors.visible_of(QUOTE_ROWS, self.viewer).order_by("-pk")
        page = self.paginate_queryset(self.filter_queryset(rows))
        assert page is not None  # the API always pages (settings: DEFAULT_PAGINATION_CLASS)
        return self.get_paginated_response(quote_summaries(page))

    def shown(self, queryset: QuerySet[Quote]) -> QuerySet[Quote]:
        # The detail shows its current (highest-numbered) revision with its lines
        # (`QuoteSerializer.get_current_revision`). The list builds its rows itself (`list`);
        # actions answer with a revision of their own and need none of it.
        if self.action != "retrieve":
            return queryset
        latest = QuoteRevision.objects.filter(quote=OuterRef("quote")).order_by("-number")
        current = (
            QuoteRevision.objects.filter(number=Subquery(latest.values("number")[:1]))
            .select_related("approved_by", "sent_by")
            .prefetch_related("lines")
        )
        return queryset.prefetch_related(
            Prefetch("revisions", queryset=current, to_attr="current_revisions")
        )

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        context["show_margin"] = selectors.can_view_margin(self.request.user)
        return context

    @extend_schema(
        summary="Create a quote from a design and a customer",
        request=QuoteCreateSerializer,
        responses={201: QuoteSerializer, **ACTION_ERRORS},
    )
    def create(self, request: Request) -> Response:
        data = QuoteCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        # A design, customer or opportunity the caller may not see is a 404 (the selectors
        # decide); one that is theirs but does not fit (another customer's deal) is a 400.
        design = design_for(user=self.viewer, design_id=values["design"])
        customer = customer_for(user=self.viewer, customer_id=values["customer"])
        opportunity = None
        if values["opportunity"]:
            opportunity = opportunity_for(user=self.viewer, opportunity_id=values["opportunity"])
        errors = {}
        if opportunity is not None and opportunity.customer_id != customer.pk:
            errors["opportunity"] = [_("No such opportunity for this customer.")]
        price_list = None
        if values["price_list"]:
            price_list = PriceList.objects.filter(code=values["price_list"]).first()
            if price_list is None:
                errors["price_list"] = [_("No price list with this code.")]
        if errors:
            raise serializers.ValidationError(errors)
        quote = services.quote_create(
            user=self.author,
            design=design,
            customer=customer,
            opportunity=opportunity,
            price_list=price_list,
            currency=values["currency"],
            exchange_rate=values["exchange_rate"],
            support_years=values["support_years"],
            title=values["title"],
            contact_phone=values["contact_phone"],
        )
        body = QuoteSerializer(quote, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED)

    @property
    def author(self) -> AuthUser:
        """The caller as the services record them (the permissions refused anyone else)."""
        return user_signed_in(self.request.user)

    def _current(self) -> QuoteRevision:
        quote: Quote = self.get_object()
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
        revision = services.revision_submit(user=self.author, revision=self._current())
        return self._revision_response(revision)

    @extend_schema(
        summary="Approve the current revision (sales managers)",
        request=None,
        responses={200: RevisionSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str | None = None) -> Response:
        revision = services.revision_approve(user=self.author, revision=self._current())
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
            user=self.author, revision=self._current(), reason=data.validated_data["reason"]
        )
        return self._revision_response(revision)

    @extend_schema(
        summary="Send the current revision to the customer; returns its share link",
        request=None,
        responses={200: SendResultSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def send(self, request: Request, pk: str | None = None) -> Response:
        link = services.revision_send(user=self.author, revision=self._current())
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
        revision = services.quote_revise(user=self.author, quote=self.get_object())
        return self._revision_response(revision, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Withdraw the submitted or approved revision, to change it",
        description="Submitting freezes a revision: its lines, terms and design are what is "
        "approved and sent. To change it, withdraw it: it stays as submitted (status "
        "`withdrawn`) and a new draft revision, copied from it, is returned for the change, to "
        "be submitted again.",
        request=None,
        responses={201: RevisionSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: str | None = None) -> Response:
        revision = services.revision_withdraw(user=self.author, revision=self._current())
        return self._revision_response(revision, status.HTTP_201_CREATED)

    def _line(self, line_id: str | None) -> QuoteLine:
        quote = self.get_object()
        return get_object_or_404(
            QuoteLine.objects.select_related("revision__quote"), pk=line_id, revision__quote=quote
        )

    @extend_schema(
        methods=["GET"],
        summary="One line, with its version as the ETag",
        description='The `ETag` header (e.g. "line-12-v3") names the line\'s version: send it '
        "back as `If-Match` to change or delete the line only if nobody changed it since.",
        parameters=[OpenApiParameter("line_id", int, OpenApiParameter.PATH)],
        responses={200: QuoteLineSerializer, **ACTION_ERRORS},
    )
    @extend_schema(
        methods=["PATCH"],
        summary="Change a line: quantity, discount, unit price, unit cost, SKU, description",
        description="A line to be priced (`to_be_priced: true`: no catalog product fits it) is "
        "priced with `override_unit_price` or replaced with a catalog product with `sku`; its "
        "`override_unit_cost` (quotes.view_margin) makes the revision's margin known. Only a "
        "draft revision changes. `description` sets the text of both languages, "
        "`description_en` and `description_zh` one each. With `If-Match` (the line's ETag) the "
        "change is made only if nobody changed the line since, else 412. Answers the line's "
        "revision with its new totals, and the line's new ETag.",
        request=LineUpdateSerializer,
        parameters=[OpenApiParameter("line_id", int, OpenApiParameter.PATH), IF_MATCH],
        responses={200: RevisionSerializer, **GUARDED_ERRORS},
    )
    @extend_schema(
        methods=["DELETE"],
        summary="Delete a line of a draft revision",
        description="With `If-Match` (the line's ETag) only if nobody changed the line since, "
        "else 412. Answers the line's revision with its new totals.",
        request=None,
        parameters=[OpenApiParameter("line_id", int, OpenApiParameter.PATH), IF_MATCH],
        responses={200: RevisionSerializer, **GUARDED_ERRORS},
    )
    @action(
        detail=True,
        methods=["get", "patch", "delete"],
        url_path=r"lines/(?P<line_id>[0-9]+)",
        url_name="line",
    )
    def line(self, request: Request, pk: str | None = None, line_id: str | None = None) -> Response:
        line = self._line(line_id)
        if request.method == "GET":
            body = QuoteLineSerializer(line, context=self.get_serializer_context()).data
            return tagged(Response(body), LINE, line)
        version = expected_version(request, LINE, line.pk)
        if request.method == "DELETE":
            services.revision_line_delete(user=self.author, line=line, expected_version=version)
            return self._revision_response(line.revision)
        data = LineUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        changed = services.revision_line_update(
            user=self.author, line=line, expected_version=version, **data.validated_data
        )
        return tagged(self._revision_response(line.revision), LINE, changed)

    @extend_schema(
        methods=["GET"],
        summary="The current revision (terms, totals, lines), with its version as the ETag",
        description='The `ETag` header (e.g. "revision-7-v4") names the revision\'s version, '
        "which every change of it or of its lines moves on: send it back as `If-Match` to "
        "change the terms or the freight only if nobody changed the revision since.",
        responses={200: RevisionSerializer, **ACTION_ERRORS},
    )
    @extend_schema(
        methods=["PATCH"],
        summary="Change the current revision's VAT per line kind, payment milestones, terms",
        description="VAT rates are percentages (13 is 13%, at most 99.99); milestones name "
        "phases of the implementation plan, or `acceptance` (the customer's final acceptance), "
        "and sum to 100%. Either every field is valid and "
        "saved, or nothing is (a 400 naming the field). With `If-Match` (the revision's ETag) "
        "only if nobody changed the revision since, else 412.",
        request=CommercialTermsSerializer,
        parameters=[IF_MATCH],
        responses={200: RevisionSerializer, **GUARDED_ERRORS},
    )
    @action(detail=True, methods=["get", "patch"])
    def terms(self, request: Request, pk: str | None = None) -> Response:
        revision = self._current()
        if request.method == "GET":
            return tagged(self._revision_response(revision), REVISION, revision)
        data = CommercialTermsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        milestones = values.pop("payment_milestones", None)
        revision = services.revision_commercial_update(
            user=self.author,
            revision=revision,
            payment_milestones=[dict(m) for m in milestones] if milestones is not None else None,
            expected_version=expected_version(request, REVISION, revision.pk),
            **values,
        )
        return tagged(self._revision_response(revision), REVISION, revision)

    @extend_schema(
        summary="Set (or remove, with null) the current revision's freight line",
        description="With `If-Match` (the revision's ETag, from GET .../terms/) only if nobody "
        "changed the revision since, else 412.",
        request=FreightSerializer,
        parameters=[IF_MATCH],
        responses={200: RevisionSerializer, **GUARDED_ERRORS},
    )
    @action(detail=True, methods=["put"])
    def freight(self, request: Request, pk: str | None = None) -> Response:
        data = FreightSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        revision = self._current()
        services.revision_freight_set(
            user=self.author,
            revision=revision,
            amount=data.validated_data["amount"],
            expected_version=expected_version(request, REVISION, revision.pk),
        )
        return tagged(self._revision_response(revision), REVISION, revision)

    @extend_schema(
        summary="Archive a draft quote never sent (it leaves the lists)",
        request=None,
        responses={200: QuoteSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def archive(self, request: Request, pk: str | None = None) -> Response:
        quote = services.quote_archive(user=self.author, quote=self.get_object())
        return Response(QuoteSerializer(quote, context=self.get_serializer_context()).data)

    @extend_schema(
        summary="Bring an archived draft quote back to the lists",
        request=None,
        responses={200: QuoteSerializer, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def restore(self, request: Request, pk: str | None = None) -> Response:
        quote = services.quote_archive(user=self.author, quote=self.get_object(), archived=False)
        return Response(QuoteSerializer(quote, context=self.get_serializer_context()).data)

    @extend_schema(
        summary="Delete a draft quote never sent, with its revision and documents",
        responses={204: None, **ACTION_ERRORS},
    )
    def destroy(self, request: Request, pk: str | None = None) -> Response:
        services.quote_delete(user=self.author, quote=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="The current revision as a spreadsheet for procurement",
        description="Lines with unit prices, discounts and VAT rates, VAT per rate, totals, "
        "validity and terms, in the caller's language (Accept-Language).",
        responses={(200, XLSX_TYPE): OpenApiTypes.BINARY, **ACTION_ERRORS},
    )
    @action(detail=True, methods=["get"], url_path=r"quote\.xlsx", url_name="xlsx")
    def xlsx(self, request: Request, pk: str | None = None) -> HttpResponse:
        revision = self._current()
        language = translation.get_language() or "en"
        return download(
            quote_xlsx(revision, language=language),
            filename=f"{revision.label}.xlsx",
            content_type=XLSX_TYPE,
        )

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
