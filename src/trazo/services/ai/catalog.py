"""Provider types: their wire protocol, display name, endpoint setting and recommended model."""
from dataclasses import dataclass

OPENAI_CHAT = "openai_chat"
ANTHROPIC_MESSAGES = "anthropic_messages"
GEMINI_CONTENT = "gemini_content"


@dataclass(frozen=True)
class ProviderType:
    name: str
    label: str
    protocol: str
    base_url_setting: str | None  # None: the user gives the base URL (self-hosted servers)
    recommended_model: str | None
    key_required: bool = True


PROVIDER_TYPES = {
    spec.name: spec for spec in (
        ProviderType("openai", "OpenAI", OPENAI_CHAT, "OPENAI_BASE_URL", "gpt-6-luna"),
        ProviderType("claude", "Anthropic Claude", ANTHROPIC_MESSAGES, "ANTHROPIC_BASE_URL", "claude-sonnet-5-5"),
        ProviderType("gemini", "Google Gemini", GEMINI_CONTENT, "GEMINI_BASE_URL", "gemini-3.8-flash"),
        ProviderType("deepseek", "DeepSeek", OPENAI_CHAT, "DEEPSEEK_BASE_URL", "deepseek-flash"),
        ProviderType("minimax", "MiniMax", OPENAI_CHAT, "MINIMAX_BASE_URL", "MiniMax-M2.7"),
        ProviderType("ollama", "Ollama", OPENAI_CHAT, None, None, key_required=False),
        ProviderType("openai_compatible", "OpenAI-compatible server", OPENAI_CHAT, None, None,
                     key_required=False),
    )
}
PROVIDER_NAMES = tuple(PROVIDER_TYPES)


def provider_label(name):
    spec = PROVIDER_TYPES.get(name)
    return spec.label if spec else str(name)
