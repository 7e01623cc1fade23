"""The permission contract every API endpoint's tests inherit: anonymous -> 401, a user without
the permission -> 403, someone else's object -> 404, permitted -> 2xx.

A subclass sets `list_url` and implements `make_object(owner)` and `detail_url(obj)`; an endpoint
without objects (e.g. preview) sets `test_someone_elses_object_is_404 = None`."""

import pytest
from rest_framework.test import APIClient

from core.services import user_create


class RoleLess:
    """A role with no permissions at all: logged in, but allowed nothing."""

    group_name = "no-role"
    label = "No role"
    permissions = ()


class ApiPermissionContract:
    list_url: str
    list_method = "get"
    list_body: dict | None = None
    permitted_status = (200,)

    def make_object(self, owner):
        raise NotImplementedError

    def detail_url(self, obj) -> str | None:
        raise NotImplementedError

    @pytest.fixture
    def owner(self, engineer):
        return engineer

    @pytest.fixture
    def outsider(self, other_engineer):
        return other_engineer

    @pytest.fixture
    def roleless(self, roles):
        return user_create(
            username="roleless", password="pw-roleless", role=RoleLess(), team_name="Team A"
        )

    @staticmethod
    def as_user(user) -> APIClient:
        client = APIClient()
        client.force_authenticate(user)
        return client

    def _call(self, client, url):
        method = getattr(client, self.list_method)
        if self.list_body is not None:
            return method(url, self.list_body, format="json")
        return method(url)

    def test_anonymous_is_401(self, db):
        response = self._call(APIClient(), self.list_url)
        assert response.status_code == 401
        assert response["Content-Type"] == "application/problem+json"

    def test_without_permission_is_403(self, roleless):
        response = self._call(self.as_user(roleless), self.list_url)
        assert response.status_code == 403

    def test_permitted_is_2xx(self, owner):
        response = self._call(self.as_user(owner), self.list_url)
        assert response.status_code in self.permitted_status, response.content

    def test_someone_elses_object_is_404(self, owner, outsider):
        obj = self.make_object(owner)
        url = self.detail_url(obj)
        assert self.as_user(owner).get(url).status_code == 200
        response = self.as_user(outsider).get(url)
        assert response.status_code == 404
        assert response["Content-Type"] == "application/problem+json"
