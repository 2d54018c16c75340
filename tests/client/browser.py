"""The browser client, replayed: what the single-page app's `api.ts` and its SSE consumer send and read.

Two axios instances: `api` (the stored bearer token and `Accept-Language` on every call) and
`publicApi` (`Accept-Language` only). JSON bodies go as `application/json`; a call the client makes
without a body sends no body at all. The chat stream is a `fetch` POST whose language travels in the
JSON body, parsed line by line (`data: <json>`), dispatched on `type`.
"""
import json
from dataclasses import dataclass

from ..helpers import ApiClient


@dataclass
class Browser:
    """One browser tab: an address, the UI language and the token kept in local storage."""

    web: ApiClient
    language: str = "en"
    token: str | None = None
    user: dict | None = None

    def api(self, method, path, **kwargs):
        """The authenticated axios instance."""
        return self.web.request(method, path, token=self.token, lang=self.language, **kwargs)

    def public(self, method, path, **kwargs):
        """The public axios instance (shared links, render, MFA second step, OAuth)."""
        return self.web.request(method, path, token=None, lang=self.language, **kwargs)

    def stream(self, path, body, headers=None):
        """The SSE consumer's fetch: bearer token and JSON body (the language travels in the body)."""
        return self.web.request("POST", path, token=self.token, json=body, headers=headers)

    def sign_in(self, email, password):
        """What AuthContext does after a login without MFA: keep the token, then load the user."""
        response = self.api("POST", "/users/login", json={"email": email, "password": password})
        assert response.status_code == 200, response.get_json()
        body = reads(response.get_json(), "access_token", "token_type", "mfa_enabled")
        assert body["token_type"] == "bearer" and body["mfa_enabled"] is False and body.get("mfa_required") is not True
        self.token = body["access_token"]
        return self.api("GET", "/users/me").get_json()


def reads(body, *paths):
    """Assert every field the client reads is there (`a.b` reaches into objects); return the body."""
    assert isinstance(body, dict), body
    for path in paths:
        value = body
        for part in path.split("."):
            assert isinstance(value, dict) and part in value, (path, body)
            value = value[part]
    return body


def shown_detail(response, status):
    """The client renders `detail` as text: assert the status and that it is a string."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:500])
    detail = response.get_json()["detail"]
    assert isinstance(detail, str) and detail, detail
    return detail


def sse_events(response):
    """The SSE consumer: only `data: ` lines, JSON-parsed, in order (comments and blank lines skipped)."""
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.mimetype == "text/event-stream"
    events = []
    for line in response.get_data(as_text=True).split("\n"):
        if line.startswith("data: "):
            events.append(json.loads(line[len("data: "):]))
    return events
