"""Google Gemini generateContent / streamGenerateContent (REST)."""
import json
from urllib.parse import quote

from .. import outbound
from .errors import classify_event
from .results import Completion

SESSION = outbound.session()
ROLES = {"user": "user", "assistant": "model"}


def request(config, base_url, system, messages, max_tokens, temperature, stream):
    model = quote(config.model.removeprefix("models/"), safe="-._~")
    generation = {"maxOutputTokens": max_tokens}
    if temperature is not None:
        generation["temperature"] = temperature
    payload = {"contents": [{"role": ROLES[turn["role"]], "parts": [{"text": turn["content"]}]}
                            for turn in messages],
               "generationConfig": generation}
    if system:
        payload["systemInstruction"] = {"parts": [{"text": system}]}
    # The key goes in a header, never in the URL (URLs end up in logs).
    headers = {"x-goog-api-key": config.api_key}
    method = "streamGenerateContent?alt=sse" if stream else "generateContent"
    return f"{base_url}/models/{model}:{method}", headers, payload


def _candidate(body):
    candidates = body.get("candidates") or [{}]
    candidate = candidates[0] if isinstance(candidates[0], dict) else {}
    parts = (candidate.get("content") or {}).get("parts") or []
    text = "".join(part.get("text") or "" for part in parts if isinstance(part, dict) and not part.get("thought"))
    return text, candidate.get("finishReason")


def completion(body):
    text, finish_reason = _candidate(body)
    tokens = (body.get("usageMetadata") or {}).get("totalTokenCount")
    return Completion(text, bool(finish_reason and finish_reason.endswith("MAX_TOKENS")), finish_reason, tokens)


def read_event(data, stream):
    event = json.loads(data)
    if isinstance(event, list):
        event = event[0] if event else {}
    if event.get("error"):
        raise classify_event(stream.config.provider, event["error"], stream.config.model)
    text, finish_reason = _candidate(event)
    if finish_reason:
        stream.finish(finish_reason, finish_reason.endswith("MAX_TOKENS"))
    return text
