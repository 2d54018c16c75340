"""The whole flow in a real browser (Chromium at /usr/bin/chromium driven by Playwright, no browser download):
sign in, allow, the redirect with the code to the client's loopback callback, the token, a tool call; and the pages
refusing to be framed. Skipped when Playwright or Chromium is not there."""
import os
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from ...fakes.base import FakeService, Reply
from ...flows import enable_totp, totp_code
from ...helpers import PASSWORD

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("TRAZO_TEST_CHROMIUM", "/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"no Chromium at {CHROMIUM}")


@pytest.fixture(scope="module")
def callback():
    service = FakeService().start()
    service.route("GET", "/callback", lambda _request: Reply(200, b"<p>You may close this window.</p>",
                                                              {"Content-Type": "text/html"}))
    yield service
    service.stop()


@pytest.fixture(scope="module")
def chromium():
    with sync_api.sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        except Exception as failure:  # a Chromium that does not start here is an environment without one
            pytest.skip(f"Chromium does not start: {failure}")
        yield browser
        browser.close()


def _register(served_app, redirect_uri):
    response = requests.post(f"{served_app}/oauth2/register", json={"client_name": "Browser client",
                                                                 "redirect_uris": [redirect_uri]}, timeout=30)
    assert response.status_code == 201, response.text
    return response.json()["client_id"]


def _authorize_url(served_app, client_id, redirect_uri, verifier):
    return f"{served_app}/oauth2/authorize?" + urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "state": "browser-state",
        "code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256",
        "scope": "read write", "resource": f"{served_app}/mcp"})


def _discover(served_app):
    """What a client reads before anything: the resource's metadata from /mcp's 401, then its server's."""
    refused = requests.post(f"{served_app}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)
    assert refused.status_code == 401
    resource_url = refused.headers["WWW-Authenticate"].split('resource_metadata="')[1].split('"')[0]
    resource = requests.get(resource_url, timeout=30).json()
    issuer = resource["authorization_servers"][0]
    server = requests.get(f"{issuer}/.well-known/oauth-authorization-server", timeout=30).json()
    assert server["code_challenge_methods_supported"] == ["S256"]
    return resource["resource"], server


def _tool_call(resource, access_token):
    return requests.post(resource, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                         "params": {"name": "list_workspaces", "arguments": {}}},
                         headers={"Authorization": f"Bearer {access_token}", "MCP-Protocol-Version": "2025-06-18",
                                  "Accept": "application/json, text/event-stream"}, timeout=30)


def _sign_in_and_allow(page, url, user, secret):
    page.goto(url)
    assert "Iniciar sesión" in page.content()
    page.fill("#email", user.email)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    if secret is not None:  # the second step of an account with an authenticator app
        page.wait_for_selector("#code")
        page.fill("#code", totp_code(secret, 1))
        page.click("button[type=submit]")
    page.wait_for_selector("button[value=allow]")
    assert "Browser client" in page.content() and "127.0.0.1" in page.content()
    page.click("button[value=allow]")


@pytest.mark.parametrize("mfa", [False, True], ids=["password", "password-and-totp"])
def test_the_whole_flow_in_chromium(served_app, callback, chromium, user, mfa):
    secret = enable_totp(user)[0] if mfa else None
    resource, server = _discover(served_app)
    redirect_uri = f"{callback.origin}/callback"
    client_id = _register(served_app, redirect_uri)
    verifier = "v" * 20 + "erifier-of-the-browser-test-0123456789"
    page = chromium.new_page(locale="es-ES", extra_http_headers={"Accept-Language": "es"})
    _sign_in_and_allow(page, _authorize_url(served_app, client_id, redirect_uri, verifier), user, secret)
    page.wait_for_url(f"{redirect_uri}?*")
    answer = {key: values[0] for key, values in parse_qs(urlsplit(page.url).query).items()}
    assert answer["state"] == "browser-state"
    page.close()
    token = requests.post(server["token_endpoint"], data={
        "grant_type": "authorization_code", "code": answer["code"], "client_id": client_id,
        "redirect_uri": redirect_uri, "code_verifier": verifier}, timeout=30)
    assert token.status_code == 200, token.text
    first = token.json()
    call = _tool_call(resource, first["access_token"])
    assert call.status_code == 200 and call.json()["result"]["isError"] is False
    rotated = requests.post(server["token_endpoint"], data={
        "grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client_id}, timeout=30)
    assert rotated.status_code == 200, rotated.text
    second = rotated.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert _tool_call(resource, second["access_token"]).json()["result"]["isError"] is False
    revoked = requests.post(server["revocation_endpoint"], data={"token": second["access_token"],
                                                                 "client_id": client_id}, timeout=30)
    assert revoked.status_code == 200
    assert _tool_call(resource, second["access_token"]).status_code == 401


def test_the_pages_are_not_shown_in_a_frame(served_app, callback, chromium):
    redirect_uri = f"{callback.origin}/callback"
    url = _authorize_url(served_app, _register(served_app, redirect_uri), redirect_uri, "f" * 50)
    page = chromium.new_page()
    page.goto(f"{callback.origin}/callback")  # any other origin: the attacker's page
    page.set_content(f'<iframe id="victim" src="{url}"></iframe>')
    page.wait_for_timeout(1500)
    framed = [frame for frame in page.frames if frame != page.main_frame]
    assert all("csrf_token" not in frame.content() for frame in framed)
    page.close()
