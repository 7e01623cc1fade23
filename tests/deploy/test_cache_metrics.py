"""Cache figures in /metrics (issue 30, core.cache_metrics): the configured cache (Redis with
REDIS_URL, else the process's own) counts each get, and each as a hit or a miss, under
django-prometheus' names; a get Redis cannot answer also counts as a failure."""

import uuid

import pytest
from django.core.cache import cache, caches
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from core.cache_metrics import MeteredLocMemCache, MeteredResilientRedisCache

NAMES = {
    "gets": "django_cache_get_total",
    "hits": "django_cache_get_hits_total",
    "misses": "django_cache_get_misses_total",
    "failures": "django_cache_get_fail_total",
}


def figures(client, backend: str) -> dict[str, float]:
    response = client.get("/metrics", REMOTE_ADDR="127.0.0.1")
    assert response.status_code == 200
    found = dict.fromkeys(NAMES, 0.0)
    wanted = {name: key for key, name in NAMES.items()}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            if sample.name in wanted and sample.labels.get("backend") == backend:
                found[wanted[sample.name]] += sample.value
    return found


@pytest.mark.django_db
def test_a_miss_then_a_hit_move_the_cache_figures_by_one_each(client, settings):
    expected = MeteredResilientRedisCache if settings.REDIS_URL else MeteredLocMemCache
    assert isinstance(caches["default"], expected)
    backend = expected.metrics_backend
    before = figures(client, backend)
    key = f"metrics-test-{uuid.uuid4().hex}"
    assert cache.get(key) is None  # a miss
    cache.set(key, 0, timeout=60)
    # A hit, though the value is falsy (django-prometheus' locmem backend would answer None).
    assert cache.get(key, "default") == 0
    after = figures(client, backend)
    assert {name: after[name] - before[name] for name in NAMES} == {
        "gets": 2,
        "hits": 1,
        "misses": 1,
        "failures": 0,
    }
    cache.delete(key)


def test_the_configured_backend_is_metered_and_keeps_its_options(settings):
    default = settings.CACHES["default"]
    if settings.REDIS_URL:
        assert default["BACKEND"] == "core.cache_metrics.MeteredResilientRedisCache"
        assert default["LOCATION"] == settings.REDIS_URL
        assert {"socket_connect_timeout", "socket_timeout"} <= default["OPTIONS"].keys()
        assert "DOWN_SECONDS" in default
    else:
        assert default["BACKEND"] == "core.cache_metrics.MeteredLocMemCache"
    assert isinstance(caches["default"], MeteredResilientRedisCache | MeteredLocMemCache)


def test_a_get_redis_cannot_answer_is_a_failure_then_a_miss_from_the_stand_in():
    """Port 1 on loopback refuses at once: the first get fails and is answered by the process's
    stand-in cache; the next one, within DOWN_SECONDS, does not ask Redis (no new failure)."""
    down = MeteredResilientRedisCache(
        "redis://127.0.0.1:1/0",
        {"DOWN_SECONDS": 60, "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25}},
    )

    def read() -> dict[str, float]:
        return {
            key: REGISTRY.get_sample_value(name, {"backend": "redis"}) or 0.0
            for key, name in NAMES.items()
        }

    before = read()
    assert down.get("anything", "fallback") == "fallback"
    assert down.get("anything") is None
    after = read()
    assert {key: after[key] - before[key] for key in NAMES} == {
        "gets": 2,
        "hits": 0,
        "misses": 2,
        "failures": 1,
    }
