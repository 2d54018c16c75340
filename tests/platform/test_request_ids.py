"""X-Request-ID: behind a trusted proxy (TRUSTED_PROXY_COUNT > 0) the proxy's plain id is kept and anything else
replaced; without one a client's id is never kept. Every answer carries one (health probes below Flask, 404, 413,
429, 500, 503, CORS preflights, chat streams); 500 bodies, log records and audit entries name it."""
import re

import pytest

from trazo import create_app

from ..api.chat.conftest import ai, diagram, finished_streams, message_body, parse_sse, session  # noqa: F401
from ..helpers import PASSWORD, ApiClient, error_detail

GENERATED = re.compile(r"[0-9a-f]{32}")
SPA = "http://localhost:5173"
UNREACHABLE_DATABASE = "postgresql+psycopg://postgres@127.0.0.1:9/none"


def generated_id(response):
    request_id = response.headers["X-Request-ID"]
    assert GENERATED.fullmatch(request_id), request_id
    return request_id


@pytest.fixture
def proxied(app, app_env):
    """A client of a second application built with TRUSTED_PROXY_COUNT=1 (behind one trusted proxy), on the
    same database; the proxy's address is the client's."""
    application = create_app(env={**app_env, "TRUSTED_PROXY_COUNT": "1"})
    yield ApiClient(application.test_client(), "127.0.0.1")
    with application.app_context():
        application.extensions["sqlalchemy"].engine.dispose()


def test_a_response_carries_a_generated_id_and_each_request_gets_its_own(client):
    first = client.get("/users/installation-status")
    second = client.get("/users/installation-status")
    assert first.status_code == 200 and first.json == {"needs_setup": True, "user_count": 0}, first.json
    assert generated_id(first) != generated_id(second)


@pytest.mark.parametrize("incoming", ["req-42", "a1B2.c3:d4_e5-f6", "x" * 64, "7"])
def test_a_plain_incoming_id_from_a_trusted_proxy_is_kept(proxied, incoming):
    response = proxied.get("/users/installation-status", headers={"X-Request-ID": incoming})
    assert response.status_code == 200 and response.json == {"needs_setup": True, "user_count": 0}
    assert response.headers.getlist("X-Request-ID") == [incoming]


def test_without_a_trusted_proxy_a_clients_id_is_neither_echoed_nor_logged_nor_audited(client, admin, caplog):
    with caplog.at_level("INFO"):
        failed = client.post("/users/login", json={"email": "ghost@example.com", "password": "Wrong-passw0rd!"},
                             headers={"X-Request-ID": "forged-by-client"})
    assert error_detail(failed, 401) == "Incorrect email or password"
    request_id = generated_id(failed)
    assert all("forged-by-client" not in value for _name, value in failed.headers.items())
    assert {record.request_id for record in caplog.records} <= {request_id, "-"}
    page = admin.get("/admin/audit-log?event=login_failed")
    assert page.status_code == 200 and page.json["total"] == 1, page.json
    assert page.json["items"][0]["request_id"] == request_id


def test_behind_a_trusted_proxy_its_id_is_echoed_and_audited(proxied, admin):
    failed = proxied.post("/users/login", json={"email": "ghost@example.com", "password": "Wrong-passw0rd!"},
                          headers={"X-Request-ID": "nginx-4f2a"})
    assert error_detail(failed, 401) == "Incorrect email or password"
    assert failed.headers.getlist("X-Request-ID") == ["nginx-4f2a"]
    page = admin.get("/admin/audit-log?event=login_failed")
    assert page.status_code == 200 and page.json["total"] == 1, page.json
    assert page.json["items"][0]["request_id"] == "nginx-4f2a"


@pytest.mark.parametrize("incoming", [
    "x" * 65,                              # too long
    "abc\r\nSet-Cookie: stolen=1",         # header injection
    "abc\ndef",
    "two words",
    "caf\u00e9",                           # non-ASCII (as a WSGI server decodes it: latin-1)
    "\u00c3\u00a9t\u00c3\u00a9",
    "<script>",
    "id,other-id",                         # two X-Request-ID headers, joined by the server
    "",
])
def test_any_other_incoming_id_is_replaced_and_never_echoed_even_from_a_trusted_proxy(proxied, incoming):
    # Straight into the WSGI environ: what a server hands over, past the test client's header checks.
    response = proxied.flask_client.get("/api/v1/users/installation-status",
                                        environ_base={"HTTP_X_REQUEST_ID": incoming, "REMOTE_ADDR": proxied.ip})
    assert response.status_code == 200 and response.json == {"needs_setup": True, "user_count": 0}
    assert response.headers.getlist("X-Request-ID") == [generated_id(response)]
    assert incoming == "" or all(incoming not in value for _name, value in response.headers.items())


