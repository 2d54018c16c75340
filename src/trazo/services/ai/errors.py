"""How a provider call fails, in neutral terms: one exception per code of the browser client, with the
provider's own status and reason. core/ai/failures.py answers each with the API's status and localized
text (the adapter contract: services/__init__.py)."""
import json

MAX_REASON_CHARS = 300

# Words in the providers' error bodies, by what they mean (checked in this order).
CREDIT_HINTS = ("insufficient_quota", "credit_balance", "credit balance", "insufficient balance",
                "insufficient_balance", "billing", "payment required")
KEY_HINTS = ("invalid_api_key", "invalid api key", "incorrect api key", "authentication",
             "api key not valid", "invalid x-api-key", "api_key_invalid", "authorized_error", "login fail")
# Said of a model: DeepSeek answers "Model Not Exist", OpenAI "does not exist", Gemini "is not found".
MISSING_HINTS = ("not found", "not_found", "not exist", "no such model", "unknown model")
# Anthropic reports some failures inside a 200 stream, by error type only.
ERROR_TYPE_STATUSES = {"authentication_error": 401, "permission_error": 403, "not_found_error": 404,
                       "rate_limit_error": 429, "overloaded_error": 529, "api_error": 500,
                       "invalid_request_error": 400}


class ProviderError(Exception):
    """A provider call that failed. `code` is the browser client's code; `status` the provider's HTTP
    status (None when it never answered), `reason` its own explanation (empty when it may not be
    repeated), `retry_after` the seconds it asked to wait (rate limits)."""

    code = "provider_error"

    def __init__(self, provider, status=None, reason="", model=None, retry_after=None):
        super().__init__(f"{provider}: {self.code} (HTTP {status})")
        self.provider = provider
        self.status = status
        self.reason = reason
        self.model = model
        self.retry_after = retry_after


class NoCredits(ProviderError):
    code = "no_credits"


class InvalidKey(ProviderError):
    code = "invalid_key"


class ModelUnavailable(ProviderError):
    code = "model_unavailable"


class RateLimited(ProviderError):
    code = "rate_limited"


class ProviderTimeout(ProviderError):
    """No answer (or no end of the answer) within the call's deadline."""

    code = "timeout"


class ProviderUnreachable(ProviderError):
    """The provider could not be reached (refused, closed, or an address the guard refuses)."""


class AnswerTooLarge(ProviderError):
    """The answer passed the most this server reads."""


class UnreadableAnswer(ProviderError):
    """A successful answer that is not what the protocol says."""


def provider_reason(body):
    """The provider's own explanation from an error body (JSON or text), cut to a sane length."""
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        parsed = None
    reason = body or ""
    if isinstance(parsed, list) and parsed:
        parsed = parsed[0]
    if isinstance(parsed, dict):
        error = parsed.get("error", parsed)
        if isinstance(error, dict):
            reason = error.get("message") or reason
        elif isinstance(error, str):
            reason = parsed.get("message") or error
    return " ".join(str(reason).split())[:MAX_REASON_CHARS]


def _retry_seconds(value):
    try:
        return max(1, int(float(value)))
    except (TypeError, ValueError):
        return None


def _kind(status, text):
    if status == 402 or any(hint in text for hint in CREDIT_HINTS):
        return NoCredits
    if status in (401, 403) or any(hint in text for hint in KEY_HINTS):
        return InvalidKey
    if status == 404 or ("model" in text and any(hint in text for hint in MISSING_HINTS)):
        return ModelUnavailable
    if status == 429:
        return RateLimited
    return ProviderError


def classify(provider, status, body, retry_after=None, model=None):
    """A provider's error answer as a ProviderError: credits, then key, then a missing model, then rate
    limits; anything else is a plain ProviderError carrying the provider's reason."""
    kind = _kind(status, (body or "").lower())
    return kind(provider, status, provider_reason(body), model=model,
                retry_after=_retry_seconds(retry_after) if kind is RateLimited else None)


def classify_event(provider, error, model=None):
    """An error reported inside a stream (`{"type": "...", "message": "..."}`)."""
    if not isinstance(error, dict):
        error = {"message": str(error)}
    status = error.get("code") if isinstance(error.get("code"), int) else None
    status = status or ERROR_TYPE_STATUSES.get(error.get("type"), 500)
    return classify(provider, status, json.dumps({"error": error}), model=model)
