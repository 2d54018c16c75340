"""The browser session of the sign-in and consent pages (docs/oauth-server.md, "Pages"): one signed cookie of its
own, `trazo_oauth2`, HttpOnly, Secure over https, SameSite=Lax, scoped to /oauth2 and short-lived
(OAUTH2_SESSION_SECONDS). It holds the page's CSRF token (every form posts it back), and once the user signed in
their id and the password epoch it was checked under (a password change ends it), or the half-done sign-in
waiting for its second factor. The SPA's API stays cookie-less."""
import hmac
import secrets
import time
from dataclasses import dataclass

from flask import current_app, request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from ...core.accounts.session_tokens import unix_seconds
from ...extensions import db
from ...models import User
from .places import COOKIE_PATH

COOKIE = "trazo_oauth2"
SALT = "trazo.oauth2.browser"


@dataclass
class Session:
    csrf: str
    user_id: str | None = None
    password_epoch: int | None = None
    pending_user_id: str | None = None  # signed in with the password, waiting for the second factor

    def user(self):
        """The signed-in user, while active and their password unchanged; else None."""
        if self.user_id is None:
            return None
        user = db.session.get(User, self.user_id)
        if user is None or not user.is_active or self.password_epoch != unix_seconds(user.password_changed_at):
            return None
        return user

    def pending_user(self):
        user = db.session.get(User, self.pending_user_id) if self.pending_user_id else None
        return user if user is not None and user.is_active else None

    def signed_in(self, user):
        self.user_id, self.password_epoch, self.pending_user_id = user.id, unix_seconds(user.password_changed_at), None
        self.csrf = secrets.token_urlsafe(32)  # a new token once signed in

    def csrf_matches(self, sent):
        return isinstance(sent, str) and hmac.compare_digest(sent.encode(), self.csrf.encode())


def _serializer():
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=SALT)


def lifetime():
    return current_app.config["OAUTH2_SESSION_SECONDS"]


def current():
    """The request's session, else a new one (not yet sent)."""
    raw = request.cookies.get(COOKIE)
    if raw:
        try:
            data = _serializer().loads(raw, max_age=lifetime())
        except BadSignature:
            data = None
        if isinstance(data, dict) and isinstance(data.get("csrf"), str):
            return Session(data["csrf"], data.get("uid"), data.get("pca"), data.get("pending"))
    return Session(secrets.token_urlsafe(32))


def store(response, session):
    """Send `session` with `response` (a new lifetime from now)."""
    value = _serializer().dumps({"csrf": session.csrf, "uid": session.user_id, "pca": session.password_epoch,
                                 "pending": session.pending_user_id, "at": int(time.time())})
    response.set_cookie(COOKIE, value, max_age=lifetime(), path=COOKIE_PATH, secure=request.is_secure,
                        httponly=True, samesite="Lax")
    return response
