"""What users allow OAuth clients to do (docs/oauth-server.md): clients, grants (connected apps), authorization
codes and token families, kept as SHA-256 digests. api/oauth2 speaks the protocol with authlib; the MCP endpoint
reads access tokens through `find_access`.

A grant is one authorization: its code, then the access and refresh tokens issued from it and from each rotation
of the refresh token. A reused code or refresh token, a disconnect, a password change or reset revoke the grant and
with it every token of the family."""
import secrets
from datetime import timedelta

from flask import current_app
from sqlalchemy import select, update

from ...extensions import db
from ...models import User
from ...models.base import new_id, utcnow
from ...models.oauth_server import OAuth2Client, OAuth2Code, OAuth2Grant, OAuth2Token
from ..hashing import digest
from . import audit
from .personal_tokens import READ, WRITE

ACCESS_PREFIX, REFRESH_PREFIX, CODE_PREFIX = "tzo_", "tzr_", "tzc_"
SECRET_BYTES = 32
SCOPES = (READ, WRITE)
CODE_SECONDS = 5 * 60
MAX_ACCESS_SECONDS = 3600 - 1  # access tokens live under an hour whatever the setting says


def looks_like_access_token(text):
    return text.startswith(ACCESS_PREFIX)


def new_secret(prefix):
    return prefix + secrets.token_urlsafe(SECRET_BYTES)


def normalized_scope(scope):
    """"read" or "read write": write implies read; unknown words are dropped (authlib refused them already)."""
    words = set((scope or READ).split())
    return f"{READ} {WRITE}" if WRITE in words else READ


def access_seconds():
    return min(current_app.config["OAUTH2_ACCESS_TOKEN_SECONDS"], MAX_ACCESS_SECONDS)


# -- clients ---------------------------------------------------------------------------------------

def find_client(client_id):
    return db.session.scalar(select(OAuth2Client).where(OAuth2Client.client_id == client_id))


def register_client(client_id, name, redirect_uris, client_uri=None, address=None, metadata_document=False):
    """Store a client (dynamic registration, or the copy of a metadata document); commits."""
    client = OAuth2Client(id=new_id(), client_id=client_id, client_name=name, redirect_uris=list(redirect_uris),
                          client_uri=client_uri, registered_address=address, metadata_document=metadata_document,
                          created_at=utcnow(), fetched_at=utcnow() if metadata_document else None)
    db.session.add(client)
    db.session.commit()
    return client


def refresh_client(client, name, redirect_uris, client_uri=None):
    """A metadata document fetched again: its copy replaced; commits."""
    client.client_name, client.redirect_uris, client.client_uri = name, list(redirect_uris), client_uri
    client.fetched_at = utcnow()
    db.session.commit()
    return client


# -- codes ----------------------------------------------------------------------------------------

def issue_code(text, client, user, redirect_uri, scope, resource, challenge, method):
    """A new grant and its authorization code `text` (its digest kept); the consent audited; commits."""
    now = utcnow()
    grant = OAuth2Grant(id=new_id(), user_id=user.id, client_id=client.id, scope=normalized_scope(scope),
                        resource=resource, created_at=now)
    code = OAuth2Code(id=new_id(), code_hash=digest(text), grant_id=grant.id, redirect_uri=redirect_uri,
                      scope=grant.scope, code_challenge=challenge, code_challenge_method=method, created_at=now,
                      expires_at=now + timedelta(seconds=CODE_SECONDS))
    db.session.add(grant)
    db.session.flush()  # no relationship orders the two inserts
    db.session.add(code)
    db.session.commit()
    audit.record("oauth_consent_given", user=user, details=_details(grant, client))


def _with_grant(model, hash_column, text, client):
    """(the row of `model` whose `hash_column` is the digest of `text`, its grant) when the grant is
    `client`'s, in one statement; None otherwise."""
    row = db.session.execute(select(model, OAuth2Grant).join(OAuth2Grant, OAuth2Grant.id == model.grant_id)
                             .where(hash_column == digest(text))).first()
    return None if row is None or row[1].client_id != client.id else tuple(row)


def find_code(text, client):
    """(code, grant) of an unused, unexpired code of `client`; None otherwise. A code used before revokes its
    grant: whoever presents it again may have stolen it (RFC 6749 §4.1.2)."""
    found = _with_grant(OAuth2Code, OAuth2Code.code_hash, text, client)
    if found is None:
        return None
    code, grant = found
    if code.used_at is not None:
        revoke_grant(grant, "code_reused")
        return None
    if code.expires_at <= utcnow() or grant.revoked_at is not None:
        return None
    return code, grant


def _spend_once(column, row_id, grant, reuse):
    """Stamp `column` (a code's used_at, a refresh token's rotated_at) of the row `row_id` now, in the caller's
    transaction: True, or False when another request stamped it first, which is a reuse (`reuse`, the audit
    reason): the grant is revoked."""
    model = column.class_
    spent = db.session.execute(update(model).where(model.id == row_id, column.is_(None)).values({column: utcnow()}))
    if spent.rowcount == 1:
        return True
    db.session.rollback()
    revoke_grant(grant, reuse)
    return False


def use_code(code, grant):
    """Mark a code used, in the caller's transaction (with the tokens it gives): True, or False when another
    request used it first, which is a reuse: the grant is revoked."""
    return _spend_once(OAuth2Code.used_at, code.id, grant, "code_reused")


# -- tokens ----------------------------------------------------------------------------------------

