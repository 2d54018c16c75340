"""GET /metrics: hidden from anyone but the scraper, and what it counts (requests by route template, the
render cache, sign-in failures, outbound AI calls, open chat streams, pooled connections in use)."""
import ipaddress
import logging
import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from trazo import create_app
from trazo.config import ConfigError
from trazo.extensions import db
from trazo.services.render import cache as render_cache

from ..api.chat.conftest import message_body, new_diagram, new_session, wait_for_streams
from ..fakes.kroki import KrokiServer
from ..flows import enable_totp, mfa_token, sign_in
from ..helpers import PASSWORD, add_provider, create_diagram, create_project, error_detail

TOKEN = "metrics-token-0123456789abcdef-0123456789"
SCRAPER_NETWORK = "10.77.0.0/16"
OUTSIDE = "203.0.113.9"
DIAGRAM_ROUTE = "/api/v1/diagrams/<diagram_id>"


@pytest.fixture(scope="module")
def metrics_app(app_env):
    """The application with both ways in: the token, and the scraper's network."""
    return create_app(env={**app_env, "METRICS_TOKEN": TOKEN,
                           "METRICS_ALLOWED_NETWORKS": f"{SCRAPER_NETWORK}, 2001:db8::/32"})


def _get(application, path="/metrics", method="GET", token=None, address=OUTSIDE):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return application.test_client().open(path, method=method, headers=headers,
                                          environ_base={"REMOTE_ADDR": address})


def _answer(response):
    """Status, body and headers (but the per-request id) of an answer, to compare two of them."""
    headers = sorted((name, value) for name, value in response.headers.items() if name != "X-Request-ID")
    return response.status_code, response.get_data(), headers


class Samples(dict):
    """Every sample of a scrape, by (name, labels)."""

    def __call__(self, name, **labels):
        return self.get((name, tuple(sorted(labels.items()))), 0.0)


def scrape(application, **how):
    response = _get(application, **(how or {"token": TOKEN}))
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.content_type == "text/plain; version=0.0.4; charset=utf-8"
    samples = Samples()
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


# -- who may read them ---------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "OPTIONS", "DELETE"])
def test_without_settings_the_metrics_answer_exactly_as_an_unknown_path(app, method):
    hidden = _get(app, method=method, token=TOKEN, address="10.77.0.1")
    assert hidden.status_code == 404
    if method != "HEAD":
        assert hidden.get_json() == {"detail": "Not found"}
    assert _answer(hidden) == _answer(_get(app, "/no-such-path", method=method))


@pytest.mark.parametrize("authorization", [f"Bearer {TOKEN[:-1]}", f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN, ""])
def test_a_wrong_token_from_another_address_is_an_unknown_path(metrics_app, authorization):
    response = metrics_app.test_client().get("/metrics", headers={"Authorization": authorization},
                                             environ_base={"REMOTE_ADDR": OUTSIDE})
    assert error_detail(response, 404) == "Not found"
    assert _answer(response) == _answer(_get(metrics_app, "/no-such-path"))


def test_the_token_opens_the_metrics_from_any_address(metrics_app):
    samples = scrape(metrics_app, token=TOKEN, address=OUTSIDE)
    assert ("trazo_sse_streams_open", ()) in samples
    assert samples("trazo_outbound_calls_total", integration="payments", outcome="timeout") >= 0
    assert _get(metrics_app, method="POST", token=TOKEN).status_code == 404  # reading is all there is


@pytest.mark.parametrize("address", ["10.77.0.1", "10.77.255.254", "::ffff:10.77.1.2", "2001:db8::5"])
def test_an_address_in_the_allowed_networks_needs_no_token(metrics_app, address):
    assert ("trazo_db_connections_in_use", ()) in scrape(metrics_app, address=address)


@pytest.mark.parametrize("address", ["10.78.0.1", "127.0.0.1", "2001:db9::5"])
def test_an_address_outside_the_allowed_networks_gets_a_404(metrics_app, address):
    assert error_detail(_get(metrics_app, address=address), 404) == "Not found"


@pytest.mark.parametrize("networks", ["10.0.0.0/33", "10.0.0.1/8", "intranet", "10.0.0.0/8,,300.1.2.3"])
def test_a_bad_network_refuses_to_start(app_env, networks):
    with pytest.raises(ConfigError, match="METRICS_ALLOWED_NETWORKS"):
        create_app(env={**app_env, "METRICS_ALLOWED_NETWORKS": networks})


def test_production_refuses_a_short_metrics_token_and_never_shows_it(app_env):
    production = {**app_env, "APP_ENV": "production", "SECRET_KEY": "s" * 32, "JWT_SECRET_KEY": "j" * 32}
    with pytest.raises(ConfigError, match="METRICS_TOKEN") as refused:
        create_app(env={**production, "METRICS_TOKEN": "short-C0FFEE"})
    assert "C0FFEE" not in str(refused.value)
    accepted = create_app(env={**production, "METRICS_TOKEN": TOKEN, "METRICS_ALLOWED_NETWORKS": "10.0.0.5"})
    assert accepted.config["METRICS_ALLOWED_NETWORKS"] == (ipaddress.ip_network("10.0.0.5/32"),)


