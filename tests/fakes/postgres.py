"""A PostgreSQL wire-protocol proxy on 127.0.0.1 that counts round trips and cuts connections on purpose."""
import socket
import threading

from .base import TcpServer

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
