"""Fixtures of the MCP endpoint: the test application served over real HTTP on 127.0.0.1 (the official MCP SDK
client speaks Streamable HTTP to it, the production code path), personal access tokens minted over HTTP, and two
ways to talk to it: the SDK's `Client` and raw JSON-RPC posts."""
from dataclasses import dataclass

import anyio
import httpx2
import pytest
import requests
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"


@pytest.fixture
def mint():
    """mint(client, ["read"]) -> the token text of a personal access token created over HTTP for `client`."""

    def make(client, scopes, name="mcp"):
        response = client.post("/users/me/tokens", json={"name": name, "scopes": scopes})
        assert response.status_code == 201, response.json
        return response.json["token"]

    return make


@dataclass
class Rpc:
    """Raw JSON-RPC posts to /mcp with one token: the parts of the protocol the SDK client does not send."""

    base: str
    token: str | None

    @property
    def url(self):
        return f"{self.base}/mcp"

    def post(self, body=None, *, data=None, headers=None, token=...):
        token = self.token if token is ... else token
        sent = {"Accept": "application/json, text/event-stream", **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        if data is None:
            return requests.post(self.url, json=body, headers=sent, timeout=30)
        return requests.post(self.url, data=data, headers={"Content-Type": "application/json", **sent}, timeout=30)

    def legacy(self, method, params=None, message_id=1, version="2025-06-18", **options):
        """A request of the handshake generation (no initialize needed before it: the server keeps no session)."""
        body = {"jsonrpc": "2.0", "id": message_id, "method": method, **({"params": params} if params else {})}
        return self.post(body, headers={"MCP-Protocol-Version": version, **options.pop("headers", {})}, **options)

    def modern(self, method, params=None, message_id=1, version=MODERN, name=None, headers=None, meta=None):
        """A request of the stateless 2026-07-28 revision: `_meta` in the body, mirrored in the headers."""
        envelope = meta if meta is not None else {VERSION_KEY: version, CAPABILITIES_KEY: {}}
        body = {"jsonrpc": "2.0", "id": message_id, "method": method, "params": {**(params or {}), "_meta": envelope}}
        mirrored = {"MCP-Protocol-Version": version, "Mcp-Method": method}
        if method == "tools/call":
            mirrored["Mcp-Name"] = name or (params or {}).get("name", "")
        return self.post(body, headers={**mirrored, **(headers or {})})

    def call(self, tool, arguments=None, era="modern"):
        """tools/call of `tool`; the JSON-RPC response's `result` (asserting a 200)."""
        params = {"name": tool, "arguments": arguments or {}}
        response = self.modern("tools/call", params) if era == "modern" else self.legacy("tools/call", params)
        assert response.status_code == 200, response.text
        body = response.json()
        assert "result" in body, body
        return body["result"]


@pytest.fixture
def rpc(served_app):
    """rpc(token) -> an Rpc posting with that token (None: no Authorization header)."""
    return lambda token: Rpc(served_app, token)


@pytest.fixture
def sdk(served_app):
    """sdk(token, action, mode="auto") -> what `await action(client)` answers, `client` the official SDK's Client
    connected to /mcp with the token (mode "auto" probes server/discover; "legacy" sends initialize)."""

    def run(token, action, mode="auto"):
        async def connected():
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
                async with Client(streamable_http_client(f"{served_app}/mcp", http_client=http), mode=mode) as client:
                    return await action(client)

        return anyio.run(connected)

    return run
