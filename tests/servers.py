"""Real servers on 127.0.0.1 that the tests talk to (no patched functions)."""
import email
import email.policy
import socket
import threading
import time
from http.server import ThreadingHTTPServer

from aiosmtpd.controller import Controller


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LocalHttpServer:
    """A threaded HTTP server on 127.0.0.1 (a free port) answering with `handler_class`."""

    def __init__(self, handler_class):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class _MailHandler:
    def __init__(self):
        self.messages = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        text = parsed.get_body(preferencelist=("plain",))
        html = parsed.get_body(preferencelist=("html",))
        with self.lock:
            self.messages.append({
                "from": envelope.mail_from, "to": list(envelope.rcpt_tos), "subject": str(parsed["Subject"]),
                "text": text.get_content() if text else "", "html": html.get_content() if html else "",
            })
        return "250 Message accepted for delivery"


class SmtpSink:
    """An SMTP server (aiosmtpd) that keeps what it receives."""

    def __init__(self):
        self.handler = _MailHandler()
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=free_port())

    def start(self):
        self.controller.start()

    def stop(self):
        self.controller.stop()

    @property
    def port(self):
        return self.controller.port

    @property
    def messages(self):
        with self.handler.lock:
            return list(self.handler.messages)

    def clear(self):
        with self.handler.lock:
            self.handler.messages.clear()

    def to(self, address):
        return [m for m in self.messages if address in m["to"]]

    def wait_for(self, address, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.to(address)
            if found:
                return found[-1]
            time.sleep(0.05)
        raise AssertionError(f"no e-mail to {address} within {timeout}s")


class _RefusingHandler(_MailHandler):
    def __init__(self, refusals):
        super().__init__()
        self.refusals = refusals
        self.refused = 0

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.refused < self.refusals:
                self.refused += 1
                return "554 5.7.1 Message refused"
        return await super().handle_DATA(server, session, envelope)


class RefusingSmtpSink(SmtpSink):
    """An SMTP sink that answers 554 to the first `refusals` messages, then keeps what it receives."""

    def __init__(self, refusals):
        self.handler = _RefusingHandler(refusals)
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=free_port())

    @property
    def refused(self):
        with self.handler.lock:
            return self.handler.refused


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


class StallingSmtp(TcpServer):
    """An SMTP server that accepts the connection, the sender and the recipients, then never answers
    DATA: a client is caught mid-delivery. `data_requested` is set when a client reaches that point."""

    def __init__(self):
        super().__init__()
        self.data_requested = threading.Event()
        self.stopped = threading.Event()

    def serve(self, connection):
        with connection, connection.makefile("rb") as lines:
            connection.sendall(b"220 stalling.test ESMTP\r\n")
            for line in lines:
                verb = line[:4].upper()
                if verb == b"DATA":
                    self.data_requested.set()
                    self.stopped.wait()  # never answers
                    return
                if verb == b"QUIT":
                    connection.sendall(b"221 bye\r\n")
                    return
                connection.sendall(b"250 ok\r\n")

    def stop(self):
        self.stopped.set()
        super().stop()


# PostgreSQL frontend messages that end a round trip: a simple Query, or the Sync closing an extended query.
ROUND_TRIP_MESSAGES = (b"Q", b"S")
_SSL_OR_GSS_REQUEST_CODES = (80877103, 80877104)


class PgWireProxy(TcpServer):
    """A TCP proxy on 127.0.0.1 in front of a PostgreSQL server that counts the round trips its clients
    make (frontend messages `Q` and `S`, docs/operations.md) and can cut a connection on purpose.

    Connect through it with `sslmode=disable` (an encrypted stream cannot be read). `cut_at(n)` closes
    the connection that sends the n-th round trip from now, before that message reaches the server: the
    client meets a connection broken in the middle of its work; `times=2` also cuts the next round trip
    after that one (a retry on a fresh connection meets the same fate)."""

    def __init__(self, upstream_port, upstream_host="127.0.0.1"):
        super().__init__()
        self.upstream = (upstream_host, upstream_port)
        self.lock = threading.Lock()
        self.round_trips = 0
        self.cut_countdown = None
        self.cuts_left = 0
        self.sockets = set()

    def reset(self):
        with self.lock:
            self.round_trips = 0

    def cut_at(self, nth, times=1):
        with self.lock:
            self.cut_countdown, self.cuts_left = nth, times

    def serve(self, client):
        try:
            server = socket.create_connection(self.upstream)
        except OSError:
            client.close()
            return
        with self.lock:
            self.sockets.update((client, server))
        threading.Thread(target=self._pump, args=(server, client), daemon=True).start()
        self._frontend(client, server)

    def _close(self, *sockets):
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
            with self.lock:
                self.sockets.discard(sock)

    def _pump(self, source, target):
        try:
            while chunk := source.recv(65536):
                target.sendall(chunk)
        except OSError:
            pass
        self._close(source, target)

    def _frontend(self, client, server):
        """Forward the client's messages one by one, counting those that end a round trip."""
        reader = client.makefile("rb")
        try:
            self._forward_startup(reader, server)
            while header := reader.read(5):
                if len(header) < 5:
                    break
                body = reader.read(int.from_bytes(header[1:5], "big") - 4)
                if header[:1] in ROUND_TRIP_MESSAGES and self._count_and_maybe_cut():
                    break
                server.sendall(header + body)
        except OSError:
            pass
        self._close(client, server)

    def _forward_startup(self, reader, server):
        """The untyped startup packet, after any SSL/GSS request (the server refuses it with one byte)."""
        while True:
            length = reader.read(4)
            body = reader.read(int.from_bytes(length, "big") - 4)
            server.sendall(length + body)
            if int.from_bytes(body[:4], "big") not in _SSL_OR_GSS_REQUEST_CODES:
                return

    def _count_and_maybe_cut(self):
        with self.lock:
            self.round_trips += 1
            if self.cut_countdown is None:
                return False
            self.cut_countdown -= 1
            if self.cut_countdown > 0:
                return False
            self.cuts_left -= 1
            self.cut_countdown = 1 if self.cuts_left > 0 else None
            return True

    def stop(self):
        self._close(self.listener)
        with self.lock:
            open_sockets = list(self.sockets)
        self._close(*open_sockets)
