"""Personal access tokens: credentials for scripts, CI jobs and editor plugins (docs/automation.md).

A token is `trz_` followed by 43 characters of URL-safe base64 (256 random bits). It is shown once, at
creation; the database keeps its SHA-256 (a token that random needs no slow hash: nothing can be guessed)
and the first characters as `prefix`, so the owner can tell tokens apart. auth.py checks a request's
token, its scope and the route it may be used on; here tokens are made, found, touched and revoked. Creating
one e-mails the owner (never the token); a password reset revokes them all (docs/security.md, "Accounts").
"""
import secrets
from datetime import timedelta

from flask import has_request_context
from flask_babel import gettext as _
from flask_babel import lazy_gettext
from sqlalchemy import delete, func, select, update

from ...errors import Conflict, NotFound
from ...extensions import db
from ...models import User
from ...models.base import new_id, utcnow
from ...models.security import PersonalAccessToken
from ...ratelimit import client_address
from ..hashing import digest
from ..mail.compose import send_template
from . import audit

PREFIX = "trz_"
SECRET_BYTES = 32
SHOWN_CHARACTERS = 8  # of the secret, after the prefix
READ, WRITE = "read", "write"
SCOPES = (READ, WRITE)
# A use moves last_used_at only when the one recorded is older than this (or the address changed).
USE_RECORD_SECONDS = 60
SEEN_ADDRESSES = 10
MAX_TOKENS_PER_USER = 50
MAX_EXPIRY_DAYS = 365


def looks_like_token(text):
    return text.startswith(PREFIX)


def create(user, name, scopes, expires_in_days):
    """A new token for `user`: (row, the token text, shown this once)."""
    count = db.session.scalar(select(func.count()).select_from(PersonalAccessToken)
                              .where(PersonalAccessToken.user_id == user.id))
    if count >= MAX_TOKENS_PER_USER:
        raise Conflict(_("You already have %(count)s personal access tokens: revoke one first.",
                         count=MAX_TOKENS_PER_USER))
    text = PREFIX + secrets.token_urlsafe(SECRET_BYTES)
    now = utcnow()
    token = PersonalAccessToken(
        id=new_id(), user_id=user.id, name=name, token_hash=digest(text),
        prefix=text[:len(PREFIX) + SHOWN_CHARACTERS], scopes=f"{READ} {WRITE}" if WRITE in scopes else READ,
        created_at=now, expires_at=now + timedelta(days=expires_in_days) if expires_in_days else None)
    db.session.add(token)
    _tell_the_owner(user, token)
    db.session.commit()  # the token and its notice (outbox) together
    audit.record("personal_token_created", user=user, details=_details(token))
    return token, text


def _tell_the_owner(user, token):
    """E-mail the owner what was created, from where and when: name, prefix, scopes, expiry; never the token."""
    send_template(user.email, "personal_token_created",
                  lazy_gettext("A personal access token was created for your Trazo account"),
                  name=token.name, prefix=token.prefix, created_at=token.created_at, expires_at=token.expires_at,
                  scopes=lazy_gettext("read and write") if can_write(token) else lazy_gettext("read only"),
                  address=client_address() if has_request_context() else lazy_gettext("unknown"))


def owned(user):
    return db.session.scalars(select(PersonalAccessToken).where(PersonalAccessToken.user_id == user.id)
                              .order_by(PersonalAccessToken.created_at.desc(), PersonalAccessToken.id)).all()


def revoke(user, token_id):
    token = db.session.scalar(select(PersonalAccessToken).where(PersonalAccessToken.id == token_id,
                                                                PersonalAccessToken.user_id == user.id))
    if token is None:
        raise NotFound(_("Token not found"))
    details = _details(token)
    db.session.delete(token)
    db.session.commit()
    audit.record("personal_token_revoked", user=user, details=details)


def revoke_all(user):
    """Delete every token of `user` in the caller's transaction; how many there were."""
    return db.session.execute(delete(PersonalAccessToken).where(PersonalAccessToken.user_id == user.id)).rowcount


def find(text):
    """(token, user) for a token that exists and has not expired, else None: one statement."""
    row = db.session.execute(
        select(PersonalAccessToken, User).join(User, User.id == PersonalAccessToken.user_id)
        .where(PersonalAccessToken.token_hash == digest(text))).first()
    if row is None or (row[0].expires_at is not None and row[0].expires_at <= utcnow()):
        return None
    return row[0], row[1]


def can_write(token):
    return WRITE in token.scopes.split()


def note_use(token, user, address):
    """Record a use. last_used_at moves at most once every USE_RECORD_SECONDS; an address that is not
    among the token's last SEEN_ADDRESSES ones is recorded at once, and the audit log gets it. Committed
    at once: it runs before the view, whose own work starts afterwards."""
    now = utcnow()
    seen = list(token.seen_addresses or [])
    new_address = address not in seen
    if not new_address and token.last_used_at is not None and \
            now - token.last_used_at < timedelta(seconds=USE_RECORD_SECONDS):
        return
    if new_address:
        seen = (seen + [address])[-SEEN_ADDRESSES:]
    db.session.execute(update(PersonalAccessToken).where(PersonalAccessToken.id == token.id)
                       .values(last_used_at=now, last_used_address=address, seen_addresses=seen))
    db.session.commit()
    if new_address:
        audit.record("personal_token_new_address", user=user, details=_details(token))


def _details(token):
    return {"token_id": token.id, "name": token.name, "prefix": token.prefix}

