"""HTTP to the providers: one total deadline per call, a cap on what is read, the address guard for
base URLs a user chose, error translation, and reading Server-Sent Events as they arrive."""
import requests
import urllib3.exceptions

from .. import outbound
from .catalog import PROVIDER_TYPES
from .errors import AnswerTooLarge, ProviderTimeout, ProviderUnreachable, classify

MAX_ERROR_BODY = 64 * 1024
TRANSPORT_ERRORS = (requests.exceptions.RequestException, urllib3.exceptions.HTTPError, OSError)


def user_chosen(config):
    """Whether the call goes to a base URL a user typed (their own server), not an operator's setting."""
    return PROVIDER_TYPES[config.provider].base_url_setting is None


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
    """A transport failure as a ProviderError.

    A refused address and a closed port are both ProviderUnreachable: the answer must not tell a user
    which addresses inside our network exist.
    """
    if isinstance(exc, outbound.ResponseTooLarge):
        return AnswerTooLarge(provider)
    return ProviderTimeout(provider) if _is_timeout(exc) else ProviderUnreachable(provider)


def post(session, settings, config, url, headers, payload):
    """POST JSON and return the streamed call once its headers are in; a non-2xx answer is classified.

    `settings.timeout` (AI_TIMEOUT) bounds the whole call, body included; `settings.max_response_bytes`
    what is read. A model that refuses `temperature` gets the same request once more without it.
    """
    guarded = user_chosen(config)
    try:
        call = outbound.open_stream(session, "POST", url, integration="ai", seconds=settings.timeout,
                                    max_bytes=settings.max_response_bytes, public_only=guarded,
                                    allowed_private=settings.allowed_private_hosts, headers=headers,
                                    json=payload)
    except TRANSPORT_ERRORS as exc:
        raise translate(exc, config.provider) from exc
    status = call.response.status_code
    if status < 300:
        return call
    retry_after = call.response.headers.get("Retry-After")
    body = error_body(call, config.provider)
    if status == 400 and "temperature" in payload and "temperature" in body.lower():
        retry = {key: value for key, value in payload.items() if key != "temperature"}
        return post(session, settings, config, url, headers, retry)
    if guarded:
        # The user's own server: its status maps to our codes, its words are never repeated.
        body = ""
    raise classify(config.provider, status, body, retry_after, model=config.model)


def error_body(call, provider):
    """The start of an error answer as text (the call is closed afterwards)."""
    raw = b""
    try:
        for chunk in call.chunks():
            raw += chunk
            if len(raw) >= MAX_ERROR_BODY:
                break
    except TRANSPORT_ERRORS as exc:
        raise translate(exc, provider) from exc
    finally:
        call.close()
    return raw.decode("utf-8", errors="replace")


def read(call, provider):
    """The whole (capped) body of a successful answer."""
    try:
        return call.read()
    except TRANSPORT_ERRORS as exc:
        raise translate(exc, provider) from exc


def _text(line):
    return bytes(line).rstrip(b"\r").decode("utf-8", errors="replace")


def _lines(call):
    """Each line as it completes. Only the new chunk is searched for a line break, so a long line sent in
    small pieces costs linear time, not a rescan of everything pending at every piece."""
    pending = bytearray()
    for chunk in call.chunks():
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            pending += chunk[start:end]
            yield _text(pending)
            pending.clear()
            start = end + 1
        pending += chunk[start:]
    if pending:
        yield _text(pending)


def sse_data(call):
    """The `data` payload of each Server-Sent Event, multi-line data joined with newlines."""
    data = []
    for line in _lines(call):
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        yield "\n".join(data)
