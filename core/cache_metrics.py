"""The cache backends of settings.CACHES with django-prometheus' cache figures: every `get`
counted in `django_cache_get_total`, and as a hit or a miss in `django_cache_get_hits_total` and
`django_cache_get_misses_total`; a `get` Redis could not answer also in
`django_cache_get_fail_total`. The counters are django-prometheus' own (the same names and
`backend` label as its backends), so its dashboards read them.

Not its backends themselves: they would drop core.cache.ResilientRedisCache's degradation (its
Redis backends subclass Django's and django-redis' plain ones), and its locmem backend returns
the default for a cached value that is falsy (`cached or default`: a cached 0 reads as None).
A hit here is told from a miss by a sentinel default, so a cached 0, "" or None is a hit."""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.locmem import LocMemCache
from django_prometheus.cache.metrics import (
    django_cache_get_fail_total,
    django_cache_get_total,
    django_cache_hits_total,
    django_cache_misses_total,
)

from core.cache import ResilientRedisCache

_MISSING = object()


def _counted(backend: str, value: Any, default: Any) -> Any:
    django_cache_get_total.labels(backend=backend).inc()
    if value is _MISSING:
        django_cache_misses_total.labels(backend=backend).inc()
        return default
    django_cache_hits_total.labels(backend=backend).inc()
    return value


class MeteredResilientRedisCache(ResilientRedisCache):
    """While Redis is down, a get answered by the process's stand-in cache still counts as a hit
    or a miss: it is what the caller got."""

    metrics_backend = "redis"

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return _counted(self.metrics_backend, super().get(key, _MISSING, version), default)

    def _failed(self, operation: str, exc: BaseException) -> None:
        if operation == "get":
            django_cache_get_fail_total.labels(backend=self.metrics_backend).inc()
        super()._failed(operation, exc)


class MeteredLocMemCache(LocMemCache):
    metrics_backend = "locmem"

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return _counted(self.metrics_backend, super().get(key, _MISSING, version), default)
