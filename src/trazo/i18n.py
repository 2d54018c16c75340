"""Language negotiation: best of `en`/`es` from Accept-Language with q-values honoured (API.md §3)."""
from flask import current_app, has_request_context, request


def negotiate(accept_languages, supported, default):
    """First supported primary tag in quality order (`es-ES,en;q=0.1` -> `es`)."""
    for value, quality in sorted(accept_languages, key=lambda item: -item[1]):
        if quality <= 0:
            continue
        if value == "*":
            return default
        primary = value.split("-")[0].split("_")[0].lower()
        if primary in supported:
            return primary
    return default


def select_locale():
    config = current_app.config
    if not has_request_context():
        return config["DEFAULT_LANGUAGE"]
    return negotiate(request.accept_languages, config["LANGUAGES"], config["DEFAULT_LANGUAGE"])
