"""API rate limits as fixed windows: one counter per caller and window.

DRF's SimpleRateThrottle keeps the timestamp of every request in the window and reads and
rewrites that whole list on each call, so its cost grows with the rate it allows (a CRM at the
default 1,200/min moves a list of 1,200 floats per request). A counter costs the same at any rate
and is atomic in Redis. The price is the usual fixed-window one: a caller may spend two windows'
worth across a window boundary.

When the cache is down (Redis unreachable), each process counts for itself in the same fixed
windows, at the same rate: a caller is still limited, to the rate times the number of worker
processes at most, instead of every call failing. Shared counting resumes once Redis is back."""

import functools
import logging
import math
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache import cache as default_cache
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils.translation import gettext as _
from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from core.cache import CACHE_ERRORS, ResilientRedisCache
from core.lockout import client_ip

logger = logging.getLogger(__name__)

_View = TypeVar("_View", bound=Callable[..., HttpResponseBase])


class _LocalCounters:
    """Fixed-window counters in this process, for while the shared cache is down. Each counter
    remembers when its window closes; closed windows are dropped whenever a window opens, so
    memory stays bounded by the callers of the open windows."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self._ends: dict[str, float] = {}

    def incr(self, key: str, window_ends_at: float, now: float) -> int:
        with self._lock:
            if self._ends.get(key) != window_ends_at:
                for closed in [k for k, ends in self._ends.items() if ends <= now]:
                    del self._ends[closed]
                    self._counts.pop(closed, None)
                self._ends[key] = window_ends_at
                self._counts[key] = 0
            self._counts[key] += 1
            return self._counts[key]

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()
            self._ends.clear()


local_counters = _LocalCounters()


class _FixedWindow(SimpleRateThrottle):
    window_ends_at = 0.0
    # Set by SimpleRateThrottle.__init__ from the rate (parse_rate); None when there is no rate.
    num_requests: int | None
    duration: int | None

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        assert self.duration is not None
        assert self.num_requests is not None
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_ends_at = (window + 1) * self.duration
        key = f"{self.key}:{window}"
        try:
            count = self._shared_count(key)
        except CACHE_ERRORS as exc:
            logger.debug("throttle counting in the process: cache unavailable (%s)", exc)
            count = local_counters.incr(self.key, self.window_ends_at, self.now)
        return bool(count <= self.num_requests)

    def _shared_count(self, key: str) -> int:
        assert self.duration is not None
        # DRF's `cache` is Django's proxy to the default cache, not the backend itself.
        backend = caches[DEFAULT_CACHE_ALIAS] if self.cache is default_cache else self.cache
        if isinstance(backend, ResilientRedisCache):
            return backend.incr_window(key, self.duration + 1)
        self.cache.add(key, 0, self.duration + 1)
        try:
            count = int(self.cache.incr(key))
        except ValueError:  # expired between add and incr (or the add was dropped)
            self.cache.set(key, 1, self.duration + 1)
            count = 1
        return count

    def wait(self) -> float:
        return max(1.0, self.window_ends_at - self.now)


class UserRateLimit(_FixedWindow, UserRateThrottle):
    """Per user (an API token acts as its user); the rate is DEFAULT_THROTTLE_RATES["user"]."""


class AnonRateLimit(_FixedWindow, AnonRateThrottle):
    """Per client address for anonymous calls; DEFAULT_THROTTLE_RATES["anon"]."""


# --- Pages outside the API -----------------------------------------------------------------------


class _AddressWindow(_FixedWindow):
    """A fixed window per client address (core.lockout.client_ip) for a plain Django view."""

    def __init__(self, scope: str, rate: str) -> None:
        self.scope = scope
        self.rate = rate
        self.num_requests, self.duration = self.parse_rate(rate)

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return f"throttle_{self.scope}_{client_ip(request) or 'unknown'}"


def per_address(scope: str, rate_setting: str) -> Callable[[_View], _View]:
    """Throttle a page per client address at the rate named by a setting (e.g. "60/min"): over
    it, a 429 with Retry-After. For pages anyone may call without logging in, such as the
    customer's share pages, where every request is a token guess as well."""

    def decorate(view: _View) -> _View:
        @functools.wraps(view)
        def throttled(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            window = _AddressWindow(scope, getattr(settings, rate_setting))
            # A plain view's request: the window reads only its client address.
            if not window.allow_request(request, None):  # type: ignore[arg-type]
                response = HttpResponse(
                    _("Too many requests: try again in a minute."),
                    status=429,
                    content_type="text/plain; charset=utf-8",
                )
                response["Retry-After"] = str(math.ceil(window.wait()))
                return response
            result: HttpResponseBase = view(request, *args, **kwargs)
            return result

        return throttled  # type: ignore[return-value]

    return decorate
