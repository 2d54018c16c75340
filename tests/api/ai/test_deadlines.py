"""A provider that trickles its answer (or sends too much of it) cannot hold threads, pooled
database connections or memory: every AI call has one total deadline and a cap on what it reads."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest

from ...fakes.base import LocalHttpServer
from ...helpers import add_provider, create_project, error_detail
from ..chat.conftest import message_body, new_diagram, new_session, parse_sse, wait_for_streams

TRICKLE_SECONDS = 40
PROBES = 16


class _Trickle(BaseHTTPRequestHandler):
    """Sends headers at once, then one byte (JSON padding, or an SSE comment) every 0.2 s for 40 s.

    The server's `healthy_answers` first requests get a normal answer instead.
    """

    protocol_version = "HTTP/1.1"

    def log_message(self, *_args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        streamed = b'"stream": true' in body or b'"stream":true' in body
        if self.server.healthy_answers:  # the key check when the provider is added
            self.server.healthy_answers -= 1
            self._answer_ok()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
        self.send_header("Content-Length", str(10 * TRICKLE_SECONDS))
        self.end_headers()
        ends = time.monotonic() + TRICKLE_SECONDS
        try:
            while time.monotonic() < ends:
                self.wfile.write(b":" if streamed else b" ")
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass

    def _answer_ok(self):
        payload = json.dumps({"choices": [{"message": {"content": "OK"}, "finish_reason": "stop"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def trickle(app, fake_providers):
    server = LocalHttpServer(_Trickle)
    server.httpd.healthy_answers = 0
    server.start()
    saved = {name: app.config[name] for name in ("AI_TIMEOUT", "AI_ALLOWED_PRIVATE_HOSTS")}
    app.config["AI_TIMEOUT"] = 2
    app.config["AI_ALLOWED_PRIVATE_HOSTS"] = [*saved["AI_ALLOWED_PRIVATE_HOSTS"],
                                              f"127.0.0.1:{server.httpd.server_port}"]
    yield server
    app.config.update(saved)
    server.stop()


def _add_trickling_provider(client, server, outcome):
    started = time.monotonic()
    response = client.post("/ai/providers", json={"provider": "ollama", "model": "llama",
                                                  "base_url": f"{server.origin}/v1"})
    outcome.append((time.monotonic() - started, response.status_code, response.get_json()))


def test_trickling_providers_neither_hold_database_connections_nor_outlive_the_deadline(
        make_user, user, trickle):
    create_project(user, name="Mine")
    probers = [make_user() for _ in range(PROBES)]
    outcomes = []
    threads = [threading.Thread(target=_add_trickling_provider, args=(client, trickle, outcomes))
               for client in probers]
    for thread in threads:
        thread.start()
    time.sleep(0.8)  # every probe has reached the provider

    started = time.monotonic()
    projects = user.get("/projects")
    elapsed = time.monotonic() - started

    for thread in threads:
        thread.join(TRICKLE_SECONDS + 5)
    assert projects.status_code == 200, projects.get_json()
    assert [project["name"] for project in projects.get_json()] == ["Mine"]
    assert elapsed < 1
    assert len(outcomes) == PROBES
    for seconds, status, body in outcomes:
        assert status == 504
        assert body == {"detail": "Ollama did not answer in time. Try again later.", "error_code": "timeout"}
        assert seconds < 5  # the deadline is 2 s; the trickle lasts 40 s


def test_test_provider_ends_at_the_deadline_of_a_trickling_server(user, trickle):
    started = time.monotonic()
    response = user.post("/ai/test-provider", json={"provider": "ollama", "model": "llama",
                                                    "base_url": f"{trickle.origin}/v1"})
    assert time.monotonic() - started < 5
    assert response.status_code == 200
    assert response.get_json() == {"valid": False, "provider_name": "ollama", "error_code": "provider_error",
                                   "message": "Ollama did not answer in time. Try again later."}


@pytest.fixture
def trickling_chat(user, trickle):
    trickle.httpd.healthy_answers = 1
    add_provider(user, "ollama", model="llama", base_url=f"{trickle.origin}/v1")
    return new_session(user, new_diagram(user)["id"])


def test_a_trickling_streamed_chat_reply_ends_with_a_timeout_event(user, trickling_chat):
    started = time.monotonic()
    response = user.post(f"/chat-sessions/{trickling_chat['id']}/messages/stream", json=message_body())
    events, _comments = parse_sse(response.get_data(as_text=True))
    wait_for_streams()
    assert time.monotonic() - started < 5
    assert response.status_code == 200
    assert events[-1] == {"type": "error", "error_code": "timeout",
                          "message": "Ollama did not answer in time. Try again later."}


def test_a_trickling_chat_reply_is_saved_as_a_timeout(user, trickling_chat):
    started = time.monotonic()
    response = user.post(f"/chat-sessions/{trickling_chat['id']}/messages", json=message_body())
    assert time.monotonic() - started < 5
    assert response.status_code == 201, response.get_json()
    assert (response.get_json()["role"], response.get_json()["content"]) == (
        "error", "Ollama did not answer in time. Try again later.")


@pytest.fixture
def small_cap(app):
    saved = app.config["AI_MAX_RESPONSE_BYTES"]
    app.config["AI_MAX_RESPONSE_BYTES"] = 64 * 1024
    yield
    app.config["AI_MAX_RESPONSE_BYTES"] = saved


def test_an_answer_larger_than_the_cap_is_a_provider_error(user, fake_providers, small_cap):
    add_provider(user, "openai", model="gpt-test")
    fake_providers.openai.reply(text="flowchart TD\n" + "  A-->B\n" * 20_000)
    response = user.post("/ai/generate-diagram", json={"description": "a checkout flow", "diagram_type": "mermaid"})
    assert error_detail(response, 502, error_code="provider_error") == \
        "OpenAI sent an answer larger than this server accepts."


def test_a_streamed_answer_larger_than_the_cap_ends_with_a_provider_error(user, fake_providers, small_cap):
    add_provider(user, "openai", model="gpt-test")
    session = new_session(user, new_diagram(user)["id"])
    fake_providers.openai.reply(text="Why not. " * 20_000, chunks=["Why not. " * 1000] * 20)
    response = user.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body(content="Why?"))
    events, _comments = parse_sse(response.get_data(as_text=True))
    assert response.status_code == 200
    assert events[-1] == {"type": "error", "error_code": "provider_error",
                          "message": "OpenAI sent an answer larger than this server accepts."}