# -- what they count -----------------------------------------------------------------------------

def test_requests_are_counted_by_route_template_never_by_path(metrics_app, user):
    project = create_project(user)
    first, second = (create_diagram(user, project["id"], title=title) for title in ("One", "Two"))
    before = scrape(metrics_app)
    for diagram in (first, second):
        assert user.get(f"/diagrams/{diagram['id']}").json["id"] == diagram["id"]
    assert error_detail(user.get("/diagrams/00000000-0000-4000-8000-000000000000"), 404) == "Diagram not found"
    assert error_detail(user.get("/no-such-area"), 404) == "Not found"
    assert user.post("/projects", json={}).status_code == 422
    after = scrape(metrics_app)

    def grew(name, **labels):
        return after(name, **labels) - before(name, **labels)

    assert grew("trazo_http_requests_total", route=DIAGRAM_ROUTE, method="GET", status="200") == 2
    assert grew("trazo_http_requests_total", route=DIAGRAM_ROUTE, method="GET", status="404") == 1
    assert grew("trazo_http_requests_total", route="unmatched", method="GET", status="404") == 1
    assert grew("trazo_http_requests_total", route="/api/v1/projects", method="POST", status="422") == 1
    assert grew("trazo_http_request_duration_seconds_count", route=DIAGRAM_ROUTE, method="GET") == 3
    assert grew("trazo_http_request_duration_seconds_bucket", route=DIAGRAM_ROUTE, method="GET", le="+Inf") == 3
    assert grew("trazo_http_request_duration_seconds_sum", route=DIAGRAM_ROUTE, method="GET") > 0
    body = _get(metrics_app, token=TOKEN).get_data(as_text=True)
    assert first["id"] not in body and user.email not in body and "no-such-area" not in body


def test_a_share_token_or_a_files_api_path_is_in_no_metric_label_and_no_log_record(metrics_app, user, client,
                                                                                    caplog):
    project = create_project(user)
    diagram = create_diagram(user, project["id"], title="Launch")
    link = user.post("/shared-links", json={"diagram_id": diagram["id"]})
    assert link.status_code == 201, link.json
    token = link.json["token"]
    file_url = f"/projects/{project['id']}/files/docs/secret-plan.mmd"
    with caplog.at_level(logging.DEBUG):
        saved = user.put(file_url, data=b"graph TD\n  A --> B\n", content_type="text/plain")
        assert saved.status_code == 201 and saved.json["path"] == "docs/secret-plan.mmd", saved.json
        read = user.get(file_url)
        assert read.status_code == 200 and read.get_data(as_text=True) == "graph TD\n  A --> B\n"
        shared = client.get(f"/shared/{token}/diagram")
        assert shared.status_code == 200 and shared.json["title"] == "Launch", shared.json
        assert error_detail(client.get(f"/shared/{token}x/info"), 404) == "Shared link not found"
    records = [f"{record.getMessage()} {record.args!r}" for record in caplog.records]
    body = _get(metrics_app, token=TOKEN).get_data(as_text=True)
    for secret in (token, token[:7], "secret-plan"):
        assert not [record for record in records if secret in record] and secret not in body
    assert 'route="/api/v1/shared/<token>/diagram"' in body
    assert 'route="/api/v1/projects/<project_id>/files/<path:file_path>"' in body


def test_an_unknown_method_is_counted_as_other_and_unmatched(metrics_app, client):
    before = scrape(metrics_app)
    assert error_detail(client.request("BREW", "/projects"), 405) == "Method not allowed"
    after = scrape(metrics_app)
    labels = {"route": "unmatched", "method": "other", "status": "405"}
    assert after("trazo_http_requests_total", **labels) - before("trazo_http_requests_total", **labels) == 1


@pytest.fixture
def kroki(app, monkeypatch):
    server = KrokiServer()
    server.start()
    for name, value in (("RENDER_BACKEND", "kroki"), ("KROKI_URL", server.url), ("RENDER_TIMEOUT", 5)):
        monkeypatch.setitem(app.config, name, value)
    yield server
    server.stop()
    render_cache.clear(app.config.get("REDIS_URL"))


