"""Issue 29, item 4: request bodies are bounded before they are read (core.body_limits), and an
upload's files are counted as they arrive, before any byte past the cap is spooled to disk; a
JSON body's keys are counted before any serializer sees them (core.parsers).

The large bodies are streamed from generators through Django's own WSGI request handling (the
test client's handler), so 2 GB is offered without 2 GB ever existing; `/proc/self/io`'s `wchar`
counts every byte this process writes (files, temporary files, the database, logs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.test import RequestFactory
from django.test.client import ClientHandler
from rest_framework.test import APIClient

from planner.asbuilt.models import AsBuiltCheck
from planner.asbuilt.reading import MAX_UPLOAD_BYTES
from tests.quotes.factories import DesignFactory, load_seed_subset, small_result

pytestmark = pytest.mark.django_db
MB = 1024 * 1024
GB = 1024 * MB
PROBLEM = "application/problem+json"
BOUNDARY = "ezmaxboundary"


class GeneratedBody:
    """A request body made on demand, as a socket would deliver it: `read` hands out the next
    bytes of the parts, and `sent` counts how many the server took."""

    def __init__(self, parts: list[tuple[bytes, int]]) -> None:
        # Each part: a head sent once, then that many bytes of filler, made 64 kB at a time.
        self._parts = iter(parts)
        self._buffer = b""
        self._filler = 0
        self.sent = 0

    def _more(self) -> bool:
        if self._filler:
            step = min(self._filler, 64 * 1024)
            self._filler -= step
            self._buffer += b"x" * step
            return True
        part = next(self._parts, None)
        if part is None:
            return False
        self._buffer += part[0]
        self._filler = part[1]
        return True

    def read(self, size: int = -1) -> bytes:
        while (size < 0 or len(self._buffer) < size) and self._more():
            pass
        if size < 0:
            size = len(self._buffer)
        chunk, self._buffer = self._buffer[:size], self._buffer[size:]
        self.sent += len(chunk)
        return chunk

    def readline(self, size: int = -1) -> bytes:
        return self.read(size)


def multipart(files: list[tuple[str, int]]) -> tuple[list[tuple[bytes, int]], int]:
    """The parts of a multipart body with these files (name, size) and its exact length."""
    parts: list[tuple[bytes, int]] = []
    for name, size in files:
        head = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{name}"\r\nContent-Type: text/csv\r\n\r\n'
        ).encode()
        parts.append((head, size))
        parts.append((b"\r\n", 0))
    parts.append((f"--{BOUNDARY}--\r\n".encode(), 0))
    return parts, sum(len(head) + size for head, size in parts)


def wchar() -> int:
    """Bytes this process has passed to write() so far, to any file, pipe or socket."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise AssertionError("no wchar in /proc/self/io")


def post_stream(path: str, body: GeneratedBody, *, length: int | None, cookies: str = ""):
    environ = RequestFactory()._base_environ(
        PATH_INFO=path,
        REQUEST_METHOD="POST",
        CONTENT_TYPE=f"multipart/form-data; boundary={BOUNDARY}",
        HTTP_COOKIE=cookies,
        **{"wsgi.input": body},
    )
    if length is None:
        environ.pop("CONTENT_LENGTH", None)
        environ["HTTP_TRANSFER_ENCODING"] = "chunked"
    else:
        environ["CONTENT_LENGTH"] = str(length)
    return ClientHandler(enforce_csrf_checks=False)(environ)


@pytest.fixture
def temp_dir(settings, tmp_path):
    """Django spools uploads above FILE_UPLOAD_MAX_MEMORY_SIZE here."""
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    return tmp_path


@pytest.fixture
def sized_design(engineer):
    load_seed_subset()
    return DesignFactory(owner=engineer, result=small_result())


def _session_cookie(client, user) -> str:
    client.force_login(user)
    return "; ".join(f"{key}={morsel.value}" for key, morsel in client.cookies.items())


def test_the_upload_caps_are_the_as_built_checks():
    # One cap, two places: the handler refuses what the service would refuse by its size.
    assert settings.UPLOAD_FILE_MAX_BYTES == MAX_UPLOAD_BYTES == 20 * MB
    assert settings.REQUEST_BODY_MAX_BYTES == 1 * MB


def test_a_2_gb_login_post_is_413_before_a_byte_is_read(temp_dir):
    parts, length = multipart([("big.csv", 2 * GB)])
    body = GeneratedBody(parts)
    response = post_stream("/accounts/login/", body, length=length)
    assert response.status_code == 413
    assert body.sent == 0  # refused by its Content-Length: nothing was read, so nothing written
    page = response.content.decode()
    assert "1 MB" in page
    assert "请求体超过 1 MB" in page
    assert len(response.content) < 1000  # a short page
    assert list(temp_dir.iterdir()) == []


def test_a_2_gb_as_built_upload_declared_is_a_413_problem_under_the_api(engineer, sized_design):
    parts, length = multipart([("big.csv", 2 * GB)])
    body = GeneratedBody(parts)
    response = post_stream(f"/api/v1/designs/{sized_design.pk}/as-built/", body, length=length)
    assert response.status_code == 413
    assert response["Content-Type"] == PROBLEM
    problem = json.loads(response.content)
    assert problem["status"] == 413
    assert "21 MB" in problem["detail"]
    assert body.sent == 0


