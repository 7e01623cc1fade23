"""Designs over the REST API: size and save, preview without saving, list, detail, exports.
Which designs and customers a caller may use is decided by the selectors (`designs_visible_to`,
`customer_for`); this module parses and answers."""

from typing import Any

from django.db.models import QuerySet
from django.http import FileResponse, Http404, HttpResponse, StreamingHttpResponse
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from catalog.selectors import price_map
from core.api.base import ApiViewSet, User
from core.downloads import download, download_stream
from core.errors import DomainError
from core.parsers import LimitedJSONParser
from customers.selectors import customer_for
from engine.request import to_dict
from planner import resize, selectors, services
from planner.alternatives import alternatives_to_json
from planner.api.asbuilt import ASBUILT_UPLOAD, AsBuiltCheckSerializer, AsBuiltUploadSerializer
from planner.api.preview_cache import preview_get, preview_key, preview_put
from planner.api.serializers import (
    EXPORT_LIMIT,
    SUMMARY_COLUMNS,
    AlternativeSerializer,
    DesignListSerializer,
    ExportJobSerializer,
    design_summaries,
)
from planner.asbuilt import services as asbuilt_services
from planner.exports import files as exports
from planner.exports import jobs as export_jobs
from planner.exports.models import ExportFormat, ExportJob
from planner.filters import DesignFilterSet
from planner.meaning.read_model import design_meaning, job_for_design, meaning_to_json
from planner.models import Design
from planner.serializers import (
    REQUEST_EXAMPLE,
    DesignCreateSerializer,
    DesignPreviewSerializer,
    DesignRequestSerializer,
    DesignSerializer,
    ResizePreviewSerializer,
)

PROBLEM = OpenApiResponse(
    response=OpenApiTypes.OBJECT, description="RFC 9457 problem details (application/problem+json)"
)
ERRORS = {400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 404: PROBLEM, 422: PROBLEM, 429: PROBLEM}


