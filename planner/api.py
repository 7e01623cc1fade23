"""Designs over the REST API: size and save, preview without saving, list, detail, exports."""

from typing import Any

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response

from config.api_urls import router
from core.api import NUMERIC_ID
from core.authentication import API_MODEL_PERMISSIONS
from planner import exports, selectors, services
from planner.filters import DesignFilterSet
from planner.models import Design
from planner.serializers import (
    REQUEST_EXAMPLE,
    DesignCreateSerializer,
    DesignPreviewSerializer,
    DesignRequestSerializer,
    DesignSerializer,
)

PROBLEM = OpenApiResponse(
    response=OpenApiTypes.OBJECT, description="RFC 9457 problem details (application/problem+json)"
)
ERRORS = {400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM, 422: PROBLEM, 429: PROBLEM}


@extend_schema_view(
    list=extend_schema(responses={200: DesignSerializer, **ERRORS}),
    retrieve=extend_schema(responses={200: DesignSerializer, **ERRORS}),
    create=extend_schema(
        request=DesignCreateSerializer,
        responses={201: DesignSerializer, **ERRORS},
        examples=[OpenApiExample("1,024 GPUs, rail-optimized", value=REQUEST_EXAMPLE)],
    ),
)
class DesignViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,  # type: ignore[type-arg]
):
    serializer_class = DesignSerializer
    filterset_class = DesignFilterSet
    lookup_value_regex = NUMERIC_ID  # /designs/abc/bom.csv is a 404, not a query for "abc"
    permission_classes = API_MODEL_PERMISSIONS
    queryset = Design.objects.none()  # for the router and the schema; see get_queryset

    def get_queryset(self) -> Any:
        if self.action == "preview":
            # Previews read no design; the permission check only needs the model.
            return Design.objects.none()
        return selectors.designs_visible_to(self.request.user)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = DesignCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        design = services.design_create(
            owner=request.user,  # type: ignore[arg-type]
            name=data.get("name") or f"{data['gpus']:,} GPUs",
            request_data=serializer.request_data(),
            scenario=data.get("scenario") or "llm_training",
            customer=data.get("customer"),
        )
        body = DesignSerializer(design).data
        return Response(
            body, status=status.HTTP_201_CREATED, headers={"Location": body["links"]["self"]}
        )

    @extend_schema(
        request=DesignRequestSerializer,
        responses={200: DesignPreviewSerializer, **ERRORS},
        examples=[OpenApiExample("1,024 GPUs, rail-optimized", value=REQUEST_EXAMPLE)],
    )
    @action(detail=False, methods=["post"])
    def preview(self, request: Request) -> Response:
        """Size a request without saving it."""
        serializer = DesignRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        sized = services.design_size(request_data=serializer.request_data())
        from planner.engine.request import to_dict

        return Response({"request": to_dict(sized.request), "result": sized.result})

    def _design(self, pk: str) -> Design:
        # DRF's get_object_or_404: an id the column cannot hold is a 404 too.
        design: Design = get_object_or_404(self.get_queryset(), pk=pk)
        return design

    @extend_schema(
        responses={
            (
                200,
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            ): OpenApiTypes.BINARY,
            **ERRORS,
        }
    )
    @action(detail=True, methods=["get"], url_path=r"bom\.xlsx", url_name="bom-xlsx")
    def bom_xlsx(self, request: Request, pk: str) -> HttpResponse:
        design = self._design(pk)
        return _download(
            exports.bom_xlsx(design.result or {}, title=design.name),
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            f"design-{design.pk}-bom.xlsx",
        )

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR, **ERRORS})
    @action(detail=True, methods=["get"], url_path=r"bom\.csv", url_name="bom-csv")
    def bom_csv(self, request: Request, pk: str) -> HttpResponse:
        design = self._design(pk)
        return _download(
            exports.bom_csv(design.result or {}), "text/csv", f"design-{design.pk}-bom.csv"
        )

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR, **ERRORS})
    @action(detail=True, methods=["get"], url_path=r"cabling\.csv", url_name="cabling-csv")
    def cabling_csv(self, request: Request, pk: str) -> StreamingHttpResponse:
        design = self._design(pk)
        rows = services.design_cabling(design=design)
        response = StreamingHttpResponse(exports.cabling_csv_chunks(rows), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="design-{design.pk}-cabling.csv"'
        return response


def _download(content: bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


router.register("designs", DesignViewSet, basename="design")
