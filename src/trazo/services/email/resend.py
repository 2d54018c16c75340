"""Resend's HTTP API as an e-mail backend: POST {api_base}/emails with a Bearer key."""
import requests

from .. import outbound
from .backends import EmailDeliveryError

DEFAULT_API_BASE = "https://api.resend.com"
TIMEOUT = (5, 15)
MAX_ANSWER_BYTES = 1 << 20
_http = outbound.session()


def _error_text(response):
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    return str(body.get("message") or body.get("name") or body)[:200] if isinstance(body, dict) else str(body)[:200]


class ResendBackend:
    name = "resend"

    def __init__(self, sender, api_key, api_base=None, deadline=30):
        self.sender = sender
        self.api_key = api_key
        self.api_base = (api_base or DEFAULT_API_BASE).rstrip("/")
        self.deadline = deadline

    def _request(self, method, path, **kwargs):
        try:
            return outbound.request(_http, method, f"{self.api_base}{path}", integration="email", seconds=self.deadline,
                                    max_bytes=MAX_ANSWER_BYTES, timeout=TIMEOUT,
                                    headers={"Authorization": f"Bearer {self.api_key}"}, **kwargs)
        except requests.RequestException as exc:
            raise EmailDeliveryError(f"Resend at {self.api_base} is unreachable ({exc.__class__.__name__})") from exc

    def send(self, message):
        payload = {"from": self.sender, "to": [message.to], "subject": message.subject, "text": message.text}
        if message.html:
            payload["html"] = message.html
        response = self._request("POST", "/emails", json=payload)
        if response.status_code >= 300:
            raise EmailDeliveryError(f"Resend answered HTTP {response.status_code}: {_error_text(response)}")

    def check(self):
        """Prove the key works with a harmless authenticated read; a sending-only key counts as valid."""
        response = self._request("GET", "/domains")
        if response.status_code == 200:
            return
        if response.status_code == 401 and "restricted_api_key" in response.text:
            return
        raise EmailDeliveryError(f"Resend answered HTTP {response.status_code}: {_error_text(response)}")
