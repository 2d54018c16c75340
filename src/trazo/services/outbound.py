"""Outbound calls under a total wall-clock deadline, with a cap on what is read and an address guard.

`requests`' own timeout bounds each read only: a server that trickles one byte a second keeps a
thread for ever. Here a watchdog thread shuts the sockets of a call down when its time is up, which
wakes any blocked read; the caller then gets `DeadlineExceeded`.

Plain calls (body read, capped, connection closed):

    response = outbound.request(SESSION, "POST", url, integration="ai", seconds=30, max_bytes=4 << 20,
                                json=payload)

Streamed calls (headers and the whole body under one deadline):

    with outbound.open_stream(SESSION, "POST", url, integration="ai", seconds=30, max_bytes=4 << 20,
                              json=payload) as call:
        call.response.status_code, call.response.headers
        for chunk in call.chunks():  # what arrived, as it arrives
            ...
    # call.interrupt() from another thread wakes a blocked read; chunks() then ends quietly.

`request` returns an `Answer` (status_code, headers, content, text, json(), url) with the connection
closed; streamed calls close it too (never pooled: an answer cut short would poison the pool).

Both take `public_only=True` for a URL a user chose: every connection then goes to a global address
only (checked at connect time, on the address actually connected to, so DNS rebinding cannot slip in),
or to a host of `allowed_private` ("host" or "host:port"; names are resolved per call). Redirects are
never followed. `SESSION` should come from `outbound.session()`, whose TLS sockets are watched from
the handshake on; any `requests.Session` works for plain HTTP.

Any other client (smtplib, an authlib session, ...):

    with outbound.deadline(15, integration="email"):
        with smtplib.SMTP(host, port, timeout=15) as smtp:
            smtp.starttls(context=outbound.ssl_context())
            ...

Sockets this thread connects inside the block, and http.client connections it sends on, are shut
down at the deadline; a failure after the deadline leaves the block as `DeadlineExceeded`. Keep the
block tight around the call (no database or cache access inside). `with outbound.guard(allowed_private):`
applies the address guard to a block the same way.

Every call names its `integration` (ai, render, email, payments, oauth): it is counted and timed
under that name with its outcome, ok, error (an exception, or a 5xx answer) or timeout
(docs/operations.md, "Metrics"). A streamed call is timed until it is closed.

Exceptions (all safe to map without inspecting them):
    DeadlineExceeded  the total deadline passed (a TimeoutError and a requests.Timeout: answer 504)
    ResponseTooLarge  more than max_bytes arrived (a requests.RequestException: answer 502)
    AddressRefused    a guarded connection to a non-public address; urllib3 and requests wrap it in
                      their connection errors, so a refused address fails exactly like a closed port
"""
import contextlib
import json
from dataclasses import dataclass

import requests

from ..metrics import outbound_timer
from .egress import clock as clocks
from .egress.addresses import AddressRefused
from .egress.clock import Deadline, DeadlineExceeded, ResponseTooLarge, guard, session, shut, ssl_context

__all__ = ["AddressRefused", "Answer", "Deadline", "DeadlineExceeded", "ResponseTooLarge", "StreamedCall",
           "deadline", "guard", "open_stream", "request", "session", "ssl_context"]

CONNECT_TIMEOUT = 10
READ_SIZE = 8192
TIMEOUTS = (requests.Timeout, TimeoutError)  # DeadlineExceeded is both


def _failure_outcome(exc, clock):
    return "timeout" if clock.expired or isinstance(exc, TIMEOUTS) else "error"


