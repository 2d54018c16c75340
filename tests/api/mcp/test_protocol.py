"""POST /mcp as a protocol endpoint (docs/mcp.md): both generations of the Model Context Protocol, the official SDK
client for what it speaks and raw JSON-RPC posts for the rest, JSON-RPC errors with the HTTP statuses Streamable
HTTP gives them, the credential (401 naming the protected-resource metadata), the Origin check and the limits."""
import base64

import pytest
import requests

from ...hostile_texts import hostile
from .conftest import CAPABILITIES_KEY, MODERN, VERSION_KEY

TOOLS = ["search_diagrams", "list_workspaces", "list_projects", "list_files", "read_diagram", "write_diagram",
         "validate_diagram", "render_diagram", "list_revisions", "diff_revisions", "restore_revision",
         "list_comments", "add_comment", "diagram_types"]
SUPPORTED = ["2026-07-28", "2025-11-25", "2025-06-18"]


@pytest.fixture
def token(user, mint):
    return mint(user, ["write"])


@pytest.fixture
def mcp(rpc, token):
    return rpc(token)


def _error(response, status, code):
    """Assert a JSON answer with `status` holding a JSON-RPC error of `code`; the error."""
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert body["jsonrpc"] == "2.0" and set(body) == {"jsonrpc", "id", "error"}, body
    assert body["error"]["code"] == code and isinstance(body["error"]["message"], str), body
    return body


# -- the two generations -------------------------------------------------------------------------------

def test_the_sdk_client_negotiates_the_stateless_revision_through_server_discover(token, sdk):
    async def connect(client):
        listed = await client.list_tools()
        return client.protocol_version, client.server_info, client.instructions, [tool.name for tool in listed.tools]

    version, info, instructions, names = sdk(token, connect)
    assert version == MODERN and info.name == "trazo" and info.title == "Trazo"
    assert "write_diagram" in instructions and names == TOOLS


def test_the_sdk_client_in_legacy_mode_initializes_with_the_newest_handshake_version(token, sdk):
    async def connect(client):
        listed = await client.list_tools()
        return client.protocol_version, client.server_capabilities, [tool.name for tool in listed.tools]

    version, capabilities, names = sdk(token, connect, mode="legacy")
    assert version == "2025-11-25" and capabilities.tools is not None and names == TOOLS


def test_server_discover_names_versions_capabilities_and_the_server(mcp):
    response = mcp.modern("server/discover")
    assert response.status_code == 200 and response.headers["Content-Type"] == "application/json"
    assert "Mcp-Session-Id" not in response.headers
    result = response.json()["result"]
    assert result["supportedVersions"] == SUPPORTED and result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["resultType"] == "complete" and result["cacheScope"] == "public" and result["ttlMs"] > 0
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "trazo" and result["instructions"]


def test_a_bare_server_discover_probe_is_answered(mcp):
    response = mcp.post({"jsonrpc": "2.0", "id": "probe", "method": "server/discover"})
    assert response.status_code == 200, response.text
    assert response.json()["id"] == "probe" and response.json()["result"]["supportedVersions"] == SUPPORTED


def test_stateless_requests_need_no_initialize_and_carry_the_server_s_identity(mcp):
    listed = mcp.modern("tools/list", message_id="a")
    assert listed.status_code == 200 and listed.json()["id"] == "a"
    result = listed.json()["result"]
    assert [tool["name"] for tool in result["tools"]] == TOOLS
    assert result["resultType"] == "complete" and result["cacheScope"] == "public"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["version"]
    called = mcp.call("list_workspaces")
    assert called["resultType"] == "complete" and called["isError"] is False


def test_every_tool_has_a_title_an_input_schema_and_an_output_schema(mcp):
    for tool in mcp.modern("tools/list").json()["result"]["tools"]:
        assert tool["title"] and tool["description"], tool["name"]
        assert tool["inputSchema"]["type"] == "object" and tool["inputSchema"]["additionalProperties"] is False
        assert tool["outputSchema"]["type"] == "object", tool["name"]
        assert tool["annotations"]["readOnlyHint"] is (tool["name"] not in ("write_diagram", "restore_revision",
                                                                            "add_comment"))


@pytest.mark.parametrize("asked, answered", [("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"),
                                             ("2024-11-05", "2025-11-25"), ("1999-01-01", "2025-11-25")])
