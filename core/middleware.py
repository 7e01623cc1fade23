"""Request middleware: NUL bytes refused in paths and queries (`NulByteMiddleware`),
`Idempotency-Key` on API POSTs (`IdempotencyMiddleware`), a Retry-After on every 429
(`RetryAfterMiddleware`), and expired sessions that lose nothing (`SessionExpiryMiddleware`).
Request body limits are in `core.body_limits`."""

import contextlib
import hashlib
import json
from collections.abc import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.db import DatabaseError, transaction
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseRedirect,
    QueryDict,
)
from django.shortcuts import resolve_url
from django.urls import Resolver404, resolve
from django.utils.http import url_has_allowed_host_and_scheme

from core.errors import PROBLEM_CONTENT_TYPE, problem_body
from core.services import (
    IdempotencyConflict,
    idempotency_abandon,
    idempotency_begin,
    idempotency_finish,
)

API_PREFIX = "/api/"


def _problem(status: int, title: str, detail: str) -> HttpResponse:
    body = problem_body(status, title, detail)
    return HttpResponse(json.dumps(body), status=status, content_type=PROBLEM_CONTENT_TYPE)


def _principal(request: HttpRequest) -> str | None:
    """Keys are scoped to the caller: its bearer token, or its logged-in session user."""
    authorization = request.headers.get("Authorization", "")
    if authorization:
        return hashlib.sha256(authorization.encode()).hexdigest()
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return hashlib.sha256(f"user:{user.pk}".encode()).hexdigest()
    return None


class NulByteMiddleware:
    """A NUL byte in the path or the query string is a 400 before any view runs: no URL of this
    site has one, and PostgreSQL refuses it in any text value, so a lookup or filter on it was a
    500. Under /api/ the answer is problem+json."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in request.path or "\x00" in query or "%00" in query:
            if request.path.startswith(API_PREFIX):
                return _problem(400, "Bad Request", "The URL contains a NUL byte.")
            return HttpResponseBadRequest("The URL contains a NUL byte.")
        return self.get_response(request)


class IdempotencyMiddleware:
    """The same key and body replay the first response (the Stripe convention); the same key with
    another body is 422; a request still in flight with it is 409, until the request timeout
    has passed (then it was killed, and the retry runs)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = request.headers.get("Idempotency-Key")
        if request.method != "POST" or not key or not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        principal = _principal(request)
        if principal is None:
            return self.get_response(request)  # unauthenticated: the view answers 401
        if len(key) > 255:
            return _problem(400, "Bad Request", "Idempotency-Key must be at most 255 characters.")
        request_hash = hashlib.sha256(
            request.method.encode() + b" " + request.path.encode() + b"\n" + request.body
        ).hexdigest()
        try:
            stored = idempotency_begin(principal=principal, key=key, request_hash=request_hash)
        except IdempotencyConflict as conflict:
            if conflict.in_flight:
                return _problem(
                    409, "Conflict", "A request with this Idempotency-Key is still in progress."
                )
            return _problem(
                422,
                "Unprocessable Content",
                "This Idempotency-Key was used with a different request body.",
            )
        if stored is not None:
            replay = HttpResponse(
                bytes(stored.body), status=stored.status_code, content_type=stored.content_type
            )
            if stored.location:
                replay["Location"] = stored.location
            replay["Idempotent-Replayed"] = "true"
            return replay
        try:
            return self._run(request, principal=principal, key=key)
        except BaseException:
            # Also SystemExit: gunicorn aborts a request past its timeout that way. A request
            # killed outright (SIGKILL, out of memory) cannot release its key; the key then
            # expires after the request timeout (IDEMPOTENCY_IN_FLIGHT_SECONDS).
            with contextlib.suppress(Exception):  # the connection may be gone with the request
                idempotency_abandon(principal=principal, key=key)
            raise

    def _run(self, request: HttpRequest, *, principal: str, key: str) -> HttpResponse:
        """The view's writes and the stored response commit together, in one transaction: a
        request killed before the end (a statement it sent may still complete in PostgreSQL)
        leaves nothing behind but its in-flight key, so the retry that takes the key over does
        the work exactly once. A server error, a streamed answer or a transaction the database
        broke (a value it refused, answered 400) keep nothing and release the key; a success that
        cannot be committed is a server error, never sent as a success."""
        response: HttpResponse | None = None
        try:
            with transaction.atomic():
                response = self.get_response(request)
                if response.status_code >= 500 or response.streaming:
                    raise _NotKept
                idempotency_finish(
                    principal=principal,
                    key=key,
                    status_code=response.status_code,
                    content_type=response.get("Content-Type", ""),
                    body=response.content,
                    location=response.get("Location", ""),
                )
        except _NotKept:
            idempotency_abandon(principal=principal, key=key)
        except DatabaseError:
            # Nothing was committed: an error answer stands (the view's own query broke the
            # transaction), a success must not be sent (the server error releases the key).
            if response is None or response.status_code < 400:
                raise
            idempotency_abandon(principal=principal, key=key)
        assert response is not None  # every path that leaves it unset has raised
        return response


