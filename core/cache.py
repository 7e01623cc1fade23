"""A Redis cache that degrades instead of failing the request.

The cache holds optimisations only (cached API tokens, the catalog revision, throttle counters):
every one of them has a slower but correct source. So when Redis is unreachable, the backend
serves from a small cache in the process instead (what it held is lost: reads miss until written
again), and the request goes on against the database. The catalog snapshot, for one, is then
rebuilt once per process, not on every preview. Entries written there are dropped when Redis
answers again, so nothing stale outlives the outage. The one exception is `incr`, whose callers
(the rate limit counters) must know that nothing was counted in the shared cache: it raises
`CacheUnavailable`, and `core.throttling` then counts in the process.

After a failure the backend does not try Redis again for `DOWN_SECONDS` (default 2 s): a request
during an outage costs nothing extra, not even a refused connection, and Redis is found again
within that time after it comes back. The first failure of an outage is logged as a warning and
the recovery as info (not every call: an outage would flood the log)."""

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import redis.exceptions
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


class CacheUnavailable(Exception):
    """The cache could not answer (Redis down or unreachable); nothing was read or written."""


# What an unreachable Redis raises (refused, reset, timed out, still loading its data). Catch
# these, never Exception: a bug (a bad key, a pickling error) must still surface.
CACHE_ERRORS: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    OSError,
    CacheUnavailable,
)


class _OneClientPerPool(RedisCacheClient):
    """Django's client builds a new `redis.Redis` on every cache call (its constructor fills a
    table of some 170 response callbacks): a third of a millisecond of each API request went to
    three of them. One per connection pool serves every call: a `redis.Redis` takes a pooled
    connection per command, and Django's caches are per thread anyway. (With replicas, this
    thread then reads from the one it first drew.)"""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[bool, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        client = self._clients.get(write)
        if client is None:
            client = self._clients[write] = super().get_client(key, write=write)
        return client


class ResilientRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _OneClientPerPool
        self.down_seconds = float(params.get("DOWN_SECONDS", 2.0))
        self._down_until = 0.0
        self._down_since: float | None = None
        self._lock = threading.Lock()
        # The stand-in while Redis is down: this process only, bounded, emptied on recovery.
        self._local = LocMemCache(
            f"degraded-{uuid.uuid4().hex}",
            {"TIMEOUT": params.get("TIMEOUT", 300), "OPTIONS": {"MAX_ENTRIES": 1000}},
        )

    # --- outage bookkeeping ----------------------------------------------------------------------

    @property
    def is_down(self) -> bool:
        """True while an outage is being waited out (no call reaches Redis)."""
        return time.monotonic() < self._down_until

    def _failed(self, operation: str, exc: BaseException) -> None:
        with self._lock:
            first = self._down_since is None
            now = time.monotonic()
            if first:
                self._down_since = now
            self._down_until = now + self.down_seconds
        if first:
            logger.warning(
                "cache unavailable, degrading to the database and per-process limits",
                extra={"operation": operation, "error": f"{type(exc).__name__}: {exc}"},
            )

    def _succeeded(self) -> None:
        if self._down_since is None:
            return
        with self._lock:
            since, self._down_since, self._down_until = self._down_since, None, 0.0
        if since is not None:
            self._local.clear()
            logger.info(
                "cache available again",
                extra={"outage_seconds": round(time.monotonic() - since, 1)},
            )

    def _call(self, operation: str, shared: Callable[[], _T], local: Callable[[], _T]) -> _T:
        if self.is_down:
            return local()
        try:
            result = shared()
        except CACHE_ERRORS as exc:
            self._failed(operation, exc)
            return local()
        self._succeeded()
        return result

    def ping(self) -> bool:
        """Ask Redis itself, whatever the outage bookkeeping says (for /health/)."""
        try:
            self._cache.get_client(None, write=True).ping()
        except CACHE_ERRORS as exc:
            self._failed("ping", exc)
            return False
        self._succeeded()
        return True

    # --- the cache API: Redis, or the process's own cache while Redis is down -------------------

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call(
            "add",
            lambda: super(ResilientRedisCache, self).add(key, value, timeout, version),
            lambda: self._local.add(key, value, timeout, version),
        )

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._call(
            "get",
            lambda: super(ResilientRedisCache, self).get(key, default, version),
            lambda: self._local.get(key, default, version),
        )

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        self._call(
            "set",
            lambda: super(ResilientRedisCache, self).set(key, value, timeout, version),
            lambda: self._local.set(key, value, timeout, version),
        )

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call(
            "touch",
            lambda: super(ResilientRedisCache, self).touch(key, timeout, version),
            lambda: self._local.touch(key, timeout, version),
        )

    def delete(self, key: Any, version: Any = None) -> Any:
        return self._call(
            "delete",
            lambda: super(ResilientRedisCache, self).delete(key, version),
            lambda: self._local.delete(key, version),
        )

    def get_many(self, keys: Any, version: Any = None) -> Any:
        return self._call(
            "get_many",
            lambda: super(ResilientRedisCache, self).get_many(keys, version),
            lambda: self._local.get_many(keys, version),
        )

    def has_key(self, key: Any, version: Any = None) -> Any:
        return self._call(
            "has_key",
            lambda: super(ResilientRedisCache, self).has_key(key, version),
            lambda: self._local.has_key(key, version),
        )

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._call(
            "set_many",
            lambda: super(ResilientRedisCache, self).set_many(data, timeout, version),
            lambda: self._local.set_many(data, timeout, version),
        )

    def delete_many(self, keys: Any, version: Any = None) -> None:
        self._call(
            "delete_many",
            lambda: super(ResilientRedisCache, self).delete_many(keys, version),
            lambda: self._local.delete_many(keys, version),
        )

    def clear(self) -> Any:
        self._local.clear()
        return self._call("clear", lambda: super(ResilientRedisCache, self).clear(), lambda: True)

    # --- counters: the caller must know nothing was counted ---------------------------------------

    def _shared_only(self, operation: str, shared: Callable[[], _T]) -> _T:
        """A call with no stand-in: a counter must know nothing was counted in the shared
        cache, so an outage raises CacheUnavailable instead of answering from the process."""
        if self.is_down:
            raise CacheUnavailable("the cache is down")
        try:
            result = shared()
        except CACHE_ERRORS as exc:
            self._failed(operation, exc)
            raise CacheUnavailable(str(exc)) from exc
        self._succeeded()
        return result

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> Any:
        return self._shared_only(
            "incr", lambda: super(ResilientRedisCache, self).incr(key, delta, version)
        )

    def decr(self, key: Any, delta: int = 1, version: Any = None) -> Any:
        return self.incr(key, -delta, version)

    def incr_window(self, key: Any, ttl_s: int, version: Any = None) -> int:
        """Count one more in a fixed window's counter and keep it `ttl_s` seconds: INCR and
        EXPIRE in one round trip (the rate limit's add-then-incr took two on every API call).
        Raises CacheUnavailable, as `incr` does, when nothing was counted in the shared cache."""
        name = self.make_and_validate_key(key, version=version)

        def shared() -> int:
            pipe = self._cache.get_client(name, write=True).pipeline(transaction=False)
            pipe.incr(name)
            pipe.expire(name, ttl_s)
            count, _expiry_set = pipe.execute()
            return int(count)

        return self._shared_only("incr", shared)
