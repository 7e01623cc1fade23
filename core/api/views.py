"""Who the caller is (GET /api/v1/me/)."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.models import ApiToken
from core.selectors import user_roles, user_team


class MeSerializer(serializers.Serializer[Any]):
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
