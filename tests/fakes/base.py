"""The one base of the fake servers: real servers on 127.0.0.1 (a free port) that the tests talk to, never
patched functions. Every HTTP fake is a LocalHttpServer (most of them a FakeService, which routes requests
to methods and records them); every raw TCP fake (SMTP that stalls or trickles, the PostgreSQL proxy) is a
TcpServer."""
import base64
import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that writes no access line to stderr."""

    def log_message(self, *_args):
        pass


class LocalHttpServer:
    """A threaded HTTP server on 127.0.0.1 (a free port) answering with `handler_class`."""

    def __init__(self, handler_class):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.httpd.server_port}"

    @property
    def url(self):
        """The base URL to put in the settings (the origin, unless a fake serves under a prefix)."""
        return self.origin

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass
class Request:
    method: str
    path: str
    query: dict
    headers: dict
    body: bytes
    query_string: str = ""

    def json(self):
        return json.loads(self.body or b"null")

    def form(self):
        return dict(parse_qsl(self.body.decode()))

    def bearer(self):
        value = self.headers.get("authorization", "")
        return value[7:] if value.lower().startswith("bearer ") else None

    def basic(self):
        value = self.headers.get("authorization", "")
        if not value.lower().startswith("basic "):
            return None
        return tuple(base64.b64decode(value[6:]).decode().split(":", 1))


@dataclass
class Reply:
    status: int = 200
    body: object = None
    headers: dict = field(default_factory=dict)


class FakeService(LocalHttpServer):
    """An HTTP API: `answer(request)` (by default the handler routed by (method, path)) makes each Reply,
    JSON unless the body is bytes; every request is recorded in `requests`."""

    def __init__(self):
        self.routes = {}
        self.requests = []
        service = self

        class Handler(QuietHandler):
            def _serve(self):
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(self.command, parts.path, dict(parse_qsl(parts.query)),
                                  {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length),
                                  parts.query)
                service.requests.append(request)
                reply = service.answer(request)
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.headers.pop("Content-Type", "application/json"))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a deadline test)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _serve

        super().__init__(Handler)

    def answer(self, request):
        handler = self.routes.get((request.method, request.path))
        return handler(request) if handler else Reply(404, {"message": "Not Found"})

    def route(self, method, path, handler):
        self.routes[(method, path)] = handler

    def received(self, method, path):
        return [request for request in self.requests if request.method == method and request.path == path]


class TcpServer:
    """A raw TCP server on 127.0.0.1 (a free port) that serves each connection on a thread of its own:
    subclasses define `serve(connection)`."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def port(self):
        return self.listener.getsockname()[1]

    def start(self):
        self.thread.start()
        return self

    def _accept(self):
        while True:
            try:
                connection, _address = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(connection,), daemon=True).start()

    def serve(self, connection):
        raise NotImplementedError

    def stop(self):
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