def save_tokens(grant, access_token, refresh_token, scope, expires_in):
    """Store the digests of a new pair of `grant`'s family and commit (with a code's use or the rotation before)."""
    now = utcnow()
    refresh_days = current_app.config["OAUTH2_REFRESH_TOKEN_DAYS"]
    token = OAuth2Token(id=new_id(), grant_id=grant.id, access_token_hash=digest(access_token),
                        refresh_token_hash=digest(refresh_token) if refresh_token else None,
                        scope=normalized_scope(scope), issued_at=now,
                        access_expires_at=now + timedelta(seconds=expires_in),
                        refresh_expires_at=now + timedelta(days=refresh_days) if refresh_token else None)
    grant.last_used_at = now
    db.session.add(token)
    db.session.commit()
    user = db.session.get(User, grant.user_id)
    audit.record("oauth_token_issued", user=user, details={"grant_id": grant.id, "token_id": token.id,
                                                           "scope": token.scope})
    return token


def find_refresh(text, client):
    """(token, grant) of a refresh token of `client` that may be used; a rotated one presented again revokes
    the grant (its family); None otherwise."""
    found = _with_grant(OAuth2Token, OAuth2Token.refresh_token_hash, text, client)
    if found is None:
        return None
    token, grant = found
    if token.rotated_at is not None:
        revoke_grant(grant, "refresh_token_reused")
        return None
    if token.revoked_at is not None or grant.revoked_at is not None or token.refresh_expires_at <= utcnow():
        return None
    return token, grant


def rotate(token, grant):
    """The refresh token was used: it never works again (committed with the next pair). False when another
    request rotated it first, which is a reuse: the family is revoked."""
    return _spend_once(OAuth2Token.rotated_at, token.id, grant, "refresh_token_reused")


def find_access(text):
    """(token, grant, user) of a live access token of an active user, else None: one statement."""
    row = db.session.execute(
        select(OAuth2Token, OAuth2Grant, User).join(OAuth2Grant, OAuth2Grant.id == OAuth2Token.grant_id)
        .join(User, User.id == OAuth2Grant.user_id).where(OAuth2Token.access_token_hash == digest(text))).first()
    if row is None:
        return None
    token, grant, user = row
    if token.revoked_at is not None or grant.revoked_at is not None or token.access_expires_at <= utcnow():
        return None
    if not user.is_active:
        return None
    return token, grant, user


def find_any(text, client):
    """(token, grant) of an access or refresh token of `client` (revocation, RFC 7009), else None."""
    hashed = digest(text)
    row = db.session.execute(
        select(OAuth2Token, OAuth2Grant).join(OAuth2Grant, OAuth2Grant.id == OAuth2Token.grant_id)
        .where((OAuth2Token.access_token_hash == hashed) | (OAuth2Token.refresh_token_hash == hashed))).first()
    if row is None or row[1].client_id != client.id:
        return None
    return row[0], row[1], row[0].refresh_token_hash == hashed


def revoke_token(token, grant, refresh):
    """RFC 7009: an access token alone; a refresh token with its whole grant. Commits and audits."""
    if refresh:
        revoke_grant(grant, "revoked_by_client")
        return
    token.revoked_at = token.revoked_at or utcnow()
    db.session.commit()
    audit.record("oauth_token_revoked", user=db.session.get(User, grant.user_id),
                 details={"grant_id": grant.id, "token_id": token.id, "reason": "revoked_by_client"})


def revoke_grant(grant, reason):
    """End a grant and every token of its family; commits and audits."""
    now = utcnow()
    grant.revoked_at = grant.revoked_at or now
    db.session.execute(update(OAuth2Token).where(OAuth2Token.grant_id == grant.id, OAuth2Token.revoked_at.is_(None))
                       .values(revoked_at=now))
    db.session.commit()
    audit.record("oauth_grant_revoked", user=db.session.get(User, grant.user_id),
                 details={"grant_id": grant.id, "reason": reason})


def revoke_all(user):
    """Revoke every grant of `user` and their tokens in the caller's transaction (a password change or reset);
    how many grants were live."""
    now = utcnow()
    live = select(OAuth2Grant.id).where(OAuth2Grant.user_id == user.id, OAuth2Grant.revoked_at.is_(None))
    ids = list(db.session.scalars(live))
    if ids:
        db.session.execute(update(OAuth2Token).where(OAuth2Token.grant_id.in_(ids), OAuth2Token.revoked_at.is_(None))
                           .values(revoked_at=now))
        db.session.execute(update(OAuth2Grant).where(OAuth2Grant.id.in_(ids)).values(revoked_at=now))
    return len(ids)


# -- connected apps ---------------------------------------------------------------------------------

def connected_apps(user):
    """The live grants of `user`, newest first, with their clients."""
    return db.session.execute(
        select(OAuth2Grant, OAuth2Client).join(OAuth2Client, OAuth2Client.id == OAuth2Grant.client_id)
        .where(OAuth2Grant.user_id == user.id, OAuth2Grant.revoked_at.is_(None))
        .order_by(OAuth2Grant.created_at.desc(), OAuth2Grant.id)).all()


def owned_grant(user, grant_id):
    return db.session.scalar(select(OAuth2Grant).where(OAuth2Grant.id == grant_id, OAuth2Grant.user_id == user.id,
                                                       OAuth2Grant.revoked_at.is_(None)))


def _details(grant, client):
    return {"grant_id": grant.id, "client_id": client.client_id, "client_name": client.client_name,
            "scope": grant.scope}
