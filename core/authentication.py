"""Authentication and permissions for the API. Kept apart from `core.api` because DRF imports
these classes while `rest_framework.views` is still loading."""

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, permissions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from core.models import ApiToken, TokenScope
from core.services import api_token_authenticate


class BearerTokenAuthentication(BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword.lower().encode():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(
                _("Authorization header must be 'Bearer <token>'.")
            )
        token = api_token_authenticate(secret=parts[1].decode(errors="replace"))
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid or revoked API token."))
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


class TokenScopePermission(permissions.BasePermission):
    """A read-scoped token may only read; sessions and read-write tokens fall through to the
    model permissions."""

    message = _("This API token is read-only.")

    def has_permission(self, request: Request, view: Any) -> bool:
        token = request.auth
        if isinstance(token, ApiToken) and token.scope == TokenScope.READ:
            return request.method in permissions.SAFE_METHODS
        return True


class ModelPermissions(permissions.DjangoModelPermissions):
    """Django model permissions, including `view_` for reads (DRF's default lets any
    authenticated user read)."""

    perms_map = {
        **permissions.DjangoModelPermissions.perms_map,
        "GET": ["%(app_label)s.view_%(model_name)s"],
        "HEAD": ["%(app_label)s.view_%(model_name)s"],
        "OPTIONS": ["%(app_label)s.view_%(model_name)s"],
    }

    def _queryset(self, view: Any) -> Any:
        """The queryset whose model names the permission. DRF calls `view.get_queryset()`,
        which builds the caller's visibility filter (a team lookup, joins) only for its model:
        about a tenth of a list request (bench.load). A viewset that declares its model's
        `queryset` (an empty one, e.g. `Design.objects.none()`) is answered from it."""
        declared = getattr(view, "queryset", None)
        if declared is not None:
            return declared
        return super()._queryset(view)
