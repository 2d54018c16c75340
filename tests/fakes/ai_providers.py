"""Fake AI providers: real HTTP servers on 127.0.0.1 speaking the three wire protocols.

    fake = FakeProvider("openai")           # or "anthropic", "gemini"
    fake.reply(text="flowchart TD\\n  A-->B")  # queue replies; each request takes the next one
    fake.reply(status=429, error="slow down", headers={"Retry-After": "7"})
    fake.reply(text="...", chunks=["a", "b"], chunk_delay=0.05, truncated=True)
    fake.requests[-1]["json"]               # what our client sent

Streaming replies use chunked transfer encoding and Server-Sent Events exactly as the providers
do. When the queue is empty the default reply ("OK") answers. The fixtures `provider_servers` (the three
servers, for the session) and `fake_providers` (emptied, every provider base URL pointed at them) are in
tests/conftest.py; `add_provider` (tests/helpers.py) configures a provider over HTTP.
"""
import json
import threading
import time
from dataclasses import dataclass, field

from .base import LocalHttpServer, QuietHandler

PROTOCOLS = ("openai", "anthropic", "gemini")
ANTHROPIC_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                         404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}
GEMINI_STATUSES = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                   429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}


@dataclass
class Reply:
    """One answer: text (streamed as `chunks` when the client asks to stream) or an HTTP error."""

    text: str = "OK"
    status: int = 200
    error: str | dict | None = None     # error message (or a whole JSON error body) when status != 200
    truncated: bool = False
    chunks: list | None = None          # streamed deltas; default: the text in pieces of 8 characters
    delay: float = 0                    # seconds before the answer starts
    chunk_delay: float = 0              # seconds between streamed chunks
    stall_after: int | None = None      # after this many stream events, stay silent for `delay` seconds
    stream_error: dict | None = None    # an error event sent after the chunks (the status stays 200)
    headers: dict = field(default_factory=dict)
    raw: str | None = None              # a verbatim body (for malformed answers)

    def pieces(self):
        if self.chunks is not None:
            return list(self.chunks)
        return [self.text[i:i + 8] for i in range(0, len(self.text), 8)] or [""]


class FakeProvider(LocalHttpServer):
    """A provider server; `url` is the base URL to put in the settings (e.g. OPENAI_BASE_URL)."""

    def __init__(self, protocol):
        assert protocol in PROTOCOLS
        self.protocol = protocol
        self.lock = threading.Lock()
        self.queue = []
        self.requests = []
        self.default = Reply()
        self.disconnected = threading.Event()
        super().__init__(_Handler)
        self.httpd.fake = self

    @property
    def url(self):
        prefix = "/v1beta" if self.protocol == "gemini" else "/v1"
        return f"{self.origin}{prefix}"

    def reset(self):
        with self.lock:
            self.queue.clear()
            self.requests.clear()
            self.default = Reply()
        self.disconnected.clear()

    def reply(self, **fields):
        """Queue the answer to the next request."""
        with self.lock:
            self.queue.append(Reply(**fields))

    def _next(self, record):
        with self.lock:
            self.requests.append(record)
            return self.queue.pop(0) if self.queue else self.default

    @property
    def last(self):
        return self.requests[-1]