def test_a_body_without_content_length_is_411_and_not_read(temp_dir):
    parts, _length = multipart([("big.csv", 2 * GB)])
    body = GeneratedBody(parts)
    response = post_stream("/accounts/login/", body, length=None)
    assert response.status_code == 411
    assert body.sent == 0


@pytest.mark.parametrize(
    "page", ["/designs/{pk}/handover/as-built/", "/api/v1/designs/{pk}/as-built/"]
)
def test_a_2_gb_upload_streamed_is_cut_at_the_cap_as_it_arrives(
    client, engineer, sized_design, temp_dir, settings, page
):
    # The declared length no longer stops it (as if a proxy let any size through): only the
    # upload handler, counting the bytes as they arrive, stands between 2 GB and the disk.
    settings.UPLOAD_BODY_MAX_BYTES = 4 * GB
    cookies = _session_cookie(client, engineer)
    parts, length = multipart([("big.csv", 2 * GB)])
    assert length > 2 * GB
    body = GeneratedBody(parts)
    written_before = wchar()
    response = post_stream(page.format(pk=sized_design.pk), body, length=length, cookies=cookies)
    written = wchar() - written_before
    assert response.status_code == 413
    # Django reads in 64 kB chunks: the request stops within a chunk past the 20 MB cap.
    assert body.sent < 21 * MB, body.sent
    # Up to 20 MB went to the temporary file before the refusal (the memory handler keeps at
    # most 2.5 MB): under 25 MB written anywhere, against 2 GB before the cap.
    assert written < 25 * MB, written
    assert list(temp_dir.iterdir()) == []  # the temporary file went with the refused request
    assert AsBuiltCheck.objects.count() == 0


def test_several_files_together_over_the_cap_are_refused_as_they_arrive(
    client, engineer, sized_design, temp_dir
):
    # Two files of 10.4 MB: the body (20.8 MB) is under the path's 21 MB, their sum over the
    # 20 MB of files; the handler refuses on the second file's last chunks.
    cookies = _session_cookie(client, engineer)
    size = MAX_UPLOAD_BYTES // 2 + 400 * 1024
    parts, length = multipart([("a.csv", size), ("b.csv", size)])
    assert length < settings.UPLOAD_BODY_MAX_BYTES
    body = GeneratedBody(parts)
    response = post_stream(
        f"/designs/{sized_design.pk}/handover/as-built/", body, length=length, cookies=cookies
    )
    assert response.status_code == 413
    assert body.sent <= MAX_UPLOAD_BYTES + 2 * 64 * 1024 + 1024  # the cap, a chunk, the heads
    assert AsBuiltCheck.objects.count() == 0


def test_an_upload_under_the_cap_still_reaches_the_check(engineer_client, sized_design):
    # A small CSV passes the handler untouched: the page answers with its own word on the
    # content (a 400 naming the line), not a refusal by size.
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("n.csv", b"a,b,c,d\n", content_type="text/csv")
    response = engineer_client.post(
        f"/designs/{sized_design.pk}/handover/as-built/", {"file": upload}
    )
    assert response.status_code == 400
    assert "header" in response.content.decode()


# --- JSON keys --------------------------------------------------------------------------------


def api(user) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(user)
    return client


def test_a_json_body_of_many_unknown_keys_is_refused_by_count_in_a_small_answer(engineer):
    body = json.dumps({"gpus": 64, **{f"unknown_{n:06}": n for n in range(40_000)}})
    assert 900 * 1024 < len(body) < settings.REQUEST_BODY_MAX_BYTES  # just under the body cap
    response = api(engineer).post("/api/v1/designs/preview/", body, content_type="application/json")
    assert response.status_code == 400
    problem = response.json()
    assert problem["errors"] == {
        "non_field_errors": [
            "The JSON body has more than 200 keys in all; no request of this API has that many."
        ]
    }
    assert len(response.content) < 1000  # no key echoed back (4.4 MB before)


def test_the_refusal_names_the_field_the_keys_are_under(engineer):
    body = {"gpus": 64, "oversubscription": {f"k{n}": 1 for n in range(201)}}
    response = api(engineer).post("/api/v1/designs/preview/", body, format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["oversubscription"]


def test_two_hundred_keys_parse(engineer):
    # 200 in all (gpus and 199 others) pass the parser; the engine then names what it cannot
    # use: a 400 of its own, not the count's.
    body = {"gpus": 64, **{f"k{n}": 1 for n in range(199)}}
    response = api(engineer).post("/api/v1/designs/preview/", body, format="json")
    assert "keys in all" not in response.content.decode()


def test_a_2_mb_json_body_is_a_413_problem(engineer):
    body = json.dumps({"gpus": 64, "name": "x" * (2 * MB)})
    response = api(engineer).post("/api/v1/designs/preview/", body, content_type="application/json")
    assert response.status_code == 413
    assert response["Content-Type"] == PROBLEM
    assert len(response.content) < 1000