class _NotKept(Exception):
    """Rolls the request's transaction back; its response is still sent."""


class RetryAfterMiddleware:
    """Every 429 problem says when to ask again. The rate limits set their own Retry-After; a
    refusal by fair use (core.fair_use, `TooManyJobs`, mapped to 429 with the other domain
    errors) gets JOBS_RETRY_AFTER_SECONDS, the time a render typically takes to free a place."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code == 429
            and response.get("Content-Type") == PROBLEM_CONTENT_TYPE
            and not response.has_header("Retry-After")
        ):
            response["Retry-After"] = str(int(settings.JOBS_RETRY_AFTER_SECONDS))
        return response


class SessionExpiryMiddleware:
    """A request whose session has gone loses nothing (issue 27 item 2).

    When a view sends an anonymous request to the login page (`login_required`), `next` names the
    page the person was on, never the fragment or POST-only URL that was asked for: an htmx
    request's page is its `HX-Current-URL`, another non-GET request's its same-origin Referer.
    A request that still carried a session cookie had a session that expired: the login page is
    told (`expired=1`) and says so. An htmx request is answered with `HX-Redirect` instead of the
    login page, which htmx would otherwise swap into the panel it was updating.

    A browser GET of a POST-only URL right after signing in (a `next` from an older link) is sent
    to the page that owns it (the nearest parent path that resolves) instead of a 405."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith(API_PREFIX):
            return response
        if response.status_code == 405 and request.method in ("GET", "HEAD"):
            return _to_owning_page(request, response)
        user = getattr(request, "user", None)
        if response.status_code == 302 and user is not None and not user.is_authenticated:
            return _login_redirect(request, response)
        return response


def _same_origin_path(request: HttpRequest, url: str) -> str | None:
    """The path and query of `url` when it is on this site; None otherwise."""
    if not url:
        return None
    parsed = urlsplit(url)
    if parsed.netloc and parsed.netloc != request.get_host():
        return None
    path = parsed.path or "/"
    if not url_has_allowed_host_and_scheme(
        path, allowed_hosts={request.get_host()}, require_https=False
    ):
        return None
    return f"{path}?{parsed.query}" if parsed.query else path


def _login_redirect(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    location = response.get("Location", "")
    login_path = resolve_url(settings.LOGIN_URL)
    parsed = urlsplit(location)
    if parsed.path != login_path:
        return response
    query = QueryDict(parsed.query, mutable=True)
    htmx = request.headers.get("HX-Request") == "true"
    page = None
    if htmx:
        page = _same_origin_path(request, request.headers.get("HX-Current-URL", ""))
    elif request.method not in ("GET", "HEAD"):
        page = _same_origin_path(request, request.headers.get("Referer", ""))
    if page:
        query["next"] = page
    if settings.SESSION_COOKIE_NAME in request.COOKIES:
        query["expired"] = "1"
    target = f"{login_path}?{query.urlencode(safe='/')}" if query else login_path
    if htmx:
        answer = HttpResponse(status=200)
        answer["HX-Redirect"] = target
        return answer
    response["Location"] = target
    return response


def _to_owning_page(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Only on the way back from the login page (its Referer): elsewhere a GET of a POST-only
    URL stays a 405, as the page matrix expects."""
    came_from = _same_origin_path(request, request.headers.get("Referer", "")) or ""
    from_login = urlsplit(came_from).path == resolve_url(settings.LOGIN_URL)
    if request.headers.get("HX-Request") == "true" or not from_login:
        return response
    parts = [part for part in request.path.split("/") if part]
    while parts:
        parts.pop()
        candidate = "/" + "/".join(parts) + ("/" if parts else "")
        try:
            resolve(candidate)
        except Resolver404:
            continue
        return HttpResponseRedirect(candidate)
    return response
