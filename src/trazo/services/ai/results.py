"""What callers hand to a provider client and what they get back."""
from dataclasses import dataclass


@dataclass(frozen=True)
class ProviderConfig:
    """One provider entry, resolved for a call (the key in plaintext, only in memory)."""

    provider: str
    api_key: str
    model: str
    base_url: str | None = None

    def __repr__(self):
        return f"ProviderConfig(provider={self.provider!r}, model={self.model!r}, base_url={self.base_url!r})"


@dataclass
class Completion:
    text: str
    truncated: bool
    finish_reason: str | None
    tokens_used: int | None = None
