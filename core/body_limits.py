"""Request bodies within bounds, decided before the body is read.

A request declares its body's size (Content-Length) before sending it, so the cap is checked
first, by path: the as-built upload and the catalog import take up to UPLOAD_BODY_MAX_BYTES,
every other request REQUEST_BODY_MAX_BYTES (a login form or an API body is a few kB). Above it
the answer is 413 and not one byte of the body is read: an anonymous client once wrote 2 GB to
the temporary directory through the login form, and the as-built page spooled all of an upload
before refusing it for being over 20 MB.

A body sent without Content-Length (chunked) is 411: Django reads no byte of such a body (its
stream is limited to the declared length, none), so the request would silently lose it.

Within an admitted body, `CappedUploadHandler` (first in FILE_UPLOAD_HANDLERS) counts the files'
bytes as they arrive and refuses the request once they pass UPLOAD_FILE_MAX_BYTES, before the
next handler writes the chunk to memory or to a temporary file.

The refusals are short and in both languages: they are answered before the locale middleware
has read the request's language. Under /api/ they are problem+json."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse

from core.errors import PROBLEM_CONTENT_TYPE, problem_body

API_PREFIX = "/api/"
# Where the request's cap is kept for the upload handler, which Django builds with the request.
_CAP_ATTRIBUTE = "body_limit_bytes"
_REFUSED_ATTRIBUTE = "body_limit_refused"


class UploadTooLarge(RequestDataTooBig):
    """The files of a request passed its cap while arriving. A SuspiciousOperation, so whatever
    reads the body first (the CSRF check, a DRF parser) lets it through to Django's handler;
    `BodyLimitMiddleware` then answers 413 in its place."""


@lru_cache(maxsize=8)
def _upload_patterns(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(pattern) for pattern in patterns)


def body_cap(path: str) -> int:
    """The largest body, in bytes, a request to `path` may send."""
    patterns = _upload_patterns(tuple(settings.UPLOAD_BODY_PATHS))
    if any(pattern.match(path) for pattern in patterns):
        return int(settings.UPLOAD_BODY_MAX_BYTES)
    return int(settings.REQUEST_BODY_MAX_BYTES)


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.3g}"


def _texts(status: int, cap: int) -> tuple[str, str]:
    """The refusal's title and its sentence in both languages."""
    size = _megabytes(cap)
    if status == 411:
        return (
            "Length Required",
            "Send the request body with a Content-Length header. "
            "请求体须附带 Content-Length 请求头。",
        )
    return (
        "Content Too Large",
        f"The request body is larger than {size} MB, the most this address accepts. "
        f"请求体超过 {size} MB，即此地址接受的上限。",
    )


def refusal(request: HttpRequest, status: int, cap: int) -> HttpResponse:
    """413 or 411: problem+json under /api/, a short page elsewhere. The body is left unread:
    the server closes the connection after it (gunicorn's sync workers close every one; no
    `Connection` header here, WSGI forbids hop-by-hop headers)."""
    title, detail = _texts(status, cap)
    if request.path.startswith(API_PREFIX):
        body = json.dumps(problem_body(status, title, detail, code="body_too_large"))
        response = HttpResponse(body, status=status, content_type=PROBLEM_CONTENT_TYPE)
    else:
        page = (
            '<!doctype html><html lang="zh-Hans"><meta charset="utf-8">'
            f"<title>{status} {title}</title><h1>{status} {title}</h1><p>{detail}</p></html>"
        )
        response = HttpResponse(page, status=status, content_type="text/html; charset=utf-8")
    return response


def _declared_length(request: HttpRequest) -> int | None:
    try:
        return int(request.META.get("CONTENT_LENGTH") or "")
    except ValueError:
        return None


class BodyLimitMiddleware:
    """Refuses by the declared length before anything reads the body (it must come before the
    CSRF check and the idempotency middleware, which both read it), and answers 413 for a
    request whose files `CappedUploadHandler` refused while they arrived."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        cap = body_cap(request.path)
        length = _declared_length(request)
        if length is None and "HTTP_TRANSFER_ENCODING" in request.META:
            return refusal(request, 411, cap)
        if length is not None and length > cap:
            return refusal(request, 413, cap)
        setattr(request, _CAP_ATTRIBUTE, cap)
        response = self.get_response(request)
        if getattr(request, _REFUSED_ATTRIBUTE, False):
            return refusal(request, 413, cap)
        return response


class CappedUploadHandler(FileUploadHandler):
    """First of FILE_UPLOAD_HANDLERS: counts the bytes of every file of the request as they
    arrive and refuses once they pass the cap, before the next handler keeps the chunk. The cap
    is UPLOAD_FILE_MAX_BYTES on the upload paths, the request's body cap elsewhere (a form that
    takes no file has no reason to receive a large one)."""

    def __init__(self, request: Any = None) -> None:
        super().__init__(request)
        self.received = 0
        self.cap = self._cap(request)

    @staticmethod
    def _cap(request: Any) -> int:
        body = getattr(request, _CAP_ATTRIBUTE, None)
        if body is None:  # built outside the middleware (a test's request factory)
            body = body_cap(getattr(request, "path", "") or "")
        return min(int(body), int(settings.UPLOAD_FILE_MAX_BYTES))

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received += len(raw_data)
        if self.received > self.cap:
            if self.request is not None:
                setattr(self.request, _REFUSED_ATTRIBUTE, True)
                # The file being written is not yet the parser's to close: the temporary one
                # would stay on disk as long as the request object lives.
                for handler in self.request.upload_handlers:
                    if handler is not self:
                        handler.upload_interrupted()
            raise UploadTooLarge(
                f"The uploaded files are larger than {self.cap} bytes; the request is refused."
            )
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the next handler (memory or temporary file) makes the file