class _Handler(QuietHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self._answer(None)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        self._answer(body)

    def _answer(self, body):
        fake = self.server.fake
        streaming = ("streamGenerateContent" in self.path if fake.protocol == "gemini"
                     else isinstance(body, dict) and body.get("stream") is True)
        reply = fake._next({"method": self.command, "path": self.path, "headers": dict(self.headers),
                            "json": body, "stream": streaming})
        if reply.delay and reply.stall_after is None:
            time.sleep(reply.delay)
        try:
            if reply.raw is not None:
                self._send(reply.status, reply.raw.encode(), reply.headers)
            elif reply.status != 200:
                self._send(reply.status, json.dumps(_error_body(fake.protocol, reply)).encode(), reply.headers)
            elif streaming:
                self._stream(fake, reply, body)
            else:
                self._send(200, json.dumps(_completion(fake.protocol, reply, body)).encode(), reply.headers)
        except (BrokenPipeError, ConnectionResetError):
            fake.disconnected.set()

    def _send(self, status, payload, headers):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _chunk(self, text):
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _stream(self, fake, reply, body):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        events = _stream_events(fake.protocol, reply, body)
        for number, event in enumerate(events):
            if number == reply.stall_after:
                time.sleep(reply.delay)
                self.close_connection = True
                return
            self._chunk(event)
            if reply.chunk_delay:
                time.sleep(reply.chunk_delay)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _model(body):
    return body.get("model", "fake-model") if isinstance(body, dict) else "fake-model"


def _error_body(protocol, reply):
    if isinstance(reply.error, dict):
        return reply.error
    message = reply.error or f"fake error {reply.status}"
    if protocol == "anthropic":
        return {"type": "error", "error": {"type": ANTHROPIC_ERROR_TYPES.get(reply.status, "api_error"),
                                           "message": message}}
    if protocol == "gemini":
        return {"error": {"code": reply.status, "message": message,
                          "status": GEMINI_STATUSES.get(reply.status, "UNKNOWN")}}
    return {"error": {"message": message, "type": "fake_error", "code": None}}


def _completion(protocol, reply, body):
    if protocol == "anthropic":
        return {"id": "msg_fake", "type": "message", "role": "assistant", "model": _model(body),
                "content": [{"type": "thinking", "thinking": "hidden"}, {"type": "text", "text": reply.text}],
                "stop_reason": "max_tokens" if reply.truncated else "end_turn",
                "usage": {"input_tokens": 11, "output_tokens": 7}}
    if protocol == "gemini":
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": reply.text}]},
                                "finishReason": "MAX_TOKENS" if reply.truncated else "STOP"}],
                "usageMetadata": {"totalTokenCount": 18}}
    return {"id": "chatcmpl-fake", "object": "chat.completion", "model": _model(body),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                         "finish_reason": "length" if reply.truncated else "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}


def _sse(data, event=None):
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def _stream_events(protocol, reply, body):
    pieces = reply.pieces()
    if protocol == "anthropic":
        events = [_sse({"type": "message_start", "message": {"id": "msg_fake", "model": _model(body)}},
                       "message_start"),
                  _sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                       "content_block_start"),
                  ": ping\n\n"]
        events += [_sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}},
                        "content_block_delta") for piece in pieces]
        if reply.stream_error:
            return events + [_sse({"type": "error", "error": reply.stream_error}, "error")]
        stop = "max_tokens" if reply.truncated else "end_turn"
        return events + [_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
                         _sse({"type": "message_delta", "delta": {"stop_reason": stop}}, "message_delta"),
                         _sse({"type": "message_stop"}, "message_stop")]
    if protocol == "gemini":
        events = [_sse({"candidates": [{"content": {"role": "model", "parts": [{"text": piece}]}}]})
                  for piece in pieces]
        if reply.stream_error:
            return events + [_sse({"error": reply.stream_error})]
        finish = "MAX_TOKENS" if reply.truncated else "STOP"
        return events + [_sse({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
                                               "finishReason": finish}]})]
    events = [_sse({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
              for piece in pieces]
    if reply.stream_error:
        return events + [_sse({"error": reply.stream_error})]
    finish = "length" if reply.truncated else "stop"
    return events + [_sse({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}), "data: [DONE]\n\n"]


# -- the servers of every protocol, and the settings that point at them -------------------------

ENDPOINT_SETTINGS = {"OPENAI_BASE_URL": ("openai", "/openai"), "DEEPSEEK_BASE_URL": ("openai", "/deepseek"),
                     "MINIMAX_BASE_URL": ("openai", "/minimax"), "ANTHROPIC_BASE_URL": ("anthropic", ""),
                     "GEMINI_BASE_URL": ("gemini", "")}


@dataclass
class FakeProviders:
    openai: FakeProvider
    anthropic: FakeProvider
    gemini: FakeProvider

    def for_provider(self, provider):
        """The fake server a provider type talks to."""
        return {"claude": self.anthropic, "gemini": self.gemini}.get(provider, self.openai)

    def reset(self):
        """Forget queued replies and recorded requests on every server."""
        for server in (self.openai, self.anthropic, self.gemini):
            server.reset()
