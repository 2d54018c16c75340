"""Fixtures of the authorization server (docs/oauth-server.md): a browser (the Flask test client and its cookie
jar) walking the sign-in and consent pages, a registered public client, PKCE pairs, and the token endpoint."""
import itertools
import re
import secrets
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from ...helpers import PASSWORD

REDIRECT = "http://127.0.0.1:5555/callback"
RESOURCE = "http://localhost/mcp"
_addresses = itertools.count(1)
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def pkce():
    verifier = secrets.token_urlsafe(48)
    return verifier, create_s256_code_challenge(verifier)


def csrf_of(response):
    found = CSRF.search(response.get_data(as_text=True))
    assert found, response.get_data(as_text=True)[:500]
    return found.group(1)


def query_of(response):
    assert response.status_code == 302, (response.status_code, response.get_data(as_text=True)[:500])
    return {key: values[0] for key, values in parse_qs(urlsplit(response.headers["Location"]).query).items()}


@dataclass
class Browser:
    """One browser: a Flask test client (its cookie jar) from an address of its own."""

    flask: object
    address: str
    verifier: str = ""
    params: dict = field(default_factory=dict)

    def open(self, url, method="GET", **kwargs):
        return self.flask.open(url, method=method, environ_base={"REMOTE_ADDR": self.address}, **kwargs)

    def authorize_url(self, client_id, **overrides):
        self.verifier, challenge = pkce()
        self.params = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT,
                       "code_challenge": challenge, "code_challenge_method": "S256", "state": "st4te",
                       "scope": "read write", "resource": RESOURCE, **overrides}
        self.params = {key: value for key, value in self.params.items() if value is not None}
        return "/oauth2/authorize?" + urlencode(self.params)

    def sign_in(self, url, email, password=PASSWORD):
        page = self.open(url)
        assert page.status_code == 200, page.get_data(as_text=True)[:500]
        return self.open(url, "POST", data={"csrf_token": csrf_of(page), "action": "sign_in", "email": email,
                                            "password": password})

    def consent(self, url, action="allow"):
        page = self.open(url)
        assert page.status_code == 200, page.get_data(as_text=True)[:500]
        assert 'value="allow"' in page.get_data(as_text=True)
        return self.open(url, "POST", data={"csrf_token": csrf_of(page), "action": action})

    def code(self, client_id, email, **overrides):
        """Walk the pages: the code the client receives (asserting the state comes back)."""
        url = self.authorize_url(client_id, **overrides)
        signed_in = self.sign_in(url, email)
        assert signed_in.status_code == 303, signed_in.get_data(as_text=True)[:500]
        answer = query_of(self.consent(url))
        assert answer["state"] == "st4te"
        return answer["code"]

    def token(self, **form):
        return self.open("/oauth2/token", "POST", data=form)

    def exchange(self, client_id, code, verifier=None, redirect_uri=REDIRECT):
        return self.token(grant_type="authorization_code", code=code, client_id=client_id, redirect_uri=redirect_uri,
                          code_verifier=self.verifier if verifier is None else verifier)

    def refresh(self, client_id, refresh_token):
        return self.token(grant_type="refresh_token", refresh_token=refresh_token, client_id=client_id)


@pytest.fixture
def browser(app):
    def make():
        number = next(_addresses)
        return Browser(app.test_client(), f"10.77.{number // 250 % 250}.{number % 250 + 1}")

    return make


@pytest.fixture
def registered(app):
    """registered(**metadata) -> the client_id of a public client registered over HTTP (RFC 7591)."""

    def register(**metadata):
        body = {"client_name": "Test MCP client", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"], **metadata}
        response = app.test_client().post("/oauth2/register", json=body,
                                          environ_base={"REMOTE_ADDR": f"10.78.0.{next(_addresses) % 250 + 1}"})
        assert response.status_code == 201, response.get_data(as_text=True)
        return response.json["client_id"]

    return register


@pytest.fixture
def tokens(browser, registered, user):
    """A completed flow for `user`: (browser, client_id, the token response)."""
    client_id = registered()
    web = browser()
    code = web.code(client_id, user.email)
    response = web.exchange(client_id, code)
    assert response.status_code == 200, response.get_data(as_text=True)
    return web, client_id, response.json


def mcp_call(app, token, base_url="http://localhost", **headers):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "list_workspaces", "arguments": {}}}
    return app.test_client().post("/mcp", json=body, base_url=base_url, headers={
        "Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18", **headers})
