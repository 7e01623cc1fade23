"""gunicorn's sync worker, answering the requests gunicorn itself refuses in the API's format.

A request line past `limit_request_line`, too many or too large headers, or bytes that are not
HTTP never reach Django: gunicorn answers them on its own, with an HTML page. The API promises
RFC 9457 problem+json for every error (issue 18; Schemathesis counted the HTML 414 as an
undocumented answer), so this worker writes them as problems. The detail is in both languages:
gunicorn refuses before the request's Accept-Language is read.

gunicorn.conf.py names this class; only the error page differs from gunicorn's own worker."""

from __future__ import annotations

import json
import socket
from typing import Any

from gunicorn import util
from gunicorn.workers.sync import SyncWorker

from core.http_limits import HEADER_FIELD_MAX_BYTES, HEADER_FIELDS_MAX, REQUEST_LINE_MAX_BYTES

DETAILS = {
    414: (
        f"The request line (method, path and query) is longer than {REQUEST_LINE_MAX_BYTES:,} "
        f"bytes. 请求行（方法、路径和查询参数）超过 {REQUEST_LINE_MAX_BYTES:,} 字节。"
    ),
    431: (
        f"The request has more than {HEADER_FIELDS_MAX} headers or a header longer than "
        f"{HEADER_FIELD_MAX_BYTES:,} bytes. 请求头超过 {HEADER_FIELDS_MAX} 个，或某个请求头超过 "
        f"{HEADER_FIELD_MAX_BYTES:,} 字节。"
    ),
    500: "The server could not handle this request. 服务器未能处理此请求。",
}
NOT_HTTP = "The request is not valid HTTP/1.1. 请求不是有效的 HTTP/1.1 请求。"


def write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """`gunicorn.util.write_error`'s signature. `mesg` is not sent: it quotes the refused
    request line or header back, which the client has and a log reader does not need twice."""
    problem = {
        "type": "about:blank",
        "title": reason,
        "status": status_int,
        "detail": DETAILS.get(status_int, NOT_HTTP),
    }
    body = json.dumps(problem, ensure_ascii=False).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


class ProblemSyncWorker(SyncWorker):  # type: ignore[misc]  # gunicorn ships no type hints
    def init_process(self) -> Any:
        # gunicorn's worker writes its refusals through `util.write_error` (workers/base.py,
        # handle_error); in this worker process, that is ours.
        util.write_error = write_problem
        return super().init_process()
