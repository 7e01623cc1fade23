"""core.downloads through the whole middleware stack: the name a browser saves the file under,
the bytes, the content type."""

from collections.abc import Iterator
from email.message import Message

import pytest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import path

from core.downloads import download, download_stream

CHINESE = "华为技术有限公司-报价 r2.xlsx"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def _bytes_view(request: HttpRequest) -> HttpResponse:
    return download(b"\x00PK\x03\x04 binary", filename=request.GET["name"], content_type=XLSX)


def _text_view(request: HttpRequest) -> HttpResponse:
    return download("<svg>机柜</svg>", filename="racks.svg", content_type="image/svg+xml")


def _chunks() -> Iterator[str | bytes]:
    yield "a,b\r\n"
    yield b"1,2\r\n"
    yield "华,为\r\n"


def _stream_view(request: HttpRequest) -> StreamingHttpResponse:
    return download_stream(_chunks(), filename=request.GET["name"], content_type="text/csv")


urlpatterns = [
    path("bytes", _bytes_view),
    path("text", _text_view),
    path("stream", _stream_view),
]

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


def _saved_as(disposition: str) -> str | None:
    """The file name as a mail or HTTP client reads the header (RFC 2231/6266 decoding)."""
    header = Message()
    header["Content-Disposition"] = disposition
    assert header.get_content_disposition() == "attachment"
    return header.get_filename()


def test_ascii_name_is_the_plain_quoted_form(client):
    response = client.get("/bytes", {"name": "design-7-bom.xlsx"})
    assert response["Content-Disposition"] == 'attachment; filename="design-7-bom.xlsx"'
    assert response["Content-Type"] == XLSX
    assert response.content == b"\x00PK\x03\x04 binary"


def test_chinese_name_is_sent_as_rfc_6266_utf8(client):
    response = client.get("/bytes", {"name": CHINESE})
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment; filename*=utf-8''")
    disposition.encode("ascii")  # a header value stays ASCII
    assert _saved_as(disposition) == CHINESE


def test_double_quote_in_a_name_is_escaped_not_cut_short(client):
    name = 'rack "A" 2.xlsx'
    response = client.get("/bytes", {"name": name})
    assert response["Content-Disposition"] == r'attachment; filename="rack \"A\" 2.xlsx"'
    assert _saved_as(response["Content-Disposition"]) == name


def test_text_is_sent_as_utf8_with_the_content_type_as_given(client):
    response = client.get("/text")
    assert response["Content-Type"] == "image/svg+xml"
    assert response.content.decode("utf-8") == "<svg>机柜</svg>"
    assert response["Content-Disposition"] == 'attachment; filename="racks.svg"'


def test_streamed_chunks_of_str_and_bytes_arrive_in_order(client):
    response = client.get("/stream", {"name": "设计-7-布线.csv"})
    assert response.streaming
    assert response["Content-Type"] == "text/csv"
    assert _saved_as(response["Content-Disposition"]) == "设计-7-布线.csv"
    assert b"".join(response.streaming_content).decode("utf-8") == "a,b\r\n1,2\r\n华,为\r\n"


def test_a_stream_is_not_read_before_it_is_sent():
    started = []

    def chunks() -> Iterator[str]:
        started.append(True)
        yield "row\r\n"

    response = download_stream(chunks(), filename="a.csv", content_type="text/csv")
    assert started == []
    assert b"".join(response.streaming_content) == b"row\r\n"
    assert started == [True]
