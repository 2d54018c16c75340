"""Deadlines: a watchdog shuts a call's sockets down when its time is up; the connect-time address guard."""
import contextlib
import socket
import ssl
import sys
import threading
import time

import requests

from . import watchdog
from .addresses import AddressPolicy


class DeadlineExceeded(requests.exceptions.Timeout, TimeoutError):
    """The call's total deadline passed."""


class ResponseTooLarge(requests.exceptions.RequestException):
    """The answer was larger than the call allows."""


_local = threading.local()


def _clocks():
    return getattr(_local, "clocks", ())


class Deadline:
    """A point in time after which the sockets given to `watch` are shut down."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._sockets = []
        self._fired = False
        self._done = False
        watchdog.schedule(self.ends, self._fire)

    @property
    def expired(self):
        return self._fired or time.monotonic() >= self.ends

    def remaining(self):
        return max(0.0, self.ends - time.monotonic())

    def exceeded(self):
        """The error of a call that ran past this deadline."""
        return DeadlineExceeded(f"deadline of {self.seconds} s exceeded")

    def check(self):
        if self.expired:
            raise self.exceeded()

    def watch(self, sock):
        """Shut `sock` down at the deadline (at once if it has passed)."""
        with self._lock:
            if self._done:
                return
            if not self._fired:
                if all(known is not sock for known in self._sockets):
                    self._sockets.append(sock)
                return
        shut(sock)

    @contextlib.contextmanager
    def collecting(self):
        """Watch every socket this thread connects or sends on inside the block."""
        _install_hook()
        previous = _clocks()
        _local.clocks = (*previous, self)
        try:
            yield self
        finally:
            _local.clocks = previous

    def cancel(self):
        """The call is over: forget its sockets (they may go back to a pool)."""
        with self._lock:
            self._done = True
            self._sockets.clear()

    def _fire(self):
        with self._lock:
            if self._done:
                return
            self._fired = True
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            shut(sock)


def shut(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # not connected yet, already closed, or closed by the other side


@contextlib.contextmanager
def deadline(seconds):
    """Run the block under a total deadline; see the module docstring."""
    clock = Deadline(seconds)
    try:
        with clock.collecting():
            yield clock
    except Exception as exc:
        if clock.expired and not isinstance(exc, DeadlineExceeded):
            raise clock.exceeded() from exc
        raise
    finally:
        clock.cancel()
    clock.check()  # a read cut by the watchdog can look like a normal end of the answer


@contextlib.contextmanager
def guard(allowed_private=()):
    """Refuse connections from this thread to non-public addresses, except the allowed hosts."""
    _install_hook()
    previous = getattr(_local, "policy", None)
    _local.policy = AddressPolicy(allowed_private)
    try:
        yield
    finally:
        _local.policy = previous


def _watch_connect(sock, address):
    policy = getattr(_local, "policy", None)
    if policy is not None:
        policy.check(sock.family, address)
    for clock in _clocks():
        clock.check()
        clock.watch(sock)
        current = sock.gettimeout()
        if current is None or current > clock.remaining():
            sock.settimeout(max(clock.remaining(), 0.001))


def _watch_send(connection):
    sock = getattr(connection, "sock", None)
    if sock is None:
        return
    policy = getattr(_local, "policy", None)
    if policy is not None:
        policy.check(sock.family, sock.getpeername())  # a pooled connection opened before the guard
    for clock in _clocks():
        clock.check()
        clock.watch(sock)


def _audit(event, args):
    if event == "socket.connect":
        if getattr(_local, "clocks", None) or getattr(_local, "policy", None):
            _watch_connect(*args)
    elif event == "http.client.send":
        if getattr(_local, "clocks", None) or getattr(_local, "policy", None):
            _watch_send(args[0])


_hook_lock = threading.Lock()
_hook_installed = False


def _install_hook():
    """Audit hooks are public and per process; installed once, on first use, never at import."""
    global _hook_installed
    if _hook_installed:
        return
    with _hook_lock:
        if not _hook_installed:
            sys.addaudithook(_audit)
            _hook_installed = True


class _WatchedSSLSocket(ssl.SSLSocket):
    """A TLS socket joins the deadlines of its thread before its handshake (the plain one is gone)."""

    def do_handshake(self, block=False):
        for clock in _clocks():
            clock.check()
            clock.watch(self)
        return super().do_handshake(block)


def ssl_context():
    """A verifying client TLS context whose sockets the current deadlines watch from the handshake on."""
    context = ssl.create_default_context(cafile=requests.certs.where())
    context.sslsocket_class = _WatchedSSLSocket
    return context


_shared_context = None
_shared_context_lock = threading.Lock()


def shared_ssl_context():
    """One `ssl_context()` for every session of the process, built on its first TLS call: each context holds the
    parsed CA store (some 0.7 MiB), and the sessions made at import (two adapters each) built sixteen of them
    in every worker, calling out or not. A context is safe to share between threads; nothing changes it once
    built."""
    global _shared_context
    if _shared_context is None:
        with _shared_context_lock:
            if _shared_context is None:
                _shared_context = ssl_context()
    return _shared_context


class _WatchedAdapter(requests.adapters.HTTPAdapter):
    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        if verify is True:
            pool_kwargs["ssl_context"] = shared_ssl_context()
        return host_params, pool_kwargs


POOL_SIZE = 64  # connections are closed after each call: the pool only keeps their (socketless) objects


def session():
    """A requests.Session whose TLS handshakes are covered by the deadline too."""
    http = requests.Session()
    for prefix in ("https://", "http://"):
        http.mount(prefix, _WatchedAdapter(pool_maxsize=POOL_SIZE))
    return http


