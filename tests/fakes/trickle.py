"""Servers on 127.0.0.1 that answer one byte a second, so no single read ever times out: only a
total deadline ends a call to them."""
import threading
import time

from trazo.extensions import db

from .base import LocalHttpServer, QuietHandler, TcpServer

TRICKLE_SECONDS = 40


def _trickle(write, first=b""):
    ends = time.monotonic() + TRICKLE_SECONDS
    try:
        write(first)
        while time.monotonic() < ends:
            write(b" ")
            time.sleep(1)
    except OSError:
        pass  # the client gave up


class TrickleHttp(LocalHttpServer):
    """Answers any request with complete headers, then a JSON body one byte a second."""

    def __init__(self):
        self.arrived = threading.Event()
        server = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.arrived.set()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(TRICKLE_SECONDS + 10))
                self.end_headers()
                self.wfile.flush()

                def write(data):
                    self.wfile.write(data)
                    self.wfile.flush()

                _trickle(write, b"{")

            do_GET = do_POST = do_DELETE = _serve

        super().__init__(Handler)


class TrickleSmtp(TcpServer):
    """An SMTP server whose greeting ("220 ...") never ends: one byte a second."""

    def __init__(self):
        super().__init__()
        self.arrived = threading.Event()

    def serve(self, connection):
        self.arrived.set()
        with connection:
            _trickle(connection.sendall, b"220")


def in_background(call):
    """Start `call` in a thread; once joined, outcome holds its "response" and how many "seconds" it took."""
    outcome = {}

    def run():
        started = time.monotonic()
        outcome["response"] = call()
        outcome["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def connections_held_once_called(app, server, bound):
    """How many pooled database connections are checked out while `server` is answering its first call."""
    assert server.arrived.wait(bound), "the server was never called"
    with app.app_context():
        return db.engine.pool.checkedout()
