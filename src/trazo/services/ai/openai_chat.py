"""OpenAI chat completions (OpenAI, DeepSeek, MiniMax, Ollama and OpenAI-compatible servers)."""
import json

from .. import outbound
from .errors import classify_event
from .results import Completion

SESSION = outbound.session()


def request(config, base_url, system, messages, max_tokens, temperature, stream):
    turns = [{"role": "system", "content": system}] if system else []
    turns += [{"role": turn["role"], "content": turn["content"]} for turn in messages]
    payload = {"model": config.model, "messages": turns}
    # OpenAI's own API only takes the newer name; compatible servers know the older one.
    payload["max_completion_tokens" if config.provider == "openai" else "max_tokens"] = max_tokens
    if temperature is not None:
        payload["temperature"] = temperature
    if stream:
        payload["stream"] = True
    headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
    return f"{base_url}/chat/completions", headers, payload


def _text(content):
    if isinstance(content, list):
        return "".join(part.get("text") or "" for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def completion(body):
    choice = (body.get("choices") or [{}])[0]
    finish_reason = choice.get("finish_reason")
    usage = body.get("usage") or {}
    return Completion(_text((choice.get("message") or {}).get("content")), finish_reason == "length",
                      finish_reason, usage.get("total_tokens"))


def read_event(data, stream):
    """Text of one streamed chunk; records the finish reason and the end marker."""
    if data.strip() == "[DONE]":
        stream.done = True
        return ""
    event = json.loads(data)
    if event.get("error"):
        raise classify_event(stream.config.provider, event["error"], stream.config.model)
    text = []
    for choice in event.get("choices") or []:
        text.append(_text((choice.get("delta") or {}).get("content")))
        if choice.get("finish_reason"):
            stream.finish(choice["finish_reason"], choice["finish_reason"] == "length")
    return "".join(text)