def test_initialize_answers_the_client_s_version_when_supported_else_the_newest(mcp, asked, answered):
    response = mcp.post({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    assert response.status_code == 200 and "Mcp-Session-Id" not in response.headers
    result = response.json()["result"]
    assert result["protocolVersion"] == answered and result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "trazo" and "resultType" not in result


def test_the_2025_06_18_generation_lists_and_calls_without_a_session(mcp):
    initialized = mcp.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                           headers={"MCP-Protocol-Version": "2025-06-18"})
    assert initialized.status_code == 202 and initialized.content == b""
    assert mcp.legacy("ping").json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
    listed = mcp.legacy("tools/list", message_id=2).json()["result"]
    assert [tool["name"] for tool in listed["tools"]] == TOOLS and "resultType" not in listed
    called = mcp.call("diagram_types", era="legacy")
    assert called["isError"] is False and "resultType" not in called


def test_a_response_posted_by_a_client_is_acknowledged_in_the_handshake_generation(mcp):
    answer = mcp.post({"jsonrpc": "2.0", "id": 3, "result": {}}, headers={"MCP-Protocol-Version": "2025-11-25"})
    assert answer.status_code == 202 and answer.content == b""


def test_ping_is_gone_from_the_stateless_revision(mcp):
    _error(mcp.modern("ping"), 404, -32601)


def test_get_and_delete_of_the_endpoint_are_405(mcp):
    for method in ("GET", "DELETE"):
        response = requests.request(method, mcp.url, headers={"Authorization": f"Bearer {mcp.token}"}, timeout=30)
        assert response.status_code == 405 and "POST" in response.headers["Allow"]


# -- JSON-RPC errors -------------------------------------------------------------------------------

@pytest.mark.parametrize("data", [b"{", b"not json", b"", b'{"a": 1e999999}' + b"]" * 3, b"\xff\xfe{",
                                  b"[" * 5000 + b"]" * 5000, b'"\\ud800"'])
def test_a_body_that_is_not_json_is_a_parse_error(mcp, data):
    body = _error(mcp.post(data=data), 400, -32700)
    assert body["id"] is None


@pytest.mark.parametrize("body", [[{"jsonrpc": "2.0", "id": 1, "method": "ping"}], [], "ping", 3, True,
                                  {"id": 1, "method": "ping"}, {"jsonrpc": "1.0", "id": 1, "method": "ping"},
                                  {"jsonrpc": "2.0", "id": 1}, {"jsonrpc": "2.0", "id": 1, "method": 5},
                                  {"jsonrpc": "2.0", "id": None, "method": "ping"},
                                  {"jsonrpc": "2.0", "id": True, "method": "ping"},
                                  {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
                                  {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}])
def test_anything_but_one_request_or_notification_is_an_invalid_request(mcp, body):
    _error(mcp.post(body), 400, -32600)


def test_an_invalid_request_names_its_id_when_it_has_a_readable_one(mcp):
    body = _error(mcp.post({"jsonrpc": "2.0", "id": "x", "method": "ping", "params": "no"}), 400, -32600)
    assert body["id"] == "x"


def test_an_unknown_method_is_method_not_found_in_each_generation(mcp):
    legacy = _error(mcp.legacy("resources/list", message_id=9), 200, -32601)
    assert legacy["id"] == 9
    modern = _error(mcp.modern("prompts/list", message_id=10), 404, -32601)
    assert modern["id"] == 10 and "prompts/list" in modern["error"]["message"]


def test_an_unknown_tool_and_bad_arguments_are_invalid_params(mcp):
    unknown = _error(mcp.modern("tools/call", {"name": "drop_tables", "arguments": {}}), 400, -32602)
    assert "drop_tables" in unknown["error"]["message"]
    missing = _error(mcp.modern("tools/call", {"name": "read_diagram", "arguments": {"diagram_id": 5}}), 400, -32602)
    assert "arguments.diagram_id must be a string." in missing["error"]["data"]["problems"]
    extra = _error(mcp.modern("tools/call", {"name": "list_workspaces", "arguments": {"x": 1}}), 400, -32602)
    assert extra["error"]["data"]["problems"] == ["arguments.x is not expected."]
    neither = _error(mcp.modern("tools/call", {"name": "read_diagram", "arguments": {"path": "a.mmd"}}), 400, -32602)
    assert "diagram_id; project_id + path" in neither["error"]["message"]
    not_an_object = _error(mcp.modern("tools/call", {"name": "list_files", "arguments": [1]}), 400, -32602)
    assert "arguments must be an object." in not_an_object["error"]["data"]["problems"]
    legacy = _error(mcp.legacy("tools/call", {"name": "list_files", "arguments": {}}), 200, -32602)
    assert legacy["error"]["data"]["problems"] == ["arguments.project_id is required."]


@pytest.mark.parametrize("arguments, problem", [
    ({"project_id": "p", "path": "a.mmd", "content": "x", "expected_version": 2**31}, "at most 2147483647"),
    ({"project_id": "p\x00", "path": "a.mmd", "content": "x"}, "NUL"),
    ({"project_id": "p" * 65, "path": "a.mmd", "content": "x"}, "at most 64 characters"),
    ({"project_id": "p", "path": "../a.mmd", "content": "x"}, "segments"),
    ({"project_id": "p", "path": "a.mmd", "content": "x", "diagram_type": "visio"}, "one of"),
    ({"project_id": "p", "path": "a.mmd", "content": "x", "expected_version": True}, "integer"),
])
def test_arguments_are_held_to_the_input_schema_before_anything_runs(mcp, arguments, problem):
    body = _error(mcp.modern("tools/call", {"name": "write_diagram", "arguments": arguments}), 400, -32602)
    assert problem in body["error"]["message"], body


def test_a_header_that_does_not_mirror_the_body_is_a_header_mismatch(mcp):
    _error(mcp.modern("tools/list", headers={"Mcp-Method": "tools/call"}), 400, -32020)
    _error(mcp.modern("tools/call", {"name": "list_workspaces"}, name="list_projects"), 400, -32020)
    _error(mcp.modern("tools/list", headers={"MCP-Protocol-Version": "2025-11-25"}), 400, -32020)
    encoded = "=?base64?" + base64.b64encode(b"list_workspaces").decode() + "?="
    assert mcp.modern("tools/call", {"name": "list_workspaces"}, name=encoded).status_code == 200
    _error(mcp.modern("tools/call", {"name": "list_workspaces"}, name="=?base64?%%%?="), 400, -32020)


def test_an_unsupported_version_names_the_supported_ones(mcp):
    body = _error(mcp.modern("tools/list", version="2099-01-01"), 400, -32022)
    assert body["error"]["data"] == {"supported": SUPPORTED, "requested": "2099-01-01"}
    header_only = _error(mcp.legacy("tools/list", version="2024-11-05"), 400, -32022)
    assert header_only["error"]["data"]["requested"] == "2024-11-05"


def test_a_stateless_request_without_its_envelope_is_invalid_params(mcp):
    body = _error(mcp.modern("tools/list", meta={VERSION_KEY: MODERN}), 400, -32602)
    assert CAPABILITIES_KEY in body["error"]["message"]


def test_a_batch_is_refused_whole_and_nothing_in_it_runs(mcp, user):
    project = user.post("/projects", json={"name": "Batch"}).json
    write = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "write_diagram", "arguments": {"project_id": project["id"], "path": "a.mmd", "content": "graph TD"}}}
    _error(mcp.post([write, write]), 400, -32600)
    assert user.get(f"/projects/{project['id']}/files").json["files"] == []


