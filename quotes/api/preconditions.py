"""Optimistic locking over HTTP: a line and a revision answer their version as an ETag, and a
change sent with `If-Match` is made only if that is still the stored version (else a 412, and
nothing is written). The check itself is the services' (`expected_version`), under the row lock;
here the headers are only read and written. A request without If-Match is still taken, as before
ETags existed (integrations written then keep working)."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.request import Request
from rest_framework.response import Response

from quotes.models import QuoteLine, QuoteRevision
from quotes.services.errors import VersionConflict

LINE = "line"
REVISION = "revision"

IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description='The ETag a GET answered (e.g. "line-12-v3"): the change is made only if '
    "nobody changed the object since, else 412 and nothing is written. Without it the "
    "change is made whatever the version.",
)
PRECONDITION_FAILED = {
    (412, "application/problem+json"): OpenApiResponse(
        {"$ref": "#/components/schemas/Problem"},  # core.schema adds it to every schema
        description="If-Match does not name the stored version: someone else changed it since "
        "it was read. Nothing was written; read it again (GET answers the new ETag).",
    )
}


def etag(kind: str, obj: QuoteLine | QuoteRevision) -> str:
    """A strong ETag naming the object and its version: the version moves with every change
    (the representation's language does not make another version)."""
    return f'"{kind}-{obj.pk}-v{obj.version}"'


def tagged(response: Response, kind: str, obj: QuoteLine | QuoteRevision) -> Response:
    response["ETag"] = etag(kind, obj)
    return response


def expected_version(request: Request, kind: str, pk: int) -> int | None:
    """The version `If-Match` names for object `pk`, or None when the request has none (or
    "*": any version). An If-Match naming nothing of this object can never match: 412."""
    header = request.headers.get("If-Match", "").strip()
    if not header or header == "*":
        return None
    # A compressing proxy weakens ETags (W/"..."); the version they name is the same.
    pattern = re.compile(rf'(?:W/)?"{re.escape(kind)}-{pk}-v([0-9]{{1,9}})"')
    for tag in header.split(","):
        match = pattern.fullmatch(tag.strip())
        if match:
            return int(match.group(1))
    raise VersionConflict(
        _(
            "If-Match does not name a version of this object: someone else may have changed it. "
            "Read it again (its ETag comes with the GET) and retry; nothing was saved."
        )
    )
