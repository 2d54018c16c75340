"""Error reports to Sentry (docs/operations.md, "Request ids and logs"): on when SENTRY_DSN is set, and
nothing personal or secret in an event: no client address, request body, frame variables, credentials,
cookies, query strings, whole share tokens or files API paths (URLs are cut as the logs cut them,
`logs.loggable_url`). Every event is tagged with its request id.

sentry_sdk is imported only when a DSN is set: a worker that reports nowhere does not carry it."""
from .logs import current_request_id, loggable_url

# Request headers that never reach Sentry (credentials and share access tokens).
SECRET_HEADERS = frozenset({"authorization", "cookie", "x-share-access"})


def init_sentry(dsn, environment, traces_sample_rate, release=None):
    """Report errors to Sentry when a DSN is set: no personal data, no request bodies or frame locals,
    no credentials, query strings, share tokens or file paths (scrub_event), the request id as a tag."""
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.flask import FlaskIntegration

    sentry_sdk.init(dsn=dsn, environment=environment, release=release, traces_sample_rate=traces_sample_rate,
                    integrations=[FlaskIntegration()], send_default_pii=False, include_local_variables=False,
                    max_request_body_size="never", before_send=scrub_event, before_send_transaction=scrub_event)
    return True


def scrub_event(event, _hint=None):
    """Drop what must not leave the service (URLs as `logs.loggable_url`); tag the event with the request id."""
    request = event.get("request")
    if isinstance(request, dict):
        for key in ("query_string", "cookies", "data"):
            request.pop(key, None)
        if isinstance(request.get("url"), str):
            request["url"] = loggable_url(request["url"])
        headers = request.get("headers")
        if isinstance(headers, dict):
            request["headers"] = {name: value for name, value in headers.items()
                                  if name.lower() not in SECRET_HEADERS}
    breadcrumbs = event.get("breadcrumbs")
    for crumb in breadcrumbs.get("values", []) if isinstance(breadcrumbs, dict) else []:
        data = crumb.get("data")
        if isinstance(data, dict):
            data.pop("http.query", None)
            data.pop("http.fragment", None)
            if isinstance(data.get("url"), str):
                data["url"] = loggable_url(data["url"])
    extra = event.get("extra")
    if isinstance(extra, dict):
        extra.pop("sys.argv", None)  # the command line may hold anything
    request_id = current_request_id()
    if request_id:
        event.setdefault("tags", {})["request_id"] = request_id
    return event