# -- credential, origin and limits -----------------------------------------------------------------

def test_without_a_credential_the_answer_is_401_naming_the_resource_metadata(rpc, served_app):
    response = rpc(None).modern("tools/list")
    assert response.status_code == 401 and "personal access token" in response.json()["detail"]
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer resource_metadata="{served_app}/.well-known/oauth-protected-resource"')
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        document = requests.get(served_app + path, timeout=30)
        assert document.status_code == 200 and document.json() == {
            "resource": f"{served_app}/mcp", "resource_name": "Trazo", "authorization_servers": [served_app],
            "scopes_supported": ["read", "write"], "bearer_methods_supported": ["header"]}


def test_an_invalid_expired_or_session_credential_is_401_with_invalid_token(rpc, user, mint, served_app, configure):
    for credential in ("trz_" + "x" * 43, user.token, "garbage"):
        response = rpc(credential).modern("tools/list")
        assert response.status_code == 401, (credential[:8], response.text)
        assert response.headers["WWW-Authenticate"].startswith('Bearer error="invalid_token", resource_metadata="')
    revoked = mint(user, ["read"], name="gone")
    token_id = user.get("/users/me/tokens").json[0]["id"]
    assert user.delete(f"/users/me/tokens/{token_id}").status_code == 204
    assert rpc(revoked).modern("tools/list").status_code == 401


