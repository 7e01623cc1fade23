"""Slow clients hold nginx, never gunicorn (issue 29, item 3): docker-compose puts the buffering
proxy of deploy/nginx.conf in front of gunicorn's sync workers. A socket that sends its headers
slowly holds a gunicorn sync worker until gunicorn's timeout; through the proxy /health/ answers
at once, because nginx hands gunicorn a request only once it has all of it.

Runs Debian's nginx (`apt-get install nginx-light`) with the very file compose mounts, only the
upstream's address changed; skipped where nginx is not installed."""

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import worker_env
from tests.core.test_degrade import _free_port

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _wait_listening(port: int, what: str, log: Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"{what}: " + log.read_text()[-2000:]
            time.sleep(0.1)


@pytest.fixture
def gunicorn_one_worker(settings, tmp_path):
    """gunicorn as deployed (gunicorn.conf.py), with one sync worker: the fewest there are."""
    port = _free_port()
    log = tmp_path / "gunicorn.log"
    env = {
        **worker_env(settings),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_ACCESS_LOG": "",
        "WEB_CONCURRENCY": "1",
    }
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    _wait_listening(port, "gunicorn", log)
    yield port
    proc.terminate()
    proc.wait(20)


@pytest.fixture
def nginx_in_front(gunicorn_one_worker, tmp_path):
    if not Path(NGINX).exists():
        pytest.skip("needs nginx (apt-get install nginx-light)")
    port = _free_port()
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "server web:8000;" in site
    assert "listen 8000;" in site
    site = site.replace("server web:8000;", f"server 127.0.0.1:{gunicorn_one_worker};")
    site = site.replace("listen 8000;", f"listen 127.0.0.1:{port};")
    (tmp_path / "site.conf").write_text(site)
    # What nginx:alpine's own nginx.conf does around the conf.d file, in a folder of the test's.
    temp = {name: tmp_path / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    (tmp_path / "nginx.conf").write_text(
        f"""
daemon off;
worker_processes 1;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    include {tmp_path}/site.conf;
}}
"""
    )
    proc = subprocess.Popen(
        [NGINX, "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    _wait_listening(port, "nginx", tmp_path / "error.log")
    yield port
    proc.terminate()
    proc.wait(20)


def slow_clients(port: int, count: int) -> list[socket.socket]:
    """Each sends the first of its headers, then waits (a slowloris client). A whole header and
    part of a body held a warm worker only about 1.5 s (Django answered the login form's CSRF
    refusal without reading the body): the timings below then measured the worker's cold start,
    not the hold, and the test failed about one run in five."""
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), 5)
        sock.sendall(
            b"POST /accounts/login/ HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Len"
        )
        sockets.append(sock)
    time.sleep(0.5)  # the requests are taken (by nginx, or by gunicorn's one worker)
    return sockets


def health_seconds(port: int, timeout: float) -> float:
    started = time.monotonic()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=timeout) as response:
        assert response.status == 200
    return time.monotonic() - started


def test_slow_clients_hold_nginx_not_gunicorn(gunicorn_one_worker, nginx_in_front):
    # A warm worker first (its first request loads Django's URLs, views and connections, over a
    # second on a busy machine), so each timing below is the hold or the proxy, not a start.
    health_seconds(gunicorn_one_worker, timeout=30)
    # Straight to gunicorn, one slow client takes its only worker: /health/ waits.
    held = slow_clients(gunicorn_one_worker, 1)
    try:
        with pytest.raises(OSError):  # timed out
            health_seconds(gunicorn_one_worker, timeout=2)
    finally:
        for sock in held:
            sock.close()
    # The sockets closed, the worker serves again.
    health_seconds(gunicorn_one_worker, timeout=60)
    # Through the proxy, three slow clients hold nothing gunicorn needs: each /health/ answers
    # in well under the 2 s that a held worker made it time out above.
    held = slow_clients(nginx_in_front, 3)
    try:
        for _ in range(3):
            assert health_seconds(nginx_in_front, timeout=5) < 1.0
    finally:
        for sock in held:
            sock.close()


def test_the_proxy_refuses_a_body_over_25_mb_before_reading_it(nginx_in_front):
    sock = socket.create_connection(("127.0.0.1", nginx_in_front), 5)
    try:
        sock.sendall(
            b"POST /api/v1/designs/1/as-built/ HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/octet-stream\r\n"
            b"Content-Length: 2147483648\r\n\r\n"
        )
        answer = sock.recv(200)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer
