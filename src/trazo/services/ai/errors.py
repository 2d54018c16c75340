"""Provider failures as API errors: the browser client's codes, localized messages, never a 500."""
import json

from flask_babel import gettext as _

from ...errors import AppError
from .catalog import provider_label

# The HTTP status our API answers for each code. invalid_key and model_unavailable are the
# caller's configuration (400, never 401: a 401 would sign the browser client out).
STATUSES = {
    "no_credits": 402,
    "rate_limited": 429,
    "invalid_key": 400,
    "model_unavailable": 400,
    "provider_error": 502,
    "timeout": 504,
    "response_truncated": 422,
    "empty_response": 502,
}
DEFAULT_RETRY_AFTER = 30
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


class AIProviderError(AppError):
    """An AI call that failed: the localized text as `detail` and the code as `error_code`.

    With `as_object`, the detail is {"error": code, "message": text} instead: the shape the browser
    client expects for an unusable code result (response_truncated, empty_response).
    """

    def __init__(self, code, message, retry_after=None, as_object=False):
        headers = {"Retry-After": str(retry_after or DEFAULT_RETRY_AFTER)} if code == "rate_limited" else None
        if as_object:
            super().__init__({"error": code, "message": message}, STATUSES[code], headers)
        else:
            super().__init__(message, STATUSES[code], headers, error_code=code)
        self.code = code
        self.message = message


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


def classify(provider, status, body, retry_after=None, model=None):
    """Map a provider's error answer to an AIProviderError: credits, then key, then a missing model,
    then rate limits; anything else is a provider_error quoting the provider's reason."""
    text = (body or "").lower()
    label = provider_label(provider)
    if status == 402 or any(hint in text for hint in CREDIT_HINTS):
        return AIProviderError("no_credits", _(
            "Your %(provider)s account has no credits left. Add credits or use another provider.",
            provider=label))
    if status in (401, 403) or any(hint in text for hint in KEY_HINTS):
        return AIProviderError("invalid_key", _(
            "%(provider)s rejected the API key. Check the key in your AI settings.", provider=label))
    if status == 404 or ("model" in text and any(hint in text for hint in MISSING_HINTS)):
        return AIProviderError("model_unavailable", _(
            "The model %(model)s is not available at %(provider)s for this API key.",
            model=model or "?", provider=label))
    if status == 429:
        return AIProviderError("rate_limited", _(
            "%(provider)s is limiting the requests of this API key. Wait a moment and try again.",
            provider=label), retry_after=_retry_seconds(retry_after))
    reason = provider_reason(body)
    if reason:
        return AIProviderError("provider_error", _(
            "%(provider)s answered with an error (HTTP %(status)s): %(reason)s",
            provider=label, status=status, reason=reason))
    return AIProviderError("provider_error", _(
        "%(provider)s answered with an error (HTTP %(status)s).", provider=label, status=status))


def classify_event(provider, error, model=None):
    """An error reported inside a stream (`{"type": "...", "message": "..."}`)."""
    if not isinstance(error, dict):
        error = {"message": str(error)}
    status = error.get("code") if isinstance(error.get("code"), int) else None
    status = status or ERROR_TYPE_STATUSES.get(error.get("type"), 500)
    return classify(provider, status, json.dumps({"error": error}), model=model)


def timeout_error(provider):
    return AIProviderError("timeout", _("%(provider)s did not answer in time. Try again later.",
                                        provider=provider_label(provider)))


def unreachable_error(provider):
    return AIProviderError("provider_error", _("%(provider)s could not be reached. Try again later.",
                                               provider=provider_label(provider)))


def oversized_error(provider):
    return AIProviderError("provider_error", _("%(provider)s sent an answer larger than this server accepts.",
                                               provider=provider_label(provider)))


def invalid_answer_error(provider):
    return AIProviderError("provider_error", _("%(provider)s sent an answer that could not be read.",
                                               provider=provider_label(provider)))


def truncated_error(as_object=True):
    return AIProviderError("response_truncated", _(
        "The reply reached the output limit and was cut off, so nothing was applied. "
        "Ask for a smaller change or split the diagram."), as_object=as_object)


def empty_response_error(as_object=True):
    return AIProviderError("empty_response", _("The AI answered without any usable content. Try again."),
                           as_object=as_object)
