"""A provider's failures (services/ai/errors.py) as the API answers them: the browser client's codes,
their HTTP statuses and localized texts, never a 500 (docs/errors.md)."""
from contextlib import contextmanager

from flask_babel import gettext as _

from ...errors import AppError
from ...services.ai import errors as failures
from ...services.ai.catalog import provider_label

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


def _message(exc, label):
    """The localized text of a provider failure."""
    texts = {
        failures.NoCredits: lambda: _(
            "Your %(provider)s account has no credits left. Add credits or use another provider.", provider=label),
        failures.InvalidKey: lambda: _(
            "%(provider)s rejected the API key. Check the key in your AI settings.", provider=label),
        failures.ModelUnavailable: lambda: _(
            "The model %(model)s is not available at %(provider)s for this API key.",
            model=exc.model or "?", provider=label),
        failures.RateLimited: lambda: _(
            "%(provider)s is limiting the requests of this API key. Wait a moment and try again.", provider=label),
        failures.ProviderTimeout: lambda: _("%(provider)s did not answer in time. Try again later.", provider=label),
        failures.ProviderUnreachable: lambda: _("%(provider)s could not be reached. Try again later.",
                                                provider=label),
        failures.AnswerTooLarge: lambda: _("%(provider)s sent an answer larger than this server accepts.",
                                           provider=label),
        failures.UnreadableAnswer: lambda: _("%(provider)s sent an answer that could not be read.", provider=label),
    }
    text = texts.get(type(exc))
    if text is not None:
        return text()
    if exc.reason:
        return _("%(provider)s answered with an error (HTTP %(status)s): %(reason)s",
                 provider=label, status=exc.status, reason=exc.reason)
    return _("%(provider)s answered with an error (HTTP %(status)s).", provider=label, status=exc.status)


def provider_error(exc):
    """The AIProviderError the API answers for a ProviderError."""
    return AIProviderError(exc.code, _message(exc, provider_label(exc.provider)), retry_after=exc.retry_after)


@contextmanager
def provider_failures():
    """A provider's failures, raised inside, as the API's AIProviderError."""
    try:
        yield
    except failures.ProviderError as exc:
        raise provider_error(exc) from exc


def truncated_error(as_object=True):
    return AIProviderError("response_truncated", _(
        "The reply reached the output limit and was cut off, so nothing was applied. "
        "Ask for a smaller change or split the diagram."), as_object=as_object)


def empty_response_error(as_object=True):
    return AIProviderError("empty_response", _("The AI answered without any usable content. Try again."),
                           as_object=as_object)
