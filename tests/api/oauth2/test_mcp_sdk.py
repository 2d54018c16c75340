"""The official MCP SDK's OAuth client (mcp.client.auth.OAuthClientProvider) completes the flow against the served_app
application: discovery from the 401, dynamic registration, the pages (driven as a browser would), the code
exchange with PKCE, then tools over /mcp with the token it got."""
import re
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import requests
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from ...helpers import PASSWORD

CALLBACK = "http://127.0.0.1:47321/callback"


class MemoryStorage:
    def __init__(self):
        self.tokens, self.client_info = None, None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


def _form_token(text):
    return re.search(r'name="csrf_token" value="([^"]+)"', text).group(1)


def browse(authorization_url, email):
    """What the user does in the browser: sign in, allow; the redirect's query (the client's callback)."""
    web = requests.Session()
    page = web.get(authorization_url, timeout=30)
    assert page.status_code == 200, page.text[:300]
    consent = web.post(authorization_url, data={"csrf_token": _form_token(page.text), "action": "sign_in",
                                                "email": email, "password": PASSWORD}, timeout=30)
    assert consent.status_code == 200 and 'value="allow"' in consent.text, consent.text[:300]
    answer = web.post(authorization_url, data={"csrf_token": _form_token(consent.text), "action": "allow"},
                      allow_redirects=False, timeout=30)
    assert answer.status_code == 302, answer.text[:300]
    location = answer.headers["Location"]
    assert location.startswith(CALLBACK)
    return {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}


def test_the_sdk_oauth_client_connects_by_signing_in(served_app, user):
    storage, answered = MemoryStorage(), {}

    async def redirect_handler(url):
        answered.update(await anyio.to_thread.run_sync(browse, url, user.email))

    async def callback_handler():
        return AuthorizationCodeResult(code=answered["code"], state=answered.get("state"), iss=answered.get("iss"))

    provider = OAuthClientProvider(
        server_url=f"{served_app}/mcp",
        client_metadata=OAuthClientMetadata(client_name="SDK test", redirect_uris=[CALLBACK],
                                            grant_types=["authorization_code", "refresh_token"],
                                            response_types=["code"], token_endpoint_auth_method="none",
                                            scope="read write"),
        storage=storage, redirect_handler=redirect_handler, callback_handler=callback_handler)

    async def connected():
        async with httpx2.AsyncClient(auth=provider, timeout=60) as http:
            async with Client(streamable_http_client(f"{served_app}/mcp", http_client=http), mode="legacy") as client:
                tools = await client.list_tools()
                listed = await client.call_tool("list_workspaces", {})
                return tools, listed

    tools, listed = anyio.run(connected)
    assert any(tool.name == "write_diagram" for tool in tools.tools)
    assert listed.is_error is False
    assert storage.tokens.access_token.startswith("tzo_")
    assert storage.client_info.client_id.startswith("trzc_")
    assert user.get("/users/me/connected-apps").json[0]["client_name"] == "SDK test"
