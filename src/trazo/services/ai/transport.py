"""HTTP to the providers: timeouts, error translation and reading Server-Sent Events as they arrive."""
import socket

import requests
import urllib3.exceptions
from flask import current_app

from .errors import classify, timeout_error, unreachable_error

CONNECT_TIMEOUT = 10
READ_SIZE = 8192
MAX_ERROR_BODY = 64 * 1024


def timeouts():
    """(connect, read): the read timeout also bounds the silence between two streamed chunks."""
    return CONNECT_TIMEOUT, current_app.config["AI_TIMEOUT"]


def _is_timeout(exc):
    timeout_types = (requests.exceptions.Timeout, urllib3.exceptions.TimeoutError, TimeoutError)
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, urllib3.exceptions.NewConnectionError):
            return False  # a refused connection; urllib3 files it under timeouts for history's sake
        if isinstance(exc, timeout_types):
            return True
        nested = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None
        exc = nested or exc.__cause__ or exc.__context__
    return False


def translate(exc, provider):
    """A transport failure (requests or urllib3) as the AIProviderError the API answers."""
    return timeout_error(provider) if _is_timeout(exc) else unreachable_error(provider)


TRANSPORT_ERRORS = (requests.exceptions.RequestException, urllib3.exceptions.HTTPError, OSError)


def post(session, config, url, headers, payload, stream=False):
    """POST JSON; a non-2xx answer is read (bounded) and classified.

    A model that refuses `temperature` gets the same request once more without it.
    """
    try:
        response = session.post(url, headers=headers, json=payload, timeout=timeouts(), stream=stream)
    except TRANSPORT_ERRORS as exc:
        raise translate(exc, config.provider) from exc
    if response.status_code < 300:
        return response
    body = error_body(response, config.provider)
    if response.status_code == 400 and "temperature" in payload and "temperature" in body.lower():
        retry = {key: value for key, value in payload.items() if key != "temperature"}
        return post(session, config, url, headers, retry, stream)
    raise classify(config.provider, response.status_code, body, response.headers.get("Retry-After"),
                   model=config.model)


def error_body(response, provider):
    """The start of an error answer as text (the connection is closed afterwards)."""
    try:
        raw = b""
        for chunk in response.iter_content(chunk_size=READ_SIZE):
            raw += chunk
            if len(raw) >= MAX_ERROR_BODY:
                break
        return raw.decode("utf-8", errors="replace")
    except TRANSPORT_ERRORS as exc:
        raise translate(exc, provider) from exc
    finally:
        response.close()


def shut_down(response):
    """Shut the socket of a streamed answer down, which wakes a read blocked in another thread."""
    sock = getattr(getattr(response.raw, "connection", None), "sock", None)
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed by the other side


def _chunks(response):
    if response.raw.chunked:
        yield from response.iter_content(chunk_size=None)
        return
    # Without chunked encoding read() would wait for a full buffer; read1 hands over what arrived.
    while chunk := response.raw.read1(READ_SIZE):
        yield chunk


def _lines(response):
    pending = b""
    for chunk in _chunks(response):
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line.rstrip(b"\r").decode("utf-8", errors="replace")
    if pending:
        yield pending.rstrip(b"\r").decode("utf-8", errors="replace")


def sse_data(response):
    """The `data` payload of each Server-Sent Event, multi-line data joined with newlines."""
    data = []
    for line in _lines(response):
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        yield "\n".join(data)
