"""Language negotiation: a route's body `language` when the route takes one, else the best of
`en`/`es` from Accept-Language with q-values honoured."""
from flask import current_app, has_request_context, request
from werkzeug.exceptions import RequestEntityTooLarge

from .strict_json import loads

BODY_LANGUAGE = "language_from_body"


def language_from_body(view):
    """Mark a view whose JSON body may name the language (`en`, `es`, `es-MX`…): that language then
    words every message of the request, errors included, before Accept-Language is consulted.
    Apply it right under the route decorator."""
    setattr(view, BODY_LANGUAGE, True)
    return view


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


def body_language(supported):
    """The supported language named by the JSON body of a marked route, or None."""
    view = current_app.view_functions.get(request.endpoint) if request.endpoint else None
    if not getattr(view, BODY_LANGUAGE, False) or not request.is_json:
        return None
    try:
        body = loads(request.get_data(cache=True))
    except (ValueError, RequestEntityTooLarge):
        return None  # a body refused (as JSON, or for its size) names no language: Accept-Language words it
    value = body.get("language") if isinstance(body, dict) else None
    if not isinstance(value, str):
        return None
    primary = value.strip().lower().replace("_", "-").split("-")[0]
    return primary if primary in supported else None


def select_locale():
    config = current_app.config
    if not has_request_context():
        return config["DEFAULT_LANGUAGE"]
    return (body_language(config["LANGUAGES"])
            or negotiate(request.accept_languages, config["LANGUAGES"], config["DEFAULT_LANGUAGE"]))
