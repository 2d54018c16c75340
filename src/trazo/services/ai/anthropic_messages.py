"""Anthropic messages API."""
import json

from .. import outbound
from .errors import classify_event
from .results import Completion

SESSION = outbound.session()
API_VERSION = "2023-06-01"


def request(config, base_url, system, messages, max_tokens, temperature, stream):
    payload = {"model": config.model, "max_tokens": max_tokens,
               "messages": [{"role": turn["role"], "content": turn["content"]} for turn in messages]}
    if system:
        payload["system"] = system
    if temperature is not None:
        payload["temperature"] = temperature
    if stream:
        payload["stream"] = True
    headers = {"x-api-key": config.api_key, "anthropic-version": API_VERSION}
    return f"{base_url}/messages", headers, payload


def completion(body):
    # Only text blocks count: thinking blocks are the model's scratchpad.
    text = "".join(block.get("text") or "" for block in body.get("content") or []
                   if isinstance(block, dict) and block.get("type") == "text")
    usage = body.get("usage") or {}
    tokens = (usage.get("input_tokens") or 0) + (usage.get("output_tokens") or 0) if usage else None
    stop_reason = body.get("stop_reason")
    return Completion(text, stop_reason == "max_tokens", stop_reason, tokens)


def read_event(data, stream):
    event = json.loads(data)
    kind = event.get("type")
    if kind == "content_block_delta":
        delta = event.get("delta") or {}
        return delta.get("text") or "" if delta.get("type") in ("text_delta", None) else ""
    if kind == "message_delta":
        stop_reason = (event.get("delta") or {}).get("stop_reason")
        if stop_reason:
            stream.finish(stop_reason, stop_reason == "max_tokens")
    elif kind == "message_stop":
        stream.done = True
    elif kind == "error":
        raise classify_event(stream.config.provider, event.get("error"), stream.config.model)
    return ""
