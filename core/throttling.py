"""API rate limits as fixed windows: one counter per caller and window.

DRF's SimpleRateThrottle keeps the timestamp of every request in the window and reads and
rewrites that whole list on each call, so its cost grows with the rate it allows (a CRM at the
default 1,200/min moves a list of 1,200 floats per request). A counter costs the same at any rate
and is atomic in Redis. The price is the usual fixed-window one: a caller may spend two windows'
worth across a window boundary."""

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle


class _FixedWindow(SimpleRateThrottle):
    window_ends_at = 0.0

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
        self.cache.add(key, 0, self.duration + 1)
        try:
            count = self.cache.incr(key)
        except ValueError:  # expired between add and incr
            self.cache.set(key, 1, self.duration + 1)
            count = 1
        return bool(count <= self.num_requests)

    def wait(self) -> float:
        return max(1.0, self.window_ends_at - self.now)


class UserRateLimit(_FixedWindow, UserRateThrottle):
    """Per user (an API token acts as its user); the rate is DEFAULT_THROTTLE_RATES["user"]."""


class AnonRateLimit(_FixedWindow, AnonRateThrottle):
    """Per client address for anonymous calls; DEFAULT_THROTTLE_RATES["anon"]."""
