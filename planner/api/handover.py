"""Handover files over the API: `GET /api/v1/designs/{id}/handover/<file>`.

`launch-kit.zip` (NVIDIA Kubernetes Launch Kit: the Spectrum-X topology file and the profile
with its plane count), `infragraph.json` (InfraGraph, for ASTRA-sim), `simai.zip`
(SimAI-Analytical's busbw.yaml and command line) and `handover.zip` (every handover file:
NetBox, containerlab, Slurm, the cabling JSON, the label CSV and those three). What each holds
and where its format comes from: `planner.handover.launch_kit`, `infragraph_doc`, `simai`,
`files`. A file too large to make within the request (`planner.handover.files.check_size`) is
a 409 problem saying so.

Kept in its own viewset, routed under /designs/ beside `DesignViewSet`; access is the same:
`selectors.designs_visible_to` (another team's design is a 404), no credentials a 401."""

from collections.abc import Callable
from typing import Any, TypeVar

from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.decorators import action
from rest_framework.request import Request

from core.api.base import ApiViewSet, User
from core.downloads import download
from planner import selectors
from planner.handover.files import KINDS, check_size, filename, handover_file, handover_of
from planner.models import Design

PROBLEM = OpenApiResponse(
    response=OpenApiTypes.OBJECT, description="RFC 9457 problem details (application/problem+json)"
)
ERRORS = {401: PROBLEM, 403: PROBLEM, 404: PROBLEM, 409: PROBLEM, 429: PROBLEM}
F = TypeVar("F", bound=Callable[..., Any])
TOO_LARGE = (
    " A design with more cables than the file can be made from within a request (the bundle: "
    "`EXPORT_SYNC_MAX_ROWS`, 100,000 by default; the others `HANDOVER_SYNC_MAX_CABLES`, "
    "100,000) is a 409 problem; a draft that does not size is a 404."
)


def _zip(summary: str, description: str) -> Callable[[F], F]:
    """The schema of a ZIP download (a decorator)."""
    return extend_schema(
        summary=summary,
        description=description + TOO_LARGE,
        request=None,
        responses={(200, "application/zip"): OpenApiTypes.BINARY, **ERRORS},
    )


class DesignHandoverViewSet(ApiViewSet[Design]):
    """The handover files of a design."""

    queryset = Design.objects.none()  # for the router and the schema; see visible

    def visible(self, user: User) -> QuerySet[Design]:
        return selectors.designs_visible_to(user)

    def _file(self, kind: str) -> HttpResponse:
        design: Design = self.get_object()
        if design.result is None:
            raise Http404
        check_size(design=design, kind=kind)
        content = handover_file(handover_of(design), kind)
        return download(content, filename=filename(design, kind), content_type=KINDS[kind][1])

    @_zip(
        "NVIDIA Kubernetes Launch Kit: Spectrum-X topology and plane count (ZIP)",
        "`topology.json` (the spcx-gen/reference-generator format l8k allocates CIDRPools "
        "from: `nodes`, and `links` of a host and its leaf with `rail`, `plane`, `su`, "
        "`pod`) and `l8k-profile.yaml` (`profile.spectrumX`: `numberOfPlanes`, "
        "`multiplaneMode`, `topologyType`, `topologyFile`).",
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"handover/launch-kit\.zip",
        url_name="handover-launch-kit",
    )
    def launch_kit(self, request: Request, pk: str) -> HttpResponse:
        return self._file("launch-kit")

    @extend_schema(
        summary="The compute fabric as an InfraGraph document, for ASTRA-sim (JSON)",
        description="An `Infrastructure` of the `infragraph` package's schema: `devices` "
        "(server, leaf, spine, core), `links` by speed, `instances` and `edges` (slices of "
        "evenly stepping links)." + TOO_LARGE,
        request=None,
        responses={(200, "application/json"): OpenApiTypes.OBJECT, **ERRORS},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"handover/infragraph\.json",
        url_name="handover-infragraph",
    )
    def infragraph(self, request: Request, pk: str) -> HttpResponse:
        return self._file("infragraph")

    @_zip(
        "SimAI-Analytical parameters (ZIP)",
        "`busbw.yaml` (bus bandwidth per parallel group and collective, GB/s) and "
        "`simai_analytical.sh` (the automatic mode's `-g`, `-g_p_s`, `-n_p_s`, `-nic`).",
    )
    @action(
        detail=True, methods=["get"], url_path=r"handover/simai\.zip", url_name="handover-simai"
    )
    def simai(self, request: Request, pk: str) -> HttpResponse:
        return self._file("simai")

    @_zip(
        "Every handover file in one ZIP",
        "A folder per tool: `netbox/` (the bulk-import CSV files, in import order), "
        "`containerlab/`, `slurm/`, `cabling/` (JSON with cable ids), `labels/` (CSV), "
        "`launch-kit/`, `infragraph/`, `simai/`.",
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"handover/handover\.zip",
        url_name="handover-bundle",
    )
    def bundle(self, request: Request, pk: str) -> HttpResponse:
        return self._file("bundle")
