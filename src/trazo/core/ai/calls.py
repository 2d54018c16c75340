"""Calling an AI provider as the app does: the operator's settings read here and passed to the client
(services/ai/client.py), every failure answered as the API's AIProviderError (core/ai/failures.py).

    complete(config, system, messages) -> Completion
    stream(config, system, messages) -> Stream   (iterate for deltas; close() stops the call)
    probe(config)
"""
from flask import current_app

from ...services.ai import client
from ...services.ai.catalog import PROVIDER_TYPES
from ...services.ai.results import CallSettings, Completion, ProviderConfig
from .failures import AIProviderError, provider_failures

__all__ = ["AIProviderError", "Completion", "ProviderConfig", "Stream", "call_settings", "complete", "probe",
           "stream"]


def call_settings():
    """The settings every provider call obeys (docs/security.md: AI_TIMEOUT, the size cap, the address guard)."""
    config = current_app.config
    base_urls = {spec.base_url_setting: config[spec.base_url_setting] for spec in PROVIDER_TYPES.values()
                 if spec.base_url_setting}
    return CallSettings(timeout=config["AI_TIMEOUT"], max_response_bytes=config["AI_MAX_RESPONSE_BYTES"],
                        allowed_private_hosts=config["AI_ALLOWED_PRIVATE_HOSTS"], base_urls=base_urls)


def complete(config, system, messages, *, max_tokens=4096, temperature=None):
    """One whole reply. Truncation is reported in the result, not raised."""
    with provider_failures():
        return client.complete(call_settings(), config, system, messages, max_tokens=max_tokens,
                               temperature=temperature)


def probe(config):
    """The smallest real call, proving the key and the model; raises AIProviderError."""
    with provider_failures():
        client.probe(call_settings(), config)


def stream(config, system, messages, *, max_tokens=4096, temperature=None):
    """Start a streamed reply; the request is sent (and its HTTP errors raised) before this returns."""
    with provider_failures():
        return Stream(client.stream(call_settings(), config, system, messages, max_tokens=max_tokens,
                                    temperature=temperature))


class Stream:
    """A client TextStream whose failures while reading are the API's AIProviderError."""

    def __init__(self, upstream):
        self._upstream = upstream

    @property
    def truncated(self):
        return self._upstream.truncated

    @property
    def finish_reason(self):
        return self._upstream.finish_reason

    def __iter__(self):
        return self

    def __next__(self):
        with provider_failures():
            return next(self._upstream)

    def close(self):
        """Stop reading and close the upstream connection (may be called from another thread)."""
        self._upstream.close()

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()
