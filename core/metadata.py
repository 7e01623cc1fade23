"""What `OPTIONS` answers on the API. Kept apart from `core.api` because DRF reads
DEFAULT_METADATA_CLASS while `rest_framework.views` loads.

DRF's SimpleMetadata describes the serializer of each writable method, and for PUT first calls
`get_object()`: on routes without an object id (`PUT .../by-external-id/{source}/{id}/`) that
was an assertion error, a 500. The OpenAPI schema (/api/v1/schema/) is where request bodies are
documented, so OPTIONS answers the view's name, description and media types, and the `Allow`
header lists its methods."""

from typing import Any

from rest_framework.metadata import SimpleMetadata
from rest_framework.request import Request


class ApiMetadata(SimpleMetadata):
    def determine_actions(self, request: Request, view: Any) -> dict[str, Any]:
        return {}
