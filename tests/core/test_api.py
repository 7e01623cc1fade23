"""API authentication: bearer tokens per integration, scopes, revocation, problem+json errors."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import get_resolver
from rest_framework.test import APIClient
from rest_framework.viewsets import ViewSetMixin

from core.api.base import ApiViewSet
from core.models import ApiToken, TokenScope
from core.services import api_token_create

pytestmark = pytest.mark.django_db
ME = "/api/v1/me/"


def bearer(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def test_anonymous_is_401_with_a_bearer_challenge_as_problem_json():
    response = APIClient().get(ME)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["status"] == 401


def test_command_prints_the_token_as_last_line_and_it_authenticates(engineer):
    out = StringIO()
    call_command("api_token", "create", "--user", "engineer", "--scope", "read", stdout=out)
    secret = out.getvalue().strip().splitlines()[-1]
    response = bearer(secret).get(ME)
    assert response.status_code == 200
    assert response.json() == {
        "username": "engineer",
        "team": "Team A",
        "roles": ["sales-engineer"],
        "token_scope": "read",
    }
    token = ApiToken.objects.get()
    assert token.last_used_at is not None
    # Only the SHA-256 is stored, never the secret itself.
    assert secret not in token.key_hash
    assert len(token.key_hash) == 64


def test_command_for_unknown_user_fails_with_one_line():
    with pytest.raises(CommandError, match="No user named 'ghost'"):
        call_command("api_token", "create", "--user", "ghost", "--scope", "read")


def test_token_secret_has_at_least_128_bits_of_randomness(engineer):
    _token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ)
    random_part = secret.split("_", 2)[2]
    # token_urlsafe(32): 32 random bytes = 256 bits, base64url encoded to 43 characters.
    assert len(random_part) >= 43


def test_revoked_token_is_refused(engineer):
    token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ_WRITE)
    call_command("api_token", "revoke", token.prefix, stdout=StringIO())
    response = bearer(secret).get(ME)
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid or revoked API token."


def test_wrong_token_is_401(engineer):
    assert bearer("ezm_nope_nope").get(ME).status_code == 401


def test_throttled_caller_gets_429_with_retry_after(engineer, monkeypatch):
    from django.core.cache import cache
    from rest_framework.throttling import UserRateThrottle

    from core.throttling import UserRateLimit

    cache.clear()
    # Three calls a minute for this test; the production rate is API_THROTTLE_USER.
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/min", "anon": "3/min"})
    # Half a minute into a window (7,000,020 s is a whole minute): four calls that straddled a
    # minute's end on the clock counted in two windows, and the fourth passed (seen once in CI).
    monkeypatch.setattr(UserRateLimit, "timer", lambda self: 7_000_020.0 + 30)
    _token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ)
    client = bearer(secret)
    statuses = [client.get(ME).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = client.get(ME)
    assert response.status_code == 429
    assert response["Content-Type"] == "application/problem+json"
    assert int(response["Retry-After"]) == 30  # the window ends at 7,000,080 s
    cache.clear()


def test_revocation_takes_effect_at_once_despite_the_token_cache(engineer):
    token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ)
    client = bearer(secret)
    assert client.get(ME).status_code == 200  # now cached
    from core.services import api_token_revoke

    api_token_revoke(token=token)
    assert client.get(ME).status_code == 401


@pytest.mark.parametrize("how", ["save", "bulk update"])
def test_deactivated_users_tokens_stop_at_once_despite_the_token_cache(engineer, how):
    from django.contrib.auth.models import User

    _token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ)
    client = bearer(secret)
    assert client.get(ME).status_code == 200  # now cached
    if how == "save":
        engineer.is_active = False
        engineer.save()
    else:  # no signal, no cache invalidation: the check itself must see it
        User.objects.filter(pk=engineer.pk).update(is_active=False)
    response = client.get(ME)
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    # Reactivated, the token works again.
    User.objects.filter(pk=engineer.pk).update(is_active=True)
    assert client.get(ME).status_code == 200


def test_revoked_by_a_bulk_update_stops_at_once(engineer):
    from django.utils import timezone

    token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ)
    client = bearer(secret)
    assert client.get(ME).status_code == 200  # now cached
    ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    assert client.get(ME).status_code == 401


def test_shallow_field_copies_keep_serializer_instances_independent():
    from planner.serializers import DesignRequestSerializer

    bad = DesignRequestSerializer(data={"gpus": "many", "storage": {"ports": 0}})
    good = DesignRequestSerializer(data={"gpus": 8, "storage": {"ports": 2}})
    assert not bad.is_valid()
    assert good.is_valid(), good.errors
    assert set(bad.errors) == {"gpus", "storage"}
    assert good.validated_data["storage"] == {"ports": 2}
    for name in ("gpus", "storage"):
        assert bad.fields[name] is not good.fields[name]
        assert bad.fields[name].parent is bad
        assert good.fields[name].parent is good
        # The class's declared field is the template: never bound, so never shared state.
        assert DesignRequestSerializer._declared_fields[name].parent is None


def test_rate_limit_counts_per_window_and_says_when_the_next_one_opens(engineer, monkeypatch):
    from django.core.cache import cache
    from rest_framework.throttling import UserRateThrottle

    from core.throttling import UserRateLimit

    cache.clear()
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/min", "anon": "3/min"})
    clock = [6_000_000.0 + 45]  # 45 s into a one-minute window (6,000,000 = 100,000 x 60)
    monkeypatch.setattr(UserRateLimit, "timer", lambda self: clock[0])
    _token, secret = api_token_create(user=engineer, name="crm", scope=TokenScope.READ)
    client = bearer(secret)
    assert [client.get(ME).status_code for _ in range(4)] == [200, 200, 200, 429]
    assert client.get(ME)["Retry-After"] == "15"  # the window closes 15 s later
    clock[0] += 15  # the next window: the count starts again
    assert [client.get(ME).status_code for _ in range(4)] == [200, 200, 200, 429]
    cache.clear()


def test_api_root_lists_every_apps_endpoints_in_one_place(engineer):
    """Each app owns its routes (`<app>/api/urls.py`); the root still lists them all, as the
    single router did (a viewset without a list, documents, is not listed)."""
    client = APIClient()
    client.force_authenticate(engineer)
    response = client.get("/api/v1/")
    assert response.status_code == 200
    assert list(response.json()) == [
        "products", "media-rules", "designs", "quotes", "opportunities", "customers", "webhooks",
    ]  # fmt: skip
    assert response.json()["designs"] == "http://testserver/api/v1/designs"
    assert APIClient().get("/api/v1/").status_code == 401


def test_every_api_viewset_inherits_the_one_base():
    """Authentication, the token scope and the visibility selector are applied by ApiViewSet:
    a viewset that does not inherit it would skip them, so none may (walks the URL resolver,
    so a new app's viewset is checked the day its route exists)."""

    def views(patterns):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                yield from views(pattern.url_patterns)
            else:
                yield getattr(pattern.callback, "cls", None)

    viewsets = {cls for cls in views(get_resolver().url_patterns) if cls is not None}
    viewsets = {cls for cls in viewsets if issubclass(cls, ViewSetMixin)}
    assert len(viewsets) >= 9  # products, media rules, designs, quotes, their documents, ...
    assert [cls.__name__ for cls in viewsets if not issubclass(cls, ApiViewSet)] == []