class StreamedCall:
    """A streamed answer under its deadline; `chunks()` yields what arrives, `close()` ends the call."""

    def __init__(self, clock, response, max_bytes, timer):
        self.clock = clock
        self.response = response
        self.max_bytes = max_bytes
        self.timer = timer
        self.received = 0
        self.interrupted = False
        self.failure = None

    def sock(self):
        return getattr(getattr(self.response.raw, "connection", None), "sock", None)

    def _raw_chunks(self):
        raw = self.response.raw
        if raw.chunked or self.response.headers.get("Content-Encoding"):
            yield from self.response.iter_content(chunk_size=None if raw.chunked else READ_SIZE)
            return
        # Without chunked encoding read() would wait for a full buffer; read1 hands over what arrived.
        while chunk := raw.read1(READ_SIZE):
            yield chunk

    def chunks(self):
        """The body as it arrives; DeadlineExceeded or ResponseTooLarge close the call.

        After `interrupt()` the iteration just ends.
        """
        try:
            for chunk in self._raw_chunks():
                self.received += len(chunk)
                if self.max_bytes is not None and self.received > self.max_bytes:
                    raise ResponseTooLarge(f"answer larger than {self.max_bytes} bytes")
                self.clock.check()
                yield chunk
            if not self.interrupted:
                self.clock.check()  # a read cut by the watchdog looks like the end of the answer
        except Exception as exc:  # requests, urllib3 and socket errors alike: the call is over
            self.failure = exc
            self.close()
            if self.interrupted:
                return
            if self.clock.expired and not isinstance(exc, (DeadlineExceeded, ResponseTooLarge)):
                raise self.clock.exceeded() from exc
            raise

    def read(self):
        """The whole body (capped) as bytes; the call is closed afterwards."""
        try:
            return b"".join(self.chunks())
        finally:
            self.close()

    def close(self):
        """End the call; the connection is closed, never pooled (an answer cut short would poison it)."""
        self.clock.cancel()
        self.response.raw.close()
        self.response.close()
        self.timer.finish(self._outcome())

    def _outcome(self):
        if self.failure is not None and not self.interrupted:
            return _failure_outcome(self.failure, self.clock)
        return "error" if self.response.status_code >= 500 else "ok"

    def interrupt(self):
        """From another thread: wake the read blocked on this call; `chunks()` then ends quietly."""
        self.interrupted = True
        sock = self.sock()
        if sock is not None:
            shut(sock)

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()


@dataclass(frozen=True)
class Answer:
    """A whole answer, already read."""

    status_code: int
    headers: requests.structures.CaseInsensitiveDict
    content: bytes
    url: str

    @property
    def text(self):
        return self.content.decode("utf-8", errors="replace")

    def json(self):
        return json.loads(self.content)


def open_stream(http, method, url, *, integration, seconds, max_bytes=None, public_only=False,
                allowed_private=(), **kwargs):
    """Send the request; return a StreamedCall once the headers are in (see the module docstring)."""
    timer = outbound_timer(integration)
    clock = Deadline(seconds)
    kwargs.setdefault("timeout", (min(CONNECT_TIMEOUT, seconds), seconds))
    if public_only:
        kwargs["allow_redirects"] = False
    try:
        with guard(allowed_private) if public_only else contextlib.nullcontext(), clock.collecting():
            response = http.request(method, url, stream=True, **kwargs)
    except Exception as exc:
        clock.cancel()
        timer.finish(_failure_outcome(exc, clock))
        if clock.expired and not isinstance(exc, DeadlineExceeded):
            raise clock.exceeded() from exc
        raise
    call = StreamedCall(clock, response, max_bytes, timer)
    sock = call.sock()
    if sock is not None:
        clock.watch(sock)
    return call


def request(http, method, url, *, integration, seconds, max_bytes=None, public_only=False, allowed_private=(),
            **kwargs):
    """A whole call under one deadline, returned as an Answer (see the module docstring)."""
    call = open_stream(http, method, url, integration=integration, seconds=seconds, max_bytes=max_bytes,
                       public_only=public_only, allowed_private=allowed_private, **kwargs)
    content = call.read()
    response = call.response
    return Answer(response.status_code, response.headers, content, response.url)


@contextlib.contextmanager
def deadline(seconds, *, integration):
    """Run the block under a total deadline (see the module docstring), counted and timed as one call of
    `integration`: "timeout" when it passed, "error" when the block raised anything else."""
    timer = outbound_timer(integration)
    outcome = "error"
    try:
        with clocks.deadline(seconds) as clock:
            yield clock
        outcome = "ok"
    except TIMEOUTS:
        outcome = "timeout"
        raise
    finally:
        timer.finish(outcome)
