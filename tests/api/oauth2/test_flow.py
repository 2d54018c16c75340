"""The authorization code flow with PKCE end to end over HTTP (docs/oauth-server.md), and the metadata."""
from .conftest import REDIRECT, RESOURCE, mcp_call


def test_metadata_names_the_endpoints_and_s256_only(app):
    metadata = app.test_client().get("/.well-known/oauth-authorization-server").json
    assert metadata["issuer"] == "http://localhost"
    assert metadata["authorization_endpoint"] == "http://localhost/oauth2/authorize"
    assert metadata["token_endpoint"] == "http://localhost/oauth2/token"
    assert metadata["registration_endpoint"] == "http://localhost/oauth2/register"
    assert metadata["revocation_endpoint"] == "http://localhost/oauth2/revoke"
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["token_endpoint_auth_methods_supported"] == ["none"]
    assert metadata["client_id_metadata_document_supported"] is True
    resource = app.test_client().get("/.well-known/oauth-protected-resource").json
    assert resource["authorization_servers"] == ["http://localhost"]
    assert resource["resource"] == RESOURCE


def test_happy_path_reaches_the_mcp_endpoint(app, tokens, user):
    _web, _client_id, answer = tokens
    assert answer["token_type"].lower() == "bearer"
    assert 0 < answer["expires_in"] < 3600
    assert answer["scope"] == "read write"
    assert answer["access_token"].startswith("tzo_") and answer["refresh_token"].startswith("tzr_")
    response = mcp_call(app, answer["access_token"])
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.json["result"]["isError"] is False


def test_registration_refuses_foreign_redirects_and_secrets(app):
    client = app.test_client()
    for uris in (["http://example.com/cb"], ["https://example.com/cb#x"], [], ["javascript:alert(1)"]):
        response = client.post("/oauth2/register", json={"redirect_uris": uris, "client_name": "x"})
        assert response.status_code == 400, (uris, response.json)
        assert response.json["error"] in ("invalid_redirect_uri", "invalid_client_metadata")
    response = client.post("/oauth2/register", json={"redirect_uris": [REDIRECT],
                                                     "token_endpoint_auth_method": "client_secret_basic"})
    assert response.status_code == 400
    response = client.post("/oauth2/register", json={"redirect_uris": ["https://app.example/cb"]})
    assert response.status_code == 201 and "client_secret" not in response.json


def test_registration_is_rate_limited_per_address(app, configure):
    configure(RATE_LIMIT_OAUTH2_REGISTER="2/hour")
    client = app.test_client()
    answers = [client.post("/oauth2/register", json={"redirect_uris": [REDIRECT]},
                           environ_base={"REMOTE_ADDR": "10.79.0.1"}).status_code for _ in range(3)]
    assert answers == [201, 201, 429]
    assert client.post("/oauth2/register", json={"redirect_uris": [REDIRECT]},
                       environ_base={"REMOTE_ADDR": "10.79.0.2"}).status_code == 201


def test_loopback_redirect_takes_any_port(browser, registered, user):
    client_id = registered()
    web = browser()
    code = web.code(client_id, user.email, redirect_uri="http://127.0.0.1:40123/callback")
    response = web.token(grant_type="authorization_code", code=code, client_id=client_id,
                         redirect_uri="http://127.0.0.1:40123/callback", code_verifier=web.verifier)
    assert response.status_code == 200, response.json


def test_scope_read_only_cannot_write(app, browser, registered, user):
    client_id = registered()
    web = browser()
    code = web.code(client_id, user.email, scope="read")
    answer = web.exchange(client_id, code).json
    assert answer["scope"] == "read"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "write_diagram", "arguments": {"project_id": "x", "path": "a.mmd",
                                                                "content": "graph TD; A-->B"}}}
    response = app.test_client().post("/mcp", json=body, headers={
        "Authorization": f"Bearer {answer['access_token']}", "MCP-Protocol-Version": "2025-06-18",
        "Accept": "application/json, text/event-stream"})
    assert response.status_code == 200
    assert response.json["result"]["isError"] is True
    assert "allowed to read only" in response.json["result"]["content"][0]["text"]


def test_deny_redirects_access_denied(browser, registered, user):
    client_id = registered()
    web = browser()
    url = web.authorize_url(client_id)
    assert web.sign_in(url, user.email).status_code == 303
    answer = web.consent(url, action="deny")
    assert answer.status_code == 302
    assert "error=access_denied" in answer.headers["Location"] and "state=st4te" in answer.headers["Location"]
    assert answer.headers["Location"].startswith(REDIRECT)


def test_the_oauth_endpoints_answer_any_origin_without_credentials_and_the_pages_do_not(app, registered):
    client = app.test_client()
    for path in ("/.well-known/oauth-authorization-server", "/oauth2/token", "/oauth2/register", "/oauth2/revoke"):
        preflight = client.options(path, headers={"Origin": "https://inspector.example",
                                                  "Access-Control-Request-Method": "POST",
                                                  "Access-Control-Request-Headers": "content-type"})
        assert preflight.headers.get("Access-Control-Allow-Origin") == "*", path
        assert "Access-Control-Allow-Credentials" not in preflight.headers
    token = client.post("/oauth2/token", data={"grant_type": "refresh_token", "refresh_token": "x"},
                        headers={"Origin": "https://inspector.example"})
    assert token.headers.get("Access-Control-Allow-Origin") == "*"
    page = client.get("/oauth2/authorize?client_id=x", headers={"Origin": "https://inspector.example"})
    assert "Access-Control-Allow-Origin" not in page.headers
