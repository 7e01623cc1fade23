"""Every API error as RFC 9457 problem+json, made in one place (settings: EXCEPTION_HANDLER)."""

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import DataError
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from core.errors import PROBLEM_CONTENT_TYPE, DomainError, problem_body
from core.vocabulary import ERROR_TITLES

logger = logging.getLogger(__name__)


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every error as RFC 9457 problem+json. Validation errors keep DRF's field -> [messages]
    under `errors`; domain errors are mapped here, once."""
    if isinstance(exc, DomainError):
        errors = exc.field_messages() or None
        # The title in the reader's language, as the detail is (`ERROR_TITLES`); a code not
        # named there reads as its words.
        title = str(ERROR_TITLES.get(exc.code, exc.code.replace("_", " ")))
        body = problem_body(exc.http_status, title, exc.message, errors=errors, code=exc.code)
        return Response(body, status=exc.http_status, content_type=PROBLEM_CONTENT_TYPE)
    if isinstance(exc, DataError):
        # The database refused a value (too long, out of range, a NUL character): the request's
        # fault, as a 400, though each such field should be validated before it gets here.
        logger.warning("API request refused by the database: %s", exc.__class__.__name__)
        set_rollback()
        body = problem_body(
            400,
            str(_("Bad Request")),
            str(_("A value in the request is too long or out of range.")),
            code="invalid",
        )
        return Response(body, status=400, content_type=PROBLEM_CONTENT_TYPE)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    assert isinstance(exc, exceptions.APIException)
    title = str(exc.default_detail)
    if isinstance(exc, exceptions.ValidationError):
        invalid = str(_("The request has invalid fields."))
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        body = problem_body(response.status_code, title, invalid, errors=fields, code="invalid")
    else:
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        body = problem_body(response.status_code, title, message, code=exc.get_codes() or "")
    response.data = body
    response.content_type = PROBLEM_CONTENT_TYPE
    return response
