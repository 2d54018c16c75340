"""Fixtures of the render services: `httpserver`, a FakeService (tests/fakes/base.py) with the few calls of
pytest-httpserver's fixture that the Mermaid engine tests make (expect_request, url_for, log)."""
import pytest

from ...fakes.base import FakeService, Reply


class _Expectation:
    def __init__(self, server, path):
        self.server, self.path = server, path

    def respond_with_data(self, data, status=200, content_type="text/plain"):
        for method in ("GET", "HEAD", "POST"):
            self.server.route(method, self.path, lambda _request: Reply(status, data.encode(),
                                                                        {"Content-Type": content_type}))


class RecordingServer(FakeService):
    """An HTTP server on 127.0.0.1 that records every request it gets, whatever its method or path."""

    def expect_request(self, path):
        return _Expectation(self, path)

    def url_for(self, path):
        return self.origin + path

    @property
    def log(self):
        return list(self.requests)


@pytest.fixture
def httpserver():
    server = RecordingServer().start()
    yield server
    server.stop()
