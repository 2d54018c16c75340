"""The authorization endpoint's two pages (docs/oauth-server.md, "Pages"): sign-in (the password, then the second
factor when the account has one) and consent (the client, where it sends the answer, the scopes). Server-rendered,
localized, CSRF-protected (the form's token must match the browser's own cookie, browser.py), never framed.

A request authlib refuses is answered on a page when its redirect URI is not one the client registered (never an
open redirect), else by redirecting the error to the client (RFC 6749 §4.1.2.1)."""
from urllib.parse import urlsplit

from authlib.oauth2 import OAuth2Error
from flask import current_app, make_response, redirect, render_template, request
from flask_babel import get_locale, lazy_gettext
from flask_babel import gettext as _

from ...core.accounts import factors, oauth_grants
from ...core.accounts.sign_in import checked_credentials
from ...errors import AppError
from ...extensions import db
from ...ratelimit import client_address, spend
from . import browser, second_factor, server

SCOPE_TEXTS = {
    oauth_grants.READ: lazy_gettext("Read your workspaces, projects, diagrams and comments"),
    oauth_grants.WRITE: lazy_gettext("Create and change diagrams and comments, and restore revisions"),
}


def authorize():
    """GET shows the step the browser is at; POST takes a step (sign in, second factor, allow, deny)."""
    authorization_server = server.server()
    try:
        grant = authorization_server.get_consent_grant(end_user=None)
    except OAuth2Error as error:
        return refused(authorization_server, error)
    session = browser.current()
    if request.method == "POST":
        if not session.csrf_matches(request.form.get("csrf_token")):
            return page("error.html", session, 400, message=_(
                "This form has expired or did not come from this page. Start again from your application."))
        return _step(authorization_server, grant, session, request.form.get("action"))
    return _show(grant, session)


def _show(grant, session, status=200, error=None):
    user = session.user()
    if user is not None:
        return _consent(grant, session, status, error)
    if session.pending_user() is not None:
        return page("second_factor.html", session, status, error=error)
    return page("sign_in.html", session, status, error=error)


def _step(authorization_server, grant, session, action):
    if action == "sign_in":
        return _sign_in(grant, session)
    if action == "second_factor":
        return _second_factor(grant, session)
    user = session.user()
    if user is None or action not in ("allow", "deny"):
        return _show(grant, session, 400)
    return authorization_server.create_authorization_response(grant=grant, grant_user=user if action == "allow"
                                                              else None)


def _sign_in(grant, session):
    """The password, with the API login's lockout and rate (RATE_LIMIT_LOGIN per address)."""
    email = (request.form.get("email") or "").strip().lower()
    password = request.form.get("password") or ""
    try:
        spend("LOGIN", f"ip:{client_address()}")
        user = checked_credentials(email, password)
    except AppError as refusal:
        db.session.rollback()
        return page("sign_in.html", browser.current(), refusal.status, error=refusal.detail, email=email)
    db.session.commit()  # a rehashed password
    if user.mfa_enabled and user.mfa_methods:
        if factors.TOTP not in user.mfa_methods:
            return page("sign_in.html", session, 403, email=email, error=_(
                "Your account's second factor is by e-mail: add an authenticator app to connect applications."))
        session.pending_user_id = user.id
        return _again(session)
    session.signed_in(user)
    return _again(session)


def _second_factor(grant, session):
    user = session.pending_user()
    if user is None:
        return _show(grant, session, 400)
    try:
        second_factor.check(user, request.form.get("code") or "")
    except AppError as refusal:
        db.session.rollback()
        if second_factor.locked(user):
            session.pending_user_id = None
        return page("second_factor.html", session, refusal.status, error=refusal.detail)
    session.signed_in(user)
    return _again(session)


def _again(session):
    """Back to the same authorization request with GET (the browser then shows the next step)."""
    return browser.store(redirect(request.url, 303), session)


def _consent(grant, session, status, error):
    client = grant.request.client
    redirect_uri = grant.request.payload.redirect_uri or client.get_default_redirect_uri()
    scopes = grant.request.scope.split()
    return page("consent.html", session, status, error=error, client_name=client.name,
                client_id=client.client_id, redirect_host=urlsplit(redirect_uri).netloc,
                scopes=[SCOPE_TEXTS[scope] for scope in scopes], user=session.user(),
                form_target=_origin(redirect_uri))


def refused(authorization_server, error):
    if error.redirect_uri:
        return authorization_server.handle_error_response(None, error)
    return page("error.html", browser.current(), 400, message=_(
        "This authorization request cannot be answered: %(reason)s", reason=error.description or error.error))


def _origin(uri):
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}"


def page(template, session, status=200, form_target=None, **context):
    """A page of the flow with its session cookie and headers: never framed, never cached, no referrer, forms
    posting only here (and, for the consent, to the client's redirect origin where the answer goes)."""
    body = render_template(f"oauth2/{template}", csrf_token=session.csrf, action=request.full_path.rstrip("?"),
                           service_name=current_app.config["SERVICE_NAME"], lang=str(get_locale()), **context)
    response = make_response(body, status)
    targets = " ".join(["'self'", *([form_target] if form_target else [])])
    response.headers.update({
        "Content-Security-Policy": f"default-src 'none'; style-src 'unsafe-inline'; form-action {targets}; "
                                   "frame-ancestors 'none'; base-uri 'none'",
        "X-Frame-Options": "DENY", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})
    return browser.store(response, session)
