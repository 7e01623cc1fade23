"""API rate limits as fixed windows: one counter per caller and window.

DRF's SimpleRateThrottle keeps the timestamp of every request in the window and reads and
rewrites that whole list on each call, so its cost grows with the rate it allows (a CRM at the
default 1,200/min moves a list of 1,200 floats per request). A counter costs the same at any rate
and is atomic in Redis. The price is the usual fixed-window one: a caller may spend two windows'
worth across a window boundary."""

import functools
import math
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils.translation import gettext as _
from rest_framework.request import Request
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

_View = TypeVar("_View", bound=Callable[..., HttpResponseBase])


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


# --- Pages outside the API -----------------------------------------------------------------------


class _AddressWindow(_FixedWindow):
    """A fixed window per client address (core.lockout.client_ip) for a plain Django view."""

    def __init__(self, scope: str, rate: str) -> None:
        self.scope = scope
        self.rate = rate
        self.num_requests, self.duration = self.parse_rate(rate)

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        from core.lockout import client_ip

        return f"throttle_{self.scope}_{client_ip(request) or 'unknown'}"


def per_address(scope: str, rate_setting: str) -> Callable[[_View], _View]:
    """Throttle a page per client address at the rate named by a setting (e.g. "60/min"): over
    it, a 429 with Retry-After. For pages anyone may call without logging in, such as the
    customer's share pages, where every request is a token guess as well."""

    def decorate(view: _View) -> _View:
        @functools.wraps(view)
        def throttled(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            window = _AddressWindow(scope, getattr(settings, rate_setting))
            if not window.allow_request(request, None):
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
