"""Steps the security tests repeat: TOTP codes, MFA set-up, sign-ins."""
import re
import time
from urllib.parse import parse_qs, urlsplit

import pyotp
import requests

from trazo.ratelimit import Counter

from .helpers import PASSWORD


def totp_code(secret, offset_steps=0):
    return pyotp.TOTP(secret).at(time.time() + 30 * offset_steps)


def enable_totp(user):
    """Turn TOTP on for `user`; returns (secret, recovery codes). The current step is spent."""
    secret = user.post("/mfa/setup-totp").json["secret_key"]
    response = user.post("/mfa/enable-totp", json={"code": totp_code(secret)})
    assert response.status_code == 200, response.json
    return secret, response.json["codes"]


def sign_in(client, email, password=PASSWORD, **kwargs):
    return client.post("/users/login", json={"email": email, "password": password}, **kwargs)


def mfa_token(client, email, password=PASSWORD):
    body = sign_in(client, email, password).json
    assert body.get("mfa_required") is True, body
    return body["mfa_token"]


def mailed_code(smtp_sink, address):
    """The 6-digit code of the latest e-mail to `address`."""
    return re.search(r"\b(\d{6})\b", smtp_sink.wait_for(address)["text"]).group(1)


def end_cooldown(app, login_id):
    """Let the 60-second resend cooldown of a login pass (the storage entry is what the clock would expire)."""
    with app.app_context():
        Counter("mfa-email-cooldown", login_id).clear()


def browse_to_provider(authorization_url):
    """What the browser does: follow the provider URL; the provider redirects back with code and state."""
    response = requests.get(authorization_url, allow_redirects=False, timeout=5)
    assert response.status_code == 302, response.text
    query = parse_qs(urlsplit(response.headers["Location"]).query)
    return query["code"][0], query["state"][0], response.headers["Location"]


def oauth_sign_in(client, provider, **kwargs):
    start = client.get(f"/oauth/authorize/{provider}")
    assert start.status_code == 200, start.json
    code, state, _location = browse_to_provider(start.json["authorization_url"])
    return client.post("/oauth/callback", json={"code": code, "state": state, "provider": provider}, **kwargs)
