"""Resend's e-mail API on 127.0.0.1."""
import secrets

from .base import FakeService, Reply


class ResendApi(FakeService):
    """Resend's e-mail API: POST /emails and GET /domains with a Bearer key."""

    def __init__(self, api_key="re_test_key_123456"):
        super().__init__()
        self.api_key = api_key
        self.route("POST", "/emails", self._send)
        self.route("GET", "/domains", self._domains)

    def _authorized(self, request):
        return request.bearer() == self.api_key

    def _send(self, request):
        if not self._authorized(request):
            return Reply(401, {"statusCode": 401, "name": "validation_error", "message": "API key is invalid"})
        return Reply(200, {"id": secrets.token_hex(8)})

    def _domains(self, request):
        if not self._authorized(request):
            return Reply(401, {"statusCode": 401, "name": "validation_error", "message": "API key is invalid"})
        return Reply(200, {"data": []})

    def sent(self):
        return [request.json() for request in self.received("POST", "/emails")]