def test_render_cache_hits_and_misses_and_the_renderer_calls_are_counted(metrics_app, client, kroki):
    source = f"graph TD\n  A --> B\n%% {uuid.uuid4()}"  # never rendered before
    before = scrape(metrics_app)
    for _ in range(3):
        response = client.post("/diagrams/render", json={"diagram_type": "mermaid", "source": source})
        assert response.status_code == 200 and "<svg" in response.get_data(as_text=True)
    kroki.mode = "down"
    failed = client.post("/diagrams/render", json={"diagram_type": "mermaid", "source": source + " 2"})
    assert failed.status_code == 502, failed.get_data(as_text=True)
    after = scrape(metrics_app)
    assert after("trazo_render_cache_misses_total") - before("trazo_render_cache_misses_total") == 2
    assert after("trazo_render_cache_hits_total", tier="memory") - before("trazo_render_cache_hits_total",
                                                                          tier="memory") == 2
    for outcome, expected in (("ok", 1), ("error", 1), ("timeout", 0)):
        labels = {"integration": "render", "outcome": outcome}
        assert after("trazo_outbound_calls_total", **labels) - before("trazo_outbound_calls_total", **labels) \
            == expected, outcome


def test_sign_in_failures_lockouts_and_mfa_failures_are_counted(metrics_app, client, user, make_user):
    before = scrape(metrics_app)
    assert sign_in(client, user.email).status_code == 200
    answers = [sign_in(client, user.email, "Wrong-passw0rd!").status_code for _ in range(5)]
    assert answers == [401, 401, 401, 401, 429]
    guarded = make_user()
    enable_totp(guarded)
    token = mfa_token(client, guarded.email, PASSWORD)
    assert error_detail(client.post("/mfa/verify", json={"mfa_token": token, "code": "000000"}), 401) \
        == "Invalid MFA code"
    after = scrape(metrics_app)

    def grew(name, **labels):
        return after(name, **labels) - before(name, **labels)

    # the user's sign-in and make_user's; the guarded account's password step is not a completed sign-in
    assert grew("trazo_logins_total", outcome="success") == 2
    assert grew("trazo_logins_total", outcome="failed") == 5
    assert grew("trazo_lockouts_total", kind="login") == 1
    assert grew("trazo_lockouts_total", kind="mfa") == 0
    assert grew("trazo_mfa_failures_total") == 1


@pytest.fixture
def ai_user(user, fake_providers):
    add_provider(user, "openai", model="gpt-test")
    fake_providers.reset()
    return user


GENERATE = {"description": "A two step flow from start to end", "diagram_type": "mermaid"}


def test_outbound_ai_calls_are_timed_and_counted_by_outcome(metrics_app, app, ai_user, fake_providers,
                                                            monkeypatch):
    monkeypatch.setitem(app.config, "AI_TIMEOUT", 1)
    fake_providers.openai.reply(text="```mermaid\nflowchart TD\n  A --> B\n```")
    fake_providers.openai.reply(status=500, error="upstream broke")
    fake_providers.openai.reply(text="late", delay=2)
    before = scrape(metrics_app)
    statuses = [ai_user.post("/ai/generate-diagram", json=GENERATE).status_code for _ in range(3)]
    after = scrape(metrics_app)
    assert statuses == [200, 502, 504]
    assert len(fake_providers.openai.requests) == 3
    for outcome in ("ok", "error", "timeout"):
        labels = {"integration": "ai", "outcome": outcome}
        assert after("trazo_outbound_calls_total", **labels) - before("trazo_outbound_calls_total", **labels) == 1
    seconds = {"integration": "ai"}
    assert after("trazo_outbound_call_duration_seconds_count", **seconds) \
        - before("trazo_outbound_call_duration_seconds_count", **seconds) == 3
    # the timed-out call lasted its whole 1 s deadline
    assert after("trazo_outbound_call_duration_seconds_sum", **seconds) \
        - before("trazo_outbound_call_duration_seconds_sum", **seconds) >= 1


@pytest.mark.parametrize("reads_to_the_end", [True, False])
def test_an_open_chat_stream_is_counted_until_it_ends_or_the_client_leaves(metrics_app, ai_user, fake_providers,
                                                                         reads_to_the_end):
    session = new_session(ai_user, new_diagram(ai_user)["id"])
    fake_providers.openai.reply(chunks=[f"word{n} " for n in range(20)], chunk_delay=0.05)
    idle = scrape(metrics_app)("trazo_sse_streams_open")
    response = ai_user.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body(content="Why?"),
                            buffered=False)
    chunks = iter(response.response)
    assert b'"mode"' in next(chunks)
    assert scrape(metrics_app)("trazo_sse_streams_open") == idle + 1
    if reads_to_the_end:
        assert b'"done"' in b"".join(chunks)
    response.close()
    wait_for_streams()
    assert scrape(metrics_app)("trazo_sse_streams_open") == idle


def test_pooled_connections_in_use_are_counted_until_returned(metrics_app):
    idle = scrape(metrics_app)("trazo_db_connections_in_use")
    with metrics_app.app_context():
        connection = db.engine.connect()
        try:
            assert scrape(metrics_app)("trazo_db_connections_in_use") == idle + 1
        finally:
            connection.close()
    assert scrape(metrics_app)("trazo_db_connections_in_use") == idle
