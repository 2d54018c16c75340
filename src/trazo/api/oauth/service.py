"""OAuth sign-in: the authorization URL (state + PKCE + nonce) and the callback."""
import secrets
from datetime import timedelta

from authlib.common.urls import add_params_to_uri
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from flask import current_app
from flask_babel import gettext as _
from sqlalchemy import delete, select

from ...core.accounts.oauth_providers import configured_providers, provider
from ...core.accounts.sign_in import sign_in
from ...errors import BadRequest, Unauthorized, UpstreamError
from ...extensions import db
from ...models.base import utcnow
from ...models.security import OAuthState
from ...services.oauth import clients
from ...services.oauth.providers import DISPLAY_NAMES, GOOGLE
from .accounts import refuse, resolve_account

STATE_LIFETIME = timedelta(minutes=10)
# Expired states are kept a while so a late callback hears "expired" rather than "invalid".
STATE_GRACE = timedelta(hours=1)


def providers():
    prefix = current_app.config["API_V1_PREFIX"]
    return [{"provider": name, "display_name": DISPLAY_NAMES[name],
             "authorization_url": f"{prefix}/oauth/authorize/{name}"} for name in configured_providers()]


def authorize(name):
    """A provider URL with a fresh single-use state, a PKCE challenge and (OpenID) a nonce."""
    chosen = provider(name)
    db.session.close()  # no database connection is held while the provider is called
    state, verifier = secrets.token_urlsafe(32), secrets.token_urlsafe(64)
    params = {"response_type": "code", "client_id": chosen.client_id, "redirect_uri": chosen.redirect_uri,
              "scope": chosen.scope, "state": state, "code_challenge": create_s256_code_challenge(verifier),
              "code_challenge_method": "S256"}
    nonce = None
    if name == GOOGLE:
        try:
            endpoint = clients.discovery(chosen.metadata_url, chosen.timeout)["authorization_endpoint"]
        except (clients.ProviderUnavailable, KeyError) as exc:
            raise UpstreamError(_("The OAuth provider is unavailable")) from exc
        nonce = secrets.token_urlsafe(16)
        params.update(nonce=nonce, prompt="select_account")
    else:
        endpoint = f"{chosen.oauth_base}/login/oauth/authorize"
    now = utcnow()
    db.session.execute(delete(OAuthState).where(OAuthState.expires_at < now - STATE_GRACE))
    db.session.add(OAuthState(state=state, provider=name, code_verifier=verifier, nonce=nonce,
                              redirect_uri=chosen.redirect_uri, created_at=now, expires_at=now + STATE_LIFETIME))
    db.session.commit()
    return {"authorization_url": add_params_to_uri(endpoint, list(params.items())), "state": state}


def _consume_state(state, name):
    """The saved request of `state`, deleted in the same step: of two concurrent callbacks one wins."""
    saved = db.session.execute(select(OAuthState.provider, OAuthState.code_verifier, OAuthState.nonce,
                                      OAuthState.redirect_uri, OAuthState.expires_at)
                               .where(OAuthState.state == state)).first()
    if saved is None:
        raise BadRequest(_("Invalid or expired OAuth state token"))
    consumed = db.session.execute(delete(OAuthState).where(OAuthState.state == state)).rowcount == 1
    db.session.commit()
    if not consumed or saved.provider != name:
        raise BadRequest(_("Invalid or expired OAuth state token"))
    if saved.expires_at <= utcnow():
        raise BadRequest(_("OAuth authentication session has expired"))
    return saved


def _identity(chosen, saved, code):
    try:
        if chosen.name == GOOGLE:
            token_url = clients.discovery(chosen.metadata_url, chosen.timeout)["token_endpoint"]
        else:
            token_url = f"{chosen.oauth_base}/login/oauth/access_token"
        tokens = clients.exchange_code(token_url, chosen.client_id, chosen.client_secret, code,
                                       saved.redirect_uri, saved.code_verifier, chosen.timeout)
        if chosen.name == GOOGLE:
            return clients.google_identity(chosen, tokens, saved.nonce)
        return clients.github_identity(chosen, tokens)
    except clients.ProviderRefused as exc:
        refuse(chosen.name, None, str(exc)[:500], Unauthorized(_("Failed to exchange authorization code")))
    except (clients.ProviderUnavailable, KeyError) as exc:
        refuse(chosen.name, None, str(exc)[:500],
               UpstreamError(_("Failed to retrieve user information from provider")))


def callback(code, state, name):
    """Finish the provider's redirect: an access token, or an MFA challenge for MFA accounts."""
    saved = _consume_state(state, name)
    chosen = provider(name)
    db.session.close()  # no database connection is held while the provider is called
    user = resolve_account(_identity(chosen, saved, code))
    return sign_in(user, "oauth_login_success", {"provider": name})
