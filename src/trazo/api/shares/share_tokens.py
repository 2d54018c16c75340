"""Secrets of a shared link: its URL token, generated access codes and the short-lived access token
a visitor receives after entering the right code (so a reload need not ask for the code again)."""
import hmac
import secrets
import string

from flask import current_app
from itsdangerous import BadSignature, URLSafeTimedSerializer

from ...core.hashing import keyed_hash

ACCESS_TOKEN_SECONDS = 3600
GENERATED_CODE_LENGTH = 8
_CODE_ALPHABET = string.ascii_letters + string.digits
_SALT = "trazo.shared-link-access"


def new_link_token():
    return secrets.token_urlsafe(32)


def new_access_code():
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(GENERATED_CODE_LENGTH))


def _serializer():
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


def _code_fingerprint(link):
    """Changes whenever the code changes; keyed, so the token reveals nothing about the stored hash."""
    return keyed_hash(f"{_SALT}:{link.id}:{link.access_code_hash or ''}")[:32]


def issue_access_token(link):
    return _serializer().dumps({"link": link.id, "code": _code_fingerprint(link)})


def access_token_grants(link, token):
    """True when `token` was issued for this link, under its current code, less than an hour ago."""
    if not token:
        return False
    try:
        claims = _serializer().loads(token, max_age=ACCESS_TOKEN_SECONDS)
    except BadSignature:
        return False
    return (isinstance(claims, dict) and claims.get("link") == link.id
            and hmac.compare_digest(str(claims.get("code", "")), _code_fingerprint(link)))