def test_the_health_probe_answered_below_flask_carries_an_id(client, proxied):
    response = client.get("/health")  # no Origin header: answered before Flask (web.answer_health_probes)
    assert response.status_code == 200 and response.json == {"status": "ok"}
    generated_id(response)
    direct = client.get("/health", headers={"X-Request-ID": "lb-probe-1"})
    assert direct.json == {"status": "ok"} and generated_id(direct)
    echoed = proxied.get("/health", headers={"X-Request-ID": "lb-probe-1"})
    assert echoed.json == {"status": "ok"} and echoed.headers["X-Request-ID"] == "lb-probe-1"


def test_a_browser_can_read_the_id(client):
    preflight = client.request("OPTIONS", "/users/login", headers={
        "Origin": SPA, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type, x-request-id"})
    assert preflight.status_code == 200 and preflight.get_data() == b""
    assert "x-request-id" in preflight.headers["Access-Control-Allow-Headers"].lower()
    generated_id(preflight)
    answer = client.get("/health", headers={"Origin": SPA})
    assert answer.json == {"status": "ok"}
    assert "X-Request-ID" in answer.headers["Access-Control-Expose-Headers"]
    generated_id(answer)


def test_a_404_carries_an_id(client):
    response = client.get("/no-such-area")
    assert error_detail(response, 404) == "Not found"
    generated_id(response)


def test_a_body_too_large_carries_an_id(monkeypatch, app, client):
    monkeypatch.setitem(app.config, "MAX_REQUEST_BODY_BYTES", 64)
    response = client.post("/users/login", json={"email": "a@example.com", "password": "p" * 100})
    assert error_detail(response, 413) == "Request body too large"
    generated_id(response)


def test_a_rate_limited_request_carries_an_id(monkeypatch, app, client):
    monkeypatch.setitem(app.config, "RATE_LIMIT_LOGIN", "1/minute")
    body = {"email": "nobody@example.com", "password": PASSWORD}
    assert client.post("/users/login", json=body).status_code == 401
    refused = client.post("/users/login", json=body)
    assert error_detail(refused, 429).startswith("Too many requests.")
    generated_id(refused)


def test_a_database_outage_answer_carries_an_id(app_env):
    unreachable = create_app(env={**app_env, "DATABASE_URL": UNREACHABLE_DATABASE})
    response = unreachable.test_client().get("/api/v1/users/installation-status")
    assert error_detail(response, 503) == "Service temporarily unavailable, try again shortly"
    generated_id(response)


@pytest.fixture
def failing_app(app_env):
    """An application of its own with a route that fails (a test-only route, not in the service)."""
    application = create_app(env={**app_env, "TRUSTED_PROXY_COUNT": "1"})

    @application.route("/explode")
    def explode():
        raise RuntimeError("secret internals")

    return application


def test_a_500_names_its_request_id_in_the_callers_language(failing_app, caplog):
    web = failing_app.test_client()
    with caplog.at_level("ERROR", logger="trazo.errors"):
        response = web.get("/explode", headers={"X-Request-ID": "boom-1"})
        spanish = web.get("/explode", headers={"Accept-Language": "es"})
    assert response.status_code == 500
    assert response.json == {"detail": "Internal server error", "request_id": "boom-1"}
    assert response.headers["X-Request-ID"] == "boom-1"
    assert spanish.status_code == 500
    assert spanish.json == {"detail": "Error interno del servidor", "request_id": generated_id(spanish)}
    logged = [(record.request_id, record.exc_info[1]) for record in caplog.records if record.exc_info]
    assert [(request_id, str(error)) for request_id, error in logged] == [
        ("boom-1", "secret internals"), (spanish.headers["X-Request-ID"], "secret internals")]


def test_a_chat_stream_carries_an_id(user, session, ai):  # noqa: F811
    ai.openai.reply(text="It is a two-step flow.")
    response = user.post(f"/chat-sessions/{session['id']}/messages/stream",
                         json=message_body(content="What does it show?"))
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    events, _comments = parse_sse(response.get_data(as_text=True))
    assert events[-1]["type"] == "done"
    generated_id(response)


def test_an_audit_entry_keeps_the_id_of_the_request_that_wrote_it(client, admin):
    failed = client.post("/users/login", json={"email": "ghost@example.com", "password": "Wrong-passw0rd!"})
    assert error_detail(failed, 401)
    page = admin.get("/admin/audit-log?event=login_failed")
    assert page.status_code == 200 and page.json["total"] == 1, page.json
    entry = page.json["items"][0]
    assert entry["user_email"] == "ghost@example.com" and entry["request_id"] == generated_id(failed)
