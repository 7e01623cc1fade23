"""The preview answer cache (planner.api.preview_cache): the same request on the same catalog is
answered with the same bytes without sizing again; a catalog change, another request or another
language is sized afresh; refusals are never remembered."""

import pytest
from rest_framework.test import APIClient

from catalog.models import Product
from planner import services
from planner.api import preview_cache

pytestmark = pytest.mark.django_db

URL = "/api/v1/designs/preview/"
REQUEST = {"gpus": 64, "gpus_per_server": 8, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}


@pytest.fixture(autouse=True)
def _empty_cache():
    preview_cache.preview_clear()
    yield
    preview_cache.preview_clear()


@pytest.fixture
def sizings(monkeypatch):
    """How many times the engine sized a request."""
    calls = []
    real = services.design_size

    def counted(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(services, "design_size", counted)
    return calls


@pytest.fixture
def api(engineer):
    client = APIClient()
    client.force_authenticate(engineer)
    return client


@pytest.mark.slow
def test_the_same_request_is_answered_from_the_cache(catalog, api, sizings):
    first = api.post(URL, REQUEST, format="json")
    # The same request with its keys in another order is the same canonical request.
    second = api.post(URL, dict(reversed(list(REQUEST.items()))), format="json")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert second["Content-Type"] == "application/json"
    assert len(sizings) == 1
    assert second.json()["request"]["gpus"] == 64


def test_another_request_is_sized(catalog, api, sizings):
    small = api.post(URL, REQUEST, format="json").json()
    large = api.post(URL, {**REQUEST, "gpus": 128}, format="json").json()
    assert len(sizings) == 2
    assert (small["request"]["gpus"], large["request"]["gpus"]) == (64, 128)


def test_a_catalog_change_is_sized_afresh(
    catalog, api, sizings, django_capture_on_commit_callbacks
):
    before = api.post(URL, REQUEST, format="json")
    product = Product.objects.order_by("pk").first()
    with django_capture_on_commit_callbacks(execute=True):  # planner.signals: catalog_changed
        product.name_en = product.name_en + " (renamed)"
        product.save()
    after = api.post(URL, REQUEST, format="json")
    assert after.status_code == 200
    assert len(sizings) == 2  # the new catalog's snapshot has another version: a miss
    # What it answers is what sizing on the new catalog answers, cache or not.
    preview_cache.preview_clear()
    fresh = api.post(URL, REQUEST, format="json")
    assert fresh.content == after.content
    assert len(sizings) == 3
    assert before.status_code == 200


def test_another_language_is_its_own_entry(catalog, api, sizings):
    api.post(URL, REQUEST, format="json")
    api.post(URL, REQUEST, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert len(sizings) == 2


def test_a_refusal_is_not_remembered(catalog, api, sizings):
    bad = {**REQUEST, "gpus": 65}  # not a whole number of 8-GPU servers
    first = api.post(URL, bad, format="json")
    second = api.post(URL, bad, format="json")
    assert first.status_code == second.status_code
    assert first.status_code >= 400
    assert preview_cache._answers == {}


def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(preview_cache, "MAX_ENTRIES", 2)
    keys = [
        preview_cache.preview_key(catalog_version="v", language="en", request_data={"gpus": n})
        for n in range(3)
    ]
    for key in keys:
        preview_cache.preview_put(key, b"{}")
    assert preview_cache.preview_get(keys[0]) is None  # the oldest went first
    assert preview_cache.preview_get(keys[2]) == b"{}"
    big = b"x" * (preview_cache.MAX_BODY_BYTES + 1)
    preview_cache.preview_put(keys[0], big)
    assert preview_cache.preview_get(keys[0]) is None
    assert preview_cache.preview_key(catalog_version="", language="en", request_data={}) is None
