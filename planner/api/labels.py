"""The cable-label sheet over the API: `GET /api/v1/designs/{id}/labels.pdf`.

A small sheet (up to `LABELS_SYNC_MAX_CABLES` cables, default 300: about 3 s of CPU at the
measured 9 ms a cable, far inside gunicorn's 60 s timeout) is rendered in the request and sent
as the PDF (200). A larger one is the export job the handover page starts (`ExportJob` of format
`labels.pdf`, rendered by a worker): 202 with the job, its `Location` the job's status and its
`links.download` the PDF once done. Asking again returns the same job. Beyond
`LABELS_JOB_MAX_CABLES` cables (4,000) no sheet is made: 409, and the CSV is for label printers.

Kept in its own viewset so that the designs' viewset stays as it is; access is the same:
`selectors.designs_visible_to` (another team's design is a 404), no credentials a 401."""

from django.db.models import QuerySet
from django.http import HttpResponse
from django.utils.translation import get_language
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.base import ApiViewSet, User
from core.downloads import download
from planner import selectors
from planner.api.serializers import ExportJobSerializer
from planner.exports import jobs as export_jobs
from planner.exports.models import ExportFormat
from planner.handover.labels import labels_pdf
from planner.models import Design

PROBLEM = OpenApiResponse(
    response=OpenApiTypes.OBJECT, description="RFC 9457 problem details (application/problem+json)"
)
LABELS_PDF = (
    "The cable-label sheet (A4, 3 x 8 labels of 70 x 37.125 mm, two labels a cable with both "
    "ends, the cable id, its length and a QR code of the id), captions in the request's "
    "language. Up to `LABELS_SYNC_MAX_CABLES` cables (default 300, a few seconds of rendering) "
    "the PDF is the response (200). A larger sheet is rendered by a worker: 202 with the export "
    "job, `Location` and `links.self` report its progress, `links.download` serves the PDF once "
    "`status` is `done`; asking again returns the same job. A design with more than 4,000 cables "
    "is a 409 (its labels are printed from the CSV); a draft that does not size is a 404."
)


class DesignLabelsViewSet(ApiViewSet[Design]):
    """`labels.pdf` of a design: routed under /designs/ beside `DesignViewSet`."""

    queryset = Design.objects.none()  # for the router and the schema; see visible

    def visible(self, user: User) -> QuerySet[Design]:
        # The label sheet reads the stored result (cables_total, the cabling's inputs).
        return selectors.designs_visible_to(user)

    @extend_schema(
        summary="The cable-label sheet (PDF), or its export job when large",
        description=LABELS_PDF,
        request=None,
        responses={
            (200, "application/pdf"): OpenApiTypes.BINARY,
            202: ExportJobSerializer,
            401: PROBLEM,
            403: PROBLEM,
            404: PROBLEM,
            409: PROBLEM,
            429: PROBLEM,
        },
    )
    @action(detail=True, methods=["get"], url_path=r"labels\.pdf", url_name="labels-pdf")
    def labels_pdf(self, request: Request, pk: str) -> HttpResponse | Response:
        design: Design = self.get_object()
        format = ExportFormat.LABELS_PDF
        if not export_jobs.export_is_large(design=design, format=format):
            cables = list(export_jobs.design_label_cables(design=design))
            content = labels_pdf(cables, captions=export_jobs.label_captions())
            return download(
                content, filename=f"design-{design.pk}-labels.pdf", content_type="application/pdf"
            )
        job = export_jobs.export_request(
            user=request.user, design=design, format=format, language=get_language() or ""
        )
        body = ExportJobSerializer(job).data
        return Response(
            body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["links"]["self"]}
        )
