"""Files sent as downloads: the one place the `Content-Disposition` header is made. Django's
`content_disposition_header` quotes a name with a `"` or `\\` and sends a name outside ASCII (a
Chinese customer's) in RFC 6266's `filename*=utf-8''…` form; a hand-written
`attachment; filename="…"` breaks on both."""

from collections.abc import Iterable

from django.http import HttpResponse, StreamingHttpResponse
from django.utils.http import content_disposition_header


def download(content: bytes | str, *, filename: str, content_type: str) -> HttpResponse:
    """A file made in memory, as an attachment, with the header `FileResponse` makes. Not a
    `FileResponse` over `BytesIO` itself: it would stream bytes already held, 4 KB at a time,
    and a streamed response has no `content` (the tests read the file back through it)."""
    # `content_type` as given, without a charset added: "text/csv", "image/svg+xml".
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


def download_stream(
    chunks: Iterable[str | bytes], *, filename: str, content_type: str
) -> StreamingHttpResponse:
    """A file written while it is sent (a long cabling schedule), as an attachment."""
    response = StreamingHttpResponse(chunks, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response
