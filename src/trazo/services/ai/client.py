"""Calling a provider: one completion, or a stream of text deltas, over its wire protocol.

    complete(settings, config, system, messages) -> Completion
    stream(settings, config, system, messages) -> TextStream   (iterate for deltas; close() stops the call)

`settings` is the operator's CallSettings, `config` the user's ProviderConfig; `messages` is a list of
{"role": "user" | "assistant", "content": str}; `system` may be None. Failures raise a ProviderError
(errors.py); core/ai/calls.py is how the app calls, with the API's answer to each failure.
"""
import json
import threading

from . import anthropic_messages, gemini_content, openai_chat, transport
from .catalog import ANTHROPIC_MESSAGES, GEMINI_CONTENT, OPENAI_CHAT, PROVIDER_TYPES
from .errors import ProviderError, UnreadableAnswer
from .results import CallSettings, Completion, ProviderConfig

__all__ = ["CallSettings", "Completion", "ProviderConfig", "ProviderError", "TextStream", "complete", "probe",
           "stream"]

PROTOCOLS = {OPENAI_CHAT: openai_chat, ANTHROPIC_MESSAGES: anthropic_messages, GEMINI_CONTENT: gemini_content}
PROBE_SYSTEM = "Reply with exactly: OK"
PROBE_MAX_TOKENS = 64


def _protocol(config):
    return PROTOCOLS[PROVIDER_TYPES[config.provider].protocol]


def _base_url(settings, config):
    setting = PROVIDER_TYPES[config.provider].base_url_setting
    base_url = config.base_url or (settings.base_urls.get(setting) or "" if setting else "")
    return base_url.rstrip("/")


def _send(settings, config, system, messages, max_tokens, temperature, stream_reply):
    protocol = _protocol(config)
    url, headers, payload = protocol.request(config, _base_url(settings, config), system, messages, max_tokens,
                                             temperature, stream_reply)
    return protocol, transport.post(protocol.SESSION, settings, config, url, headers, payload)


def complete(settings, config, system, messages, *, max_tokens=4096, temperature=None):
    """One whole reply. Truncation is reported in the result, not raised."""
    protocol, call = _send(settings, config, system, messages, max_tokens, temperature, False)
    raw = transport.read(call, config.provider)
    try:
        body = json.loads(raw)
        if not isinstance(body, dict):
            raise ValueError("not an object")
        return protocol.completion(body)
    except (ValueError, TypeError, AttributeError, IndexError) as exc:
        raise UnreadableAnswer(config.provider) from exc


def stream(settings, config, system, messages, *, max_tokens=4096, temperature=None):
    """Start a streamed reply; the request is sent (and its HTTP errors raised) before this returns."""
    protocol, call = _send(settings, config, system, messages, max_tokens, temperature, True)
    return TextStream(config, protocol, call)


def probe(settings, config):
    """Make the smallest real call, proving the key and the model; raises a ProviderError."""
    complete(settings, config, PROBE_SYSTEM, [{"role": "user", "content": "OK"}], max_tokens=PROBE_MAX_TOKENS)


class TextStream:
    """Raw text deltas as the provider sends them; `truncated` is valid once exhausted.

    `close()` may be called from another thread than the one iterating: it then shuts the
    socket down, the blocked read returns and the iteration ends quietly.
    """

    def __init__(self, config, protocol, call):
        self.config = config
        self.truncated = False
        self.finish_reason = None
        self.done = False
        self._protocol = protocol
        self._call = call
        self._closed = False
        self._reading = threading.Lock()
        self._deltas = self._read()

    def finish(self, reason, truncated):
        self.finish_reason = reason
        self.truncated = self.truncated or truncated

    def _read(self):
        try:
            for data in transport.sse_data(self._call):
                try:
                    delta = self._protocol.read_event(data, self)
                except json.JSONDecodeError:
                    continue  # a stray non-JSON line is not worth failing the whole reply
                except (ValueError, TypeError, AttributeError) as exc:
                    raise UnreadableAnswer(self.config.provider) from exc
                if delta:
                    yield delta
                if self.done:
                    return
        except transport.TRANSPORT_ERRORS as exc:
            if self._closed:
                return
            raise transport.translate(exc, self.config.provider) from exc
        finally:
            self._call.close()

    def __iter__(self):
        return self

    def __next__(self):
        with self._reading:
            return next(self._deltas)

    def close(self):
        """Stop reading and close the upstream connection (the provider stops generating)."""
        self._closed = True
        if self._reading.acquire(blocking=False):
            try:
                self._deltas.close()
                self._call.close()
            finally:
                self._reading.release()
        else:
            self._call.interrupt()

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()