@extend_schema_view(
    list=extend_schema(
        description="A page of design summaries (no request or result: `GET /designs/{id}/` has "
        "them); `limit` up to 100.",
        responses={200: DesignListSerializer, **ERRORS},
    ),
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
    ApiViewSet[Design],
):
    serializer_class = DesignSerializer
    filterset_class = DesignFilterSet
    queryset = Design.objects.none()  # for the router and the schema; see get_queryset

    def visible(self, user: User) -> QuerySet[Design]:
        if self.action == "preview":
            # Previews read no design; the permission check only needs the model.
            return Design.objects.none()
        designs = selectors.designs_visible_to(user)
        # The list shows summaries: the stored request and result are never read for it.
        return designs.defer("request", "result") if self.action == "list" else designs

    def get_serializer_class(self) -> Any:
        return DesignListSerializer if self.action == "list" else DesignSerializer

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # The summaries' columns only, as dictionaries (design_summaries says why); filtered and
        # paged as before (the cursor reads `pk` from a dictionary as from a model).
        designs = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(designs.values(*SUMMARY_COLUMNS))
        assert page is not None  # the API always pages (settings: DEFAULT_PAGINATION_CLASS)
        return self.get_paginated_response(design_summaries(page))

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = DesignCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        customer_id = data.get("customer")
        # Another team's customer is a 404, as on the design page (customer_for decides).
        customer = (
            customer_for(user=self.viewer, customer_id=customer_id)
            if customer_id is not None
            else None
        )
        design = services.design_create(
            owner=request.user,  # type: ignore[arg-type]
            name=data.get("name") or f"{data['gpus']:,} GPUs",
            request_data=serializer.request_data(),
            scenario=data.get("scenario") or "llm_training",
            customer=customer,
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
    def preview(self, request: Request) -> HttpResponse:
        """Size a request without saving it."""
        serializer = DesignRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        request_data = serializer.request_data()
        # The same request on the same catalog is answered with the same bytes (preview_cache
        # says why that is safe); a miss sizes, encodes and remembers the answer under the
        # version of the catalog it was sized on.
        language = translation.get_language() or ""
        key = preview_key(
            catalog_version=selectors.current_catalog().version,
            language=language,
            request_data=request_data,
        )
        body = preview_get(key)
        if body is None:
            sized = services.design_size(request_data=request_data)
            body = JSONRenderer().render(
                {"request": to_dict(sized.request), "result": sized.result}
            )
            sized_key = preview_key(
                catalog_version=sized.catalog.version, language=language, request_data=request_data
            )
            preview_put(sized_key, body)
        return HttpResponse(body, content_type="application/json")

    @extend_schema(
        summary="Up to three labelled alternatives to a request",
        description="The request sized over the choices it leaves open (switches, fabric style, "
        "oversubscription within `oversubscription_tolerance`, compute planes, uplink speed) "
        "on today's catalog and list prices: a list of designs, each with `labels` (what it is "
        "best at among all designs sized: lowest_cost, fully priced only, else "
        "lowest_cost_so_far; most_resilient; most_growth; one design may have several), "
        "`label` (the first), `cost_per_gpu`, `tradeoffs` in words and the `design`. What the "
        "request fixes, every alternative keeps. Nothing is saved.",
        request=DesignRequestSerializer,
        responses={200: AlternativeSerializer(many=True), **ERRORS},
        examples=[OpenApiExample("1,024 GPUs, rail-optimized", value=REQUEST_EXAMPLE)],
    )
    @action(detail=False, methods=["post"], pagination_class=None, filterset_class=None)
    def alternatives(self, request: Request) -> Response:
        serializer = DesignRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        options = services.design_alternatives(
            request_data=serializer.request_data(), prices=price_map()
        )
        return Response(alternatives_to_json(options))

    @extend_schema(
        methods=["GET"],
        summary="What re-sizing the design against today's catalog would change",
        description="Sizes the saved request against today's catalog and compares the bill of "
        "materials with the saved one: parts added, removed, quantities changed, re-priced. "
        "Nothing is saved; the design keeps what it was sized with.",
        request=None,
        responses={200: ResizePreviewSerializer, **ERRORS},
    )
    @extend_schema(
        methods=["POST"],
        summary="Re-size against today's catalog and save it as a new version",
        description="The design itself never changes (quotes point at it): the answer is a new "
        "design, `copied_from` this one.",
        request=None,
        responses={201: DesignSerializer, **ERRORS},
    )
    @action(detail=True, methods=["get", "post"])
    def resize(self, request: Request, pk: str) -> Response:
        design = self._design(pk)
        if request.method == "GET":
            preview = resize.design_resize_preview(design=design)
            return Response(ResizePreviewSerializer(preview).data)
        new = resize.design_resize(design=design, owner=request.user)  # type: ignore[arg-type]
        body = DesignSerializer(new).data
        return Response(
            body, status=status.HTTP_201_CREATED, headers={"Location": body["links"]["self"]}
        )

    @extend_schema(
        methods=["GET", "POST"],
        summary="What the design means for a training job: communication, failures, growth",
        description="The job (parameters, gpus, tensor_parallel, pipeline_parallel, "
        "data_parallel, expert_parallel, precision_bytes, sharding, compute_seconds_per_step, "
        "rail_aligned, hidden_size, layers, tokens_per_step, ...) as query parameters (GET) or a "
        "JSON body (POST); without one, failures, spares and growth only. Communication time per "
        "step on the design and on each alternative, from the catalog snapshot the design was "
        "sized with. A job whose sizes disagree is a 400 naming each field and its numbers.",
        request=OpenApiTypes.OBJECT,
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
    )
    @action(detail=True, methods=["get", "post"])
    def meaning(self, request: Request, pk: str) -> Response:
        design = self._design(pk)
        data = request.data if request.method == "POST" else request.query_params.dict()
        # A JSON `null` body is not "no job" (an empty body is): the body is an object, so null
        # is refused like any other non-object (job_for_design's 400).
        job = job_for_design(design=design, data=[] if data is None else data, ignore=("format",))
        return Response(meaning_to_json(design_meaning(design=design, job=job)))

    def _design(self, pk: str) -> Design:
        design: Design = self.get_object()
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
    def bom_xlsx(self, request: Request, pk: str) -> HttpResponse | Response:
        design = self._design(pk)
        if export_jobs.export_is_large(design=design, format=ExportFormat.BOM_XLSX):
            return self._export_job(design, ExportFormat.BOM_XLSX)
        return download(
            exports.design_bom_xlsx(design=design),
            filename=f"design-{design.pk}-bom.xlsx",
            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )

    @extend_schema(
        description=EXPORT_LIMIT,
        responses={(200, "text/csv"): OpenApiTypes.STR, 202: ExportJobSerializer, **ERRORS},
    )
    @action(detail=True, methods=["get"], url_path=r"bom\.csv", url_name="bom-csv")
    def bom_csv(self, request: Request, pk: str) -> HttpResponse | Response:
        design = self._design(pk)
        if export_jobs.export_is_large(design=design, format=ExportFormat.BOM_CSV):
            return self._export_job(design, ExportFormat.BOM_CSV)
        return download(
            exports.design_bom_csv(design=design),
            filename=f"design-{design.pk}-bom.csv",
            content_type="text/csv",
        )

    @extend_schema(
        description=EXPORT_LIMIT,
        responses={(200, "text/csv"): OpenApiTypes.STR, 202: ExportJobSerializer, **ERRORS},
    )
    @action(detail=True, methods=["get"], url_path=r"cabling\.csv", url_name="cabling-csv")
    def cabling_csv(self, request: Request, pk: str) -> StreamingHttpResponse | Response:
        design = self._design(pk)
        if export_jobs.export_is_large(design=design, format=ExportFormat.CABLING_CSV):
            return self._export_job(design, ExportFormat.CABLING_CSV)
        rows = services.design_cabling(design=design)
        return download_stream(
            exports.cabling_csv_chunks(rows),
            filename=f"design-{design.pk}-cabling.csv",
            content_type="text/csv",
        )

    def _export_job(self, design: Design, format: str) -> Response:
        job = export_jobs.export_request(
            user=self.request.user,
            design=design,
            format=format,
            language=translation.get_language() or "",
        )
        body = ExportJobSerializer(job).data
        return Response(
            body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["links"]["self"]}
        )

    def _export(self, pk: str, job_id: str) -> ExportJob:
        design = self._design(pk)
        job = design.export_jobs.filter(pk=int(job_id)).first()
        if job is None:
            raise Http404
        return job

    @extend_schema(
        summary="A large export's job: status and progress",
        request=None,
        responses={200: ExportJobSerializer, **ERRORS},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"exports/(?P<job_id>[0-9]{1,18})",
        url_name="export",
    )
    def export(self, request: Request, pk: str, job_id: str) -> Response:
        return Response(ExportJobSerializer(self._export(pk, job_id)).data)

    @extend_schema(
        summary="A large export's file, once its job is done",
        description="409 while the job runs (or if the stored bytes no longer match their "
        "SHA-256, sent as `Digest`-like `X-Content-SHA256`).",
        request=None,
        responses={(200, "text/csv"): OpenApiTypes.BINARY, **ERRORS, 409: PROBLEM},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"exports/(?P<job_id>[0-9]{1,18})/download",
        url_name="export-download",
    )
    def export_download(self, request: Request, pk: str, job_id: str) -> FileResponse:
        job = self._export(pk, job_id)
        response = FileResponse(
            export_jobs.export_file(job=job),
            as_attachment=True,
            filename=job.filename,
            content_type=job.content_type,
        )
        response["X-Content-SHA256"] = job.sha256
        return response

    @extend_schema(
        summary="Check the cabling as built against the design",
        description=ASBUILT_UPLOAD,
        request={
            "multipart/form-data": AsBuiltUploadSerializer,
            "application/json": AsBuiltUploadSerializer,
        },
        responses={202: AsBuiltCheckSerializer, **ERRORS},
    )
    @action(
        detail=True,
        methods=["post"],
        url_path="as-built",
        url_name="as-built",
        parser_classes=[LimitedJSONParser, MultiPartParser],
    )
    def as_built(self, request: Request, pk: str) -> Response:
        design = self._design(pk)
        payload: Any = request.data if isinstance(request.data, dict) else {}
        upload = payload.get("file")
        if upload is not None and hasattr(upload, "read"):
            filename, data = upload.name or "", asbuilt_services.upload_bytes(upload)
        else:
            content = payload.get("content")
            if not isinstance(content, str):
                raise DomainError(asbuilt_services.no_file_text(), field="file")
            filename, data = str(payload.get("filename") or ""), content.encode()
        # An upload refused is a domain error: the exception handler lists each bad line.
        check = asbuilt_services.asbuilt_check_request(
            user=request.user, design_id=design.pk, filename=filename, data=data
        )
        body = AsBuiltCheckSerializer(check).data
        return Response(
            body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["links"]["self"]}
        )

    @extend_schema(
        summary="An as-built check: status and progress, and its punch list when done",
        request=None,
        responses={200: AsBuiltCheckSerializer, **ERRORS},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"as-built/(?P<check_id>[0-9]{1,18})",
        url_name="as-built-check",
    )
    def as_built_check(self, request: Request, pk: str, check_id: str) -> Response:
        check = self._design(pk).asbuilt_checks.filter(pk=int(check_id)).first()
        if check is None:
            raise Http404
        return Response(AsBuiltCheckSerializer(check).data)
