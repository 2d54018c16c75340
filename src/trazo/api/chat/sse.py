"""Server-Sent Events: `data: <json>` events fed by a worker thread, with keep-alive comments in between.

The reply is produced in a worker thread so the response can send a comment line whenever the
provider is silent (slow first token, auto-fix retries). When the client goes away the WSGI
server closes the response iterator; that cancels the worker, which stops the upstream call. A stream
whose caller lost access to the session (left the workspace, removed, session deleted) ends with an `error`
event at the next access check (docs/teams.md, "Leaving, removal and deletion").
"""
import logging
import queue
import threading
import time

from ...logs import current_request_id, run_with_request_id
from ...metrics import stream_closed, stream_opened
from ..sse import KEEP_ALIVE, sse_event

log = logging.getLogger(__name__)

TERMINAL_TYPES = ("done", "error")
_FINISHED = object()


class Channel:
    """Events from the worker to the response, and cancellation from the response to the worker."""

    def __init__(self):
        self._events = queue.Queue()
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._upstream = None

    def emit(self, payload):
        self._events.put(payload)

    def finish(self):
        self._events.put(_FINISHED)

    def next_event(self, timeout):
        """The next event, None after `timeout` seconds of silence, or _FINISHED."""
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    @property
    def cancelled(self):
        return self._cancelled.is_set()

    def watch(self, upstream):
        """Remember the open upstream call so a cancellation can close it; close it now if already cancelled."""
        with self._lock:
            self._upstream = upstream
        if self.cancelled:
            self._close_upstream()

    def cancel(self):
        self._cancelled.set()
        self._close_upstream()

    def _close_upstream(self):
        with self._lock:
            upstream, self._upstream = self._upstream, None
        if upstream is not None:
            try:
                upstream.close()
            except Exception:  # closing a half-read connection may raise; the call is abandoned either way
                log.debug("closing the upstream stream failed", exc_info=True)


def event_stream(channel, start_worker, keepalive_seconds, refusal=None, check_seconds=None):
    """Yield the worker's events as SSE text, a keep-alive comment after each silent interval.

    With `refusal` (a callable answering None, or the error event that ends the stream), it is asked every
    `check_seconds` whether the caller may still follow the stream; the first refusal is the last event.
    """
    start_worker()
    stream_opened()
    now = time.monotonic()
    spoken, next_check = now, (now + check_seconds if refusal else None)
    try:
        while True:
            wait = keepalive_seconds - (time.monotonic() - spoken)
            if next_check is not None:
                wait = min(wait, next_check - time.monotonic())
            event = channel.next_event(max(wait, 0))
            if event is _FINISHED:
                return
            if next_check is not None and time.monotonic() >= next_check:
                ended = refusal()
                if ended is not None:
                    yield sse_event(ended)
                    return
                next_check = time.monotonic() + check_seconds
            if event is None:
                if time.monotonic() - spoken >= keepalive_seconds:
                    spoken = time.monotonic()
                    yield KEEP_ALIVE
                continue
            spoken = time.monotonic()
            yield sse_event(event)
            if event.get("type") in TERMINAL_TYPES:
                return
    finally:
        stream_closed()  # the end, an error, or the client gone (the server closes the iterator)
        channel.cancel()


def start_thread(target, *args):
    # The thread logs under the id of the request that started it.
    thread = threading.Thread(target=run_with_request_id, args=(current_request_id(), target, *args),
                              daemon=True, name="chat-stream")
    thread.start()
    return thread
