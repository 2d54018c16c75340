"""What callers hand to a provider client and what they get back."""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProviderConfig:
    """One provider entry, resolved for a call (the key in plaintext, only in memory)."""

    provider: str
    api_key: str
    model: str
    base_url: str | None = None

    def __repr__(self):
        return f"ProviderConfig(provider={self.provider!r}, model={self.model!r}, base_url={self.base_url!r})"


@dataclass(frozen=True)
class CallSettings:
    """The operator's settings a call obeys (core/ai/calls.py reads them): AI_TIMEOUT, AI_MAX_RESPONSE_BYTES,
    AI_ALLOWED_PRIVATE_HOSTS, and the endpoint of each provider type with one ({setting name: URL})."""

    timeout: float
    max_response_bytes: int
    allowed_private_hosts: tuple = ()
    base_urls: dict = field(default_factory=dict)


@dataclass
class Completion:
    text: str
    truncated: bool
    finish_reason: str | None
    tokens_used: int | None = None
