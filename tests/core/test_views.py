import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.fixture
def csrf_client():
    return Client(enforce_csrf_checks=True)


def _login(client, username, password):
    page = client.get(reverse("login"))
    token = page.cookies["csrftoken"].value
    return client.post(
        reverse("login"),
        {"username": username, "password": password, "csrfmiddlewaretoken": token},
    )


def test_home_requires_login(client):
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_login_without_csrf_token_is_refused(csrf_client, engineer):
    response = csrf_client.post(
        reverse("login"), {"username": "engineer", "password": "pw-engineer"}
    )
    assert response.status_code == 403


def test_login_rotates_session_and_logout_kills_it(csrf_client, engineer):
    csrf_client.get(reverse("login"))
    csrf_client.session.save()
    before = csrf_client.cookies.get("sessionid")
    response = _login(csrf_client, "engineer", "pw-engineer")
    assert response.status_code == 302
    after = csrf_client.cookies["sessionid"].value
    assert before is None or before.value != after
    assert csrf_client.get(reverse("home")).status_code == 200

    token = csrf_client.cookies["csrftoken"].value
    csrf_client.post(reverse("logout"), {"csrfmiddlewaretoken": token})
    # The old session key no longer authenticates anyone.
    stale = Client()
    stale.cookies["sessionid"] = after
    assert stale.get(reverse("home")).status_code == 302


def test_failed_logins_are_throttled(csrf_client, engineer, settings):
    # AXES_FAILURE_LIMIT (5) wrong passwords lock the username+IP pair, even for the right one.
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(csrf_client, "engineer", "wrong")
    response = _login(csrf_client, "engineer", "pw-engineer")
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode() or response.status_code == 429


def test_pages_carry_a_content_security_policy_without_inline_scripts(engineer_client):
    response = engineer_client.get(reverse("home"))
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "<script>" not in response.content.decode()


def test_every_response_carries_a_request_id(client):
    response = client.get(reverse("health"))
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert len(response["X-Request-ID"]) >= 32


def test_language_switch_changes_the_page_language(csrf_client, engineer):
    _login(csrf_client, "engineer", "pw-engineer")
    token = csrf_client.cookies["csrftoken"].value
    csrf_client.post(
        reverse("set_language"), {"language": "en", "next": "/", "csrfmiddlewaretoken": token}
    )
    english = csrf_client.get(reverse("home")).content.decode()
    assert 'lang="en"' in english
    assert "Log out" in english
    csrf_client.post(
        reverse("set_language"), {"language": "zh-hans", "next": "/", "csrfmiddlewaretoken": token}
    )
    chinese = csrf_client.get(reverse("home")).content.decode()
    assert 'lang="zh-hans"' in chinese
    assert "退出登录" in chinese  # the zh-Hans catalogue's translation of "Log out"
