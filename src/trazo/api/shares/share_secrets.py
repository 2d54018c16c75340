"""Secrets of a shared link: its link token (in the URL), generated access codes and the share grant, the
short-lived signed value a visitor receives after entering the right code (so a reload need not ask for the
code again; its wire name stays `access_token`). Names: docs/glossary.md."""
import hmac
import secrets
import string

from flask import current_app
from itsdangerous import BadSignature, URLSafeTimedSerializer

from ...core.hashing import keyed_hash

SHARE_GRANT_SECONDS = 3600
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


def issue_share_grant(link):
    return _serializer().dumps({"link": link.id, "code": _code_fingerprint(link)})


def share_grant_admits(link, grant):
    """True when `grant` was issued for this link, under its current code, less than an hour ago."""
    if not grant:
        return False
    try:
        claims = _serializer().loads(grant, max_age=SHARE_GRANT_SECONDS)
    except BadSignature:
        return False
    return (isinstance(claims, dict) and claims.get("link") == link.id
            and hmac.compare_digest(str(claims.get("code", "")), _code_fingerprint(link)))
