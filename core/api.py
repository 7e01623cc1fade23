"""What every API endpoint shares: RFC 9457 problem responses and cursor pagination.
Authentication and permissions are in `core.authentication`."""

import copy
import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import DataError
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView, set_rollback
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import PROBLEM_CONTENT_TYPE, DomainError, problem_body
from core.models import ApiToken
from core.selectors import user_roles, user_team

logger = logging.getLogger(__name__)

# The URL pattern of an object id (`lookup_value_regex`): digits only, at most 18 (a BigAutoField
# holds 19), so `/designs/abc/bom.csv` or an id no column can hold is a 404 from the URL
# resolver, never a query.
NUMERIC_ID = r"[0-9]{1,18}"


class ShallowFieldCopies:
    """Serializer mixin: each instance gets shallow copies of the declared fields.

    DRF deep-copies every declared field for every serializer instance, so that one instance may
    change its fields without touching the others; that re-runs each field's __init__ and took a
    third of a design preview request (bench.api). Request serializers never change their
    fields, and binding a field to its parent sets attributes on the copy alone, so a shallow
    copy keeps instances independent at a fraction of the cost."""

    _declared_fields: dict[str, serializers.Field]  # type: ignore[type-arg]

    def get_fields(self) -> dict[str, serializers.Field]:  # type: ignore[type-arg]
        return {name: copy.copy(field) for name, field in self._declared_fields.items()}


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every error as RFC 9457 problem+json. Validation errors keep DRF's field -> [messages]
    under `errors`; domain errors are mapped here, once."""
    if isinstance(exc, DomainError):
        errors = {name: [message] for name, message in exc.errors.items()} or None
        body = problem_body(
            exc.http_status, exc.code.replace("_", " "), exc.message, errors=errors, code=exc.code
        )
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
        detail = _("The request has invalid fields.")
        errors = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        body = problem_body(response.status_code, title, str(detail), errors=errors, code="invalid")
    else:
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        body = problem_body(response.status_code, title, detail, code=exc.get_codes() or "")
    response.data = body
    response.content_type = PROBLEM_CONTENT_TYPE
    return response


class MeSerializer(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField()
    team = serializers.CharField(allow_null=True)
    roles = serializers.ListField(child=serializers.CharField())
    token_scope = serializers.CharField(allow_null=True)


class MeView(APIView):
    """Who the caller is: lets an integrator check its token and what it may do."""

    @extend_schema(responses={200: MeSerializer}, operation_id="me")
    def get(self, request: Request) -> Response:
        token = request.auth if isinstance(request.auth, ApiToken) else None
        team = user_team(request.user)
        data = {
            "username": request.user.get_username(),
            "team": team.name if team else None,
            "roles": [role.group_name for role in user_roles(request.user)],
            "token_scope": token.scope if token else None,
        }
        return Response(MeSerializer(data).data)