def test_public_url_names_the_metadata_and_the_resource(rpc, configure, served_app):
    configure(PUBLIC_URL="https://api.trazo.example")
    response = rpc(None).modern("tools/list")
    assert response.headers["WWW-Authenticate"] == (
        'Bearer resource_metadata="https://api.trazo.example/.well-known/oauth-protected-resource"')
    document = requests.get(f"{served_app}/.well-known/oauth-protected-resource", timeout=30).json()
    assert document["resource"] == "https://api.trazo.example/mcp"


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://localhost:5173.evil.example",
                                    "https://localhost:5173", "http://127.0.0.1:1", "javascript:alert(1)"])
def test_a_foreign_origin_is_refused_before_anything_else(mcp, origin):
    response = mcp.modern("tools/list", headers={"Origin": origin})
    assert response.status_code == 403 and "origin" in response.json()["detail"]
    anonymous = mcp.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"Origin": origin}, token=None)
    assert anonymous.status_code == 403


def test_the_frontend_cors_and_public_origins_are_allowed(mcp, configure, served_app):
    assert mcp.modern("tools/list", headers={"Origin": "http://localhost:5173"}).status_code == 200
    assert mcp.modern("tools/list", headers={"Origin": "HTTP://LOCALHOST:5173"}).status_code == 200
    assert mcp.modern("tools/list", headers={"Origin": served_app}).status_code == 200  # its own loopback origin
    configure(CORS_ORIGINS=["https://app.trazo.example"], PUBLIC_URL="https://api.trazo.example:443")
    for origin in ("https://app.trazo.example", "https://api.trazo.example"):
        assert mcp.modern("tools/list", headers={"Origin": origin}).status_code == 200, origin
    assert mcp.modern("tools/list", headers={"Origin": served_app}).status_code == 403


def test_each_token_has_its_own_mcp_limit(rpc, user, mint, configure):
    configure(RATE_LIMIT_MCP="2/minute")
    first, second = rpc(mint(user, ["read"], name="one")), rpc(mint(user, ["read"], name="two"))
    assert [first.modern("tools/list").status_code for _ in range(2)] == [200, 200]
    refused = first.modern("tools/list")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert second.modern("tools/list").status_code == 200


def test_a_body_over_the_request_limit_is_413(mcp, configure):
    configure(MAX_REQUEST_BODY_BYTES=1024)
    response = mcp.modern("tools/call", {"name": "validate_diagram",
                                         "arguments": {"diagram_type": "graphviz", "source": "x" * 2048}})
    assert response.status_code == 413


@pytest.mark.parametrize("shape", ["escaped quotes", "open brackets", "unclosed fences", "newlines"])
def test_hostile_texts_anywhere_in_a_request_never_make_a_500(mcp, user, shape):
    text = hostile(shape, 20_000)
    project = user.post("/projects", json={"name": "Hostile"}).json
    envelope = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}
    cases = [
        mcp.post({"jsonrpc": "2.0", "id": 1, "method": text, "params": {"_meta": envelope}},
                 headers={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "x"}),
        mcp.modern("tools/call", {"name": text, "arguments": {}}, name="x"),
        mcp.modern("tools/call", {"name": "read_diagram", "arguments": {"diagram_id": text[:64]}}),
        mcp.modern("tools/call", {"name": "read_diagram", "arguments": {"project_id": project["id"],
                                                                        "path": text[:1000] + ".mmd"}}),
        mcp.modern("tools/call", {"name": "list_comments", "arguments": {"diagram_id": text[:64], "status": text}}),
        mcp.modern("tools/call", {"name": "write_diagram", "arguments": {"project_id": project["id"],
                                                                          "path": "h.mmd", "content": text}}),
        mcp.modern("tools/call", {"name": "validate_diagram", "arguments": {"diagram_type": text[:64],
                                                                             "source": text}}),
        mcp.post(data=text.encode()),
        mcp.post({"jsonrpc": "2.0", "id": text, "method": text, "params": {text[:100]: text}}),
    ]
    assert all(response.status_code < 500 for response in cases), [response.status_code for response in cases]
    assert all(response.headers["Content-Type"] == "application/json" for response in cases)
