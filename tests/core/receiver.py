"""A real HTTP endpoint on loopback that records what it receives (a webhook receiver)."""

import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    """Answers each POST with the next of `statuses` (then 200), with `headers` (e.g. a
    redirect's Location) and `reason` as the status line's text when given; over TLS when given
    `tls=(certificate file, key file)`."""

    def __init__(
        self,
        statuses: list[int] | None = None,
        *,
        headers: dict[str, str] | None = None,
        reason: str | None = None,
        tls: tuple[str, str] | None = None,
    ) -> None:
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.statuses = list(statuses or [])
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status, reason)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # e.g. a client that refused our certificate: the test checks the client

        self.server = Server(("127.0.0.1", 0), Handler)
        self.scheme = "http"
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(
                self.server.socket, server_side=True, do_handshake_on_connect=False
            )
            self.scheme = "https"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return self.url_for("127.0.0.1")

    def url_for(self, host: str) -> str:
        return f"{self.scheme}://{host}:{self.port}/hooks"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
