"""The REST API's shared parts: the base viewset and router (`core.api.base`), problem+json errors
(`core.api.errors`), and the API's own routes (`core.api.urls`). Each app owns its endpoints in
its `api/` package, included under /api/v1/ by `config/urls.py`."""

from core.api.base import NUMERIC_ID, ApiRouter, ApiViewSet, ShallowFieldCopies
from core.api.errors import problem_exception_handler
from core.api.views import MeView

__all__ = [
    "NUMERIC_ID",
    "ApiRouter",
    "ApiViewSet",
    "MeView",
    "ShallowFieldCopies",
    "problem_exception_handler",
]
