"""A user's base URL (Ollama, OpenAI-compatible) cannot reach our network: non-public addresses are
refused at connect time unless the operator allows them, redirects are not followed, and the
answers never tell an open port from a closed one."""
from http.server import BaseHTTPRequestHandler

import pytest

from ...fakes.base import LocalHttpServer, free_port
from ...helpers import validation_errors

UNREACHABLE = {"valid": False, "provider_name": "ollama", "error_code": "provider_error",
               "message": "Ollama could not be reached. Try again later."}


def assert_nothing_received(listener):
    with pytest.raises(TimeoutError):
        listener.accept()


def probe(client, base_url, provider="ollama"):
    return client.post("/ai/test-provider", json={"provider": provider, "model": "llama", "base_url": base_url})


def spellings(port):
    return [f"http://127.0.0.1:{port}/v1", f"http://localhost:{port}/v1", f"http://2130706433:{port}/v1",
            f"http://0x7f000001:{port}/v1", f"http://017700000001:{port}/v1", f"http://127.1:{port}/v1",
            f"http://[::ffff:127.0.0.1]:{port}/v1", f"http://0.0.0.0:{port}/v1", f"http://[::1]:{port}/v1"]


@pytest.mark.parametrize("index", range(9))
def test_every_spelling_of_a_local_address_is_refused_before_connecting(user, fake_providers, listener, index):
    base_url = spellings(listener.getsockname()[1])[index]
    response = probe(user, base_url)
    assert response.status_code == 200
    assert response.get_json() == UNREACHABLE
    assert_nothing_received(listener)


def test_adding_a_provider_on_a_local_address_is_refused(user, fake_providers, listener):
    response = user.post("/ai/providers", json={"provider": "openai_compatible", "model": "m",
                                                "base_url": f"http://localhost:{listener.getsockname()[1]}/v1"})
    assert response.status_code == 502
    assert response.get_json() == {"detail": "OpenAI-compatible server could not be reached. Try again later.",
                                   "error_code": "provider_error"}
    assert_nothing_received(listener)


def test_a_refused_address_and_a_closed_port_answer_the_same(user, fake_providers, listener):
    refused = probe(user, f"http://127.0.0.1:{listener.getsockname()[1]}/v1")
    closed = probe(user, f"http://{fake_providers.openai.origin.split('//')[1].split(':')[0]}:{free_port()}/v1")
    assert (refused.status_code, refused.get_json()) == (closed.status_code, closed.get_json()) == (200, UNREACHABLE)


@pytest.mark.parametrize(("base_url", "message"), [
    ("http://user:secret@example.com/v1", "The URL must not contain a user name or password."),
    ("http://token@example.com/v1", "The URL must not contain a user name or password."),
    ("ftp://example.com/v1", "Must be an http or https URL."),
    ("file:///etc/passwd", "Must be an http or https URL.")])
def test_userinfo_and_other_schemes_are_refused_when_saved(user, fake_providers, base_url, message):
    response = user.post("/ai/providers", json={"provider": "ollama", "model": "llama", "base_url": base_url})
    assert [item["msg"] for item in validation_errors(response, "base_url")] == [message]
    assert fake_providers.openai.requests == []


class _Redirect(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(307)
        self.send_header("Location", self.server.target)
        self.send_header("Content-Length", "0")
        self.end_headers()


def test_a_redirect_is_a_provider_error_and_is_not_followed(app, user, fake_providers, listener):
    server = LocalHttpServer(_Redirect)
    server.httpd.target = f"http://127.0.0.1:{listener.getsockname()[1]}/v1/chat/completions"
    server.start()
    allowed = app.config["AI_ALLOWED_PRIVATE_HOSTS"]
    app.config["AI_ALLOWED_PRIVATE_HOSTS"] = [*allowed, f"127.0.0.1:{server.httpd.server_port}"]
    try:
        response = probe(user, f"{server.origin}/v1")
    finally:
        app.config["AI_ALLOWED_PRIVATE_HOSTS"] = allowed
        server.stop()
    assert response.status_code == 200
    assert response.get_json() == {"valid": False, "provider_name": "ollama", "error_code": "provider_error",
                                   "message": "Ollama answered with an error (HTTP 307)."}
    assert_nothing_received(listener)


def test_the_errors_of_a_users_server_are_not_echoed(user, fake_providers):
    fake_providers.openai.reply(status=500, error="internal secret: db password is hunter2")
    response = probe(user, fake_providers.openai.url)
    assert response.get_json() == {"valid": False, "provider_name": "ollama", "error_code": "provider_error",
                                   "message": "Ollama answered with an error (HTTP 500)."}


def test_an_allowed_private_host_is_reached(app, user, fake_providers):
    port = fake_providers.openai.httpd.server_port
    app.config["AI_ALLOWED_PRIVATE_HOSTS"] = [f"localhost:{port}"]
    response = probe(user, f"http://localhost:{port}/v1")
    assert response.get_json() == {"valid": True, "provider_name": "ollama", "error_code": None,
                                   "message": "API key is valid"}
    assert fake_providers.openai.last["path"] == "/v1/chat/completions"
