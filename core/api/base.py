"""What every API viewset shares: one base class that authenticates, checks the token's scope and
the model permission, and restricts its queryset with the app's visibility selector; and the
router each app's `api/urls.py` registers its viewsets on."""

import copy
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as AuthUser
from django.db.models import Model, QuerySet
from rest_framework import authentication, generics, permissions, routers, serializers, viewsets

from core.authentication import BearerTokenAuthentication, ModelPermissions, TokenScopePermission

# The URL pattern of an object id (`lookup_value_regex`): digits only, at most 18 (a BigAutoField
# holds 19), so `/designs/abc/bom.csv` or an id no column can hold is a 404 from the URL
# resolver, never a query.
NUMERIC_ID = r"[0-9]{1,18}"

# Who calls: the project's user model (django.contrib.auth's), or nobody yet.
User = AuthUser | AnonymousUser
M = TypeVar("M", bound=Model)


class ShallowFieldCopies:
    """Serializer mixin: each instance gets shallow copies of the declared fields.

    DRF deep-copies every declared field for every serializer instance, so that one instance may
    change its fields without touching the others; that re-runs each field's __init__ and took a
    third of a design preview request (bench.api). Request serializers never change their
    fields, and binding a field to its parent sets attributes on the copy alone, so a shallow
    copy keeps instances independent at a fraction of the cost."""

    _declared_fields: dict[str, serializers.Field[Any, Any, Any, Any]]

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {name: copy.copy(field) for name, field in self._declared_fields.items()}


class ApiViewSet(viewsets.GenericViewSet[M]):
    """The base of every API viewset.

    - Authentication: the API's (bearer token first, then session; settings.REST_FRAMEWORK).
    - Permission: a read-only token may only read, whatever the viewset adds; then the
      viewset's `permission_classes` (Django model permissions unless it says otherwise).
    - Visibility: `get_queryset` is the app's selector for the caller (`visible`), so an object
      the caller may not see is a 404 on every route, reads and writes alike; `shown` adds what
      the serializer reads, so a list costs the same queries for 1 row as for 50.
    Access to objects named in a body (a design's customer, a quote's design) is decided by the
    apps' `<entity>_for(user=..., ...)` selectors, which raise a 404 domain error (CustomerNotFound,
    DesignNotFound ...), answered by `core.api.errors` like a missing id in the path."""

    # As settings.REST_FRAMEWORK says (Bearer first: its WWW-Authenticate header makes an
    # anonymous call a 401, not a 403); stated here so that no viewset can drop one.
    authentication_classes = [BearerTokenAuthentication, authentication.SessionAuthentication]
    permission_classes: Sequence[type[permissions.BasePermission]] = [ModelPermissions]
    lookup_value_regex = NUMERIC_ID

    def get_permissions(self) -> list[Any]:
        return [TokenScopePermission(), *super().get_permissions()]

    @property
    def viewer(self) -> User:
        """The caller, as the selectors take it."""
        return self.request.user

    def visible(self, user: User) -> QuerySet[M]:
        """The objects this caller may see: the app's visibility selector, nothing else."""
        raise NotImplementedError

    def shown(self, queryset: QuerySet[M]) -> QuerySet[M]:
        """The queryset with what the serializer shows fetched along (select/prefetch)."""
        return queryset

    def get_queryset(self) -> QuerySet[M]:
        return self.shown(self.visible(self.viewer))

    def get_object_from(self, queryset: QuerySet[Any], pk: object) -> Any:
        """The object `pk` of a visible queryset (a parent in the path, such as the quote of
        /quotes/{id}/documents/), or a 404: an id no row can hold is a 404 too."""
        return generics.get_object_or_404(queryset, pk=pk)


class ApiRouter(routers.DefaultRouter):
    """Each app's router (its `api/urls.py`). A trailing slash is optional, so that export URLs
    read as files (/designs/7/bom.xlsx). The API root lists every app's routers at once
    (`api_root_view`), so no app's router has a root of its own."""

    include_root_view = False

    def __init__(self) -> None:
        super().__init__()
        self.trailing_slash = "/?"


def api_root_view(*app_routers: routers.DefaultRouter) -> Callable[..., Any]:
    """GET /api/v1/: the list endpoint of every registered viewset, as DRF's root view."""
    list_name = routers.DefaultRouter.routes[0].name
    root = {
        prefix: list_name.format(basename=basename)
        for router in app_routers
        for prefix, _viewset, basename in router.registry
    }
    return routers.APIRootView.as_view(api_root_dict=root)
