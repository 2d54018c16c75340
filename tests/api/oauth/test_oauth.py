"""OAuth sign-in against local providers: Google's OpenID Connect shape and GitHub."""
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import jwt as pyjwt
import pytest
from joserfc.jwk import RSAKey

from trazo.extensions import db
from trazo.models import User
from trazo.models.security import OAuthState

from ...fakes.oauth import s256
from ...flows import browse_to_provider, enable_totp, oauth_sign_in, totp_code
from ...helpers import PASSWORD, error_detail, validation_errors


def _callback(client, code, state, provider, **kwargs):
    return client.post("/oauth/callback", json={"code": code, "state": state, "provider": provider}, **kwargs)


def test_providers_lists_what_is_configured(client, google, github):
    body = client.get("/oauth/providers").json
    assert [item["provider"] for item in body] == ["google", "github"]
    assert body[0] == {"provider": "google", "display_name": "Google",
                       "authorization_url": "/api/v1/oauth/authorize/google"}


def test_no_provider_configured(client):
    assert client.get("/oauth/providers").json == []
    assert error_detail(client.get("/oauth/authorize/google"), 404) == "OAuth provider not configured or inactive"
    assert error_detail(client.get("/oauth/authorize/google", lang="es"), 404) == \
        "Proveedor OAuth no configurado o inactivo"
    error_detail(client.get("/oauth/authorize/twitter"), 404)


def test_authorize_url_carries_state_pkce_and_nonce(app, client, google):
    body = client.get("/oauth/authorize/google").json
    url = urlsplit(body["authorization_url"])
    query = {key: values[0] for key, values in parse_qs(url.query).items()}
    assert f"{url.scheme}://{url.netloc}{url.path}" == google.url + google.authorize_path
    assert query["state"] == body["state"] and query["client_id"] == google.client_id
    assert query["code_challenge_method"] == "S256" and query["response_type"] == "code"
    assert query["redirect_uri"] == "http://localhost:5173/oauth/callback" and query["nonce"]
    assert "openid" in query["scope"].split()
    with app.app_context():
        saved = db.session.get(OAuthState, body["state"])
        assert saved.provider == "google" and s256(saved.code_verifier) == query["code_challenge"]
        assert timedelta(minutes=9) < saved.expires_at - saved.created_at <= timedelta(minutes=10)


def test_google_sign_in_creates_an_account(client, admin, google):
    response = oauth_sign_in(client, "google")
    assert response.status_code == 200
    assert response.json["token_type"] == "bearer" and response.json["mfa_enabled"] is False
    me = client.get("/users/me", token=response.json["access_token"]).json
    assert me["email"] == "ada@example.com" and me["full_name"] == "Ada Lovelace" and me["role"] == "user"
    assert me["can_change_password"] is False
    assert [(link["provider"], link["provider_user_id"]) for link in me["oauth_providers"]] == \
        [("google", "google-sub-1")]
    assert me["oauth_providers"][0]["linked_at"].endswith("+00:00")
    # The provider received the PKCE verifier of the challenge and our client credentials.
    token_request = google.received("POST", "/token")[0].form()
    assert token_request["client_secret"] == google.client_secret and token_request["code_verifier"]
    # Signing in again finds the same account.
    again = oauth_sign_in(client, "google")
    assert pyjwt.decode(again.json["access_token"], options={"verify_signature": False})["sub"] == me["id"]


def test_first_account_of_the_installation_becomes_admin(client, google):
    response = oauth_sign_in(client, "google")
    assert client.get("/users/me", token=response.json["access_token"]).json["role"] == "admin"


def test_github_sign_in(client, admin, github):
    start = client.get("/oauth/authorize/github").json
    query = parse_qs(urlsplit(start["authorization_url"]).query)
    assert query["redirect_uri"] == ["http://localhost:5173/oauth/callback?provider=github"]
    code, state, location = browse_to_provider(start["authorization_url"])
    assert parse_qs(urlsplit(location).query)["provider"] == ["github"]
    response = _callback(client, code, state, "github")
    assert response.status_code == 200
    me = client.get("/users/me", token=response.json["access_token"]).json
    assert me["email"] == "octo@example.com" and me["full_name"] == "Octo Cat"
    assert me["oauth_providers"][0]["provider"] == "github" and me["oauth_providers"][0]["provider_user_id"] == "4242"


def test_state_is_single_use(client, admin, google):
    start = client.get("/oauth/authorize/google").json
    code, state, _location = browse_to_provider(start["authorization_url"])
    assert _callback(client, code, state, "google").status_code == 200
    reused = _callback(client, code, state, "google", lang="es")
    assert error_detail(reused, 400) == "Token de estado OAuth inválido o expirado"
    assert error_detail(_callback(client, code, "never-issued", "google"), 400) == \
        "Invalid or expired OAuth state token"


def test_state_of_another_provider_is_refused(client, admin, google, github):
    start = client.get("/oauth/authorize/google").json
    code, state, _location = browse_to_provider(start["authorization_url"])
    assert error_detail(_callback(client, code, state, "github"), 400) == "Invalid or expired OAuth state token"
    # The state was spent by the refused attempt.
    assert error_detail(_callback(client, code, state, "google"), 400) == "Invalid or expired OAuth state token"


def test_expired_state(app, client, admin, google):
    start = client.get("/oauth/authorize/google").json
    code, state, _location = browse_to_provider(start["authorization_url"])
    with app.app_context():
        saved = db.session.get(OAuthState, state)
        saved.expires_at = saved.created_at - timedelta(seconds=1)
        db.session.commit()
    assert error_detail(_callback(client, code, state, "google"), 400) == "OAuth authentication session has expired"


def test_unverified_email_is_neither_linked_nor_created(app, client, user, google):
    google.reset(sub="attacker", email=user.email, email_verified=False, name="Mallory")
    response = oauth_sign_in(client, "google", lang="es")
    assert error_detail(response, 403) == "El proveedor OAuth no ha verificado el correo"
    assert user.get("/users/me").json["oauth_providers"] == []
    google.reset(sub="nobody", email="new@example.com", email_verified=False)
    error_detail(oauth_sign_in(client, "google"), 403)
    with app.app_context():
        assert db.session.query(User).filter_by(email="new@example.com").count() == 0


def test_verified_email_links_an_existing_password_account(client, user, google):
    google.reset(sub="google-77", email=user.email, email_verified=True)
    response = oauth_sign_in(client, "google")
    assert response.status_code == 200
    me = user.get("/users/me").json
    assert me["oauth_providers"][0]["provider_user_id"] == "google-77" and me["can_change_password"] is True
    assert client.post("/users/login", json={"email": user.email, "password": PASSWORD}).status_code == 200


def test_github_unverified_primary_email(client, admin, github):
    github.reset(id=7, login="ghost", emails=[{"email": "ghost@example.com", "primary": True, "verified": False}])
    assert error_detail(oauth_sign_in(client, "github"), 403) == "Email not verified by OAuth provider"


def test_mfa_account_gets_the_mfa_challenge(client, user, google):
    secret, _codes = enable_totp(user)
    google.reset(sub="google-mfa", email=user.email, email_verified=True)
    response = oauth_sign_in(client, "google")
    assert response.status_code == 200
    body = response.json
    assert body["mfa_required"] is True and "access_token" not in body and body["available_methods"] == ["totp"]
    error_detail(client.get("/users/me", token=body["mfa_token"]), 401)
    verified = client.post("/mfa/verify", json={"mfa_token": body["mfa_token"], "code": totp_code(secret, 1)})
    assert verified.status_code == 200


def test_inactive_account_cannot_sign_in(app, client, user, google):
    google.reset(sub="google-inactive", email=user.email, email_verified=True)
    with app.app_context():
        db.session.get(User, user.id).is_active = False
        db.session.commit()
    assert error_detail(oauth_sign_in(client, "google"), 403) == "Inactive user"


def test_a_refused_code_is_401(client, admin, google):
    start = client.get("/oauth/authorize/google").json
    _code, state, _location = browse_to_provider(start["authorization_url"])
    assert error_detail(_callback(client, "forged-code", state, "google"), 401) == \
        "Failed to exchange authorization code"


def test_an_id_token_signed_by_another_key_is_refused(client, admin, google):
    google.signing_key = RSAKey.generate_key(2048, auto_kid=True)
    error_detail(oauth_sign_in(client, "google"), 401)


def test_provider_down_is_502(client, admin, github, settings):
    start = client.get("/oauth/authorize/github").json
    code, state, _location = browse_to_provider(start["authorization_url"])
    settings(GITHUB_API_BASE="http://127.0.0.1:9")
    assert error_detail(_callback(client, code, state, "github"), 502) == \
        "Failed to retrieve user information from provider"


def test_callback_validation(client, google):
    validation_errors(client.post("/oauth/callback", json={"state": "s", "provider": "google"}), "code")
    validation_errors(client.post("/oauth/callback", json={"code": "c", "provider": "google"}), "state")
    validation_errors(client.post("/oauth/callback", json={"code": "c", "state": "s", "provider": "x"}), "provider")


def test_callback_is_limited_per_address(client, google):
    for _attempt in range(10):
        error_detail(_callback(client, "c", "s", "google"), 400)
    limited = _callback(client, "c", "s", "google")
    error_detail(limited, 429)
    assert int(limited.headers["Retry-After"]) > 0


@pytest.mark.parametrize("provider", ["google", "github"])
def test_admin_vendor_configures_a_provider(client, admin, provider, google_server, github_server):
    server = google_server if provider == "google" else github_server
    server.reset(sub="v-1", email="vendor@example.com", email_verified=True, id=99, login="v",
                 emails=[{"email": "vendor@example.com", "primary": True, "verified": True}])
    config = {"client_id": server.client_id, "client_secret": server.client_secret,
              "redirect_uri": "http://localhost:5173/oauth/callback"}
    config.update({"metadata_url": server.metadata_url} if provider == "google"
                  else {"oauth_base": server.url, "api_base": server.url})
    vendor = admin.post("/admin/integrations/vendors", json={"vendor_type": provider, "category": "oauth",
                                                             "config": config}).json
    assert client.get("/oauth/providers").json == []
    tested = admin.post(f"/admin/integrations/vendors/{vendor['id']}/test").json
    assert tested["success"] is True, tested
    assert admin.put(f"/admin/integrations/vendors/{vendor['id']}/set-default").json["is_active_oauth"] is True
    assert [item["provider"] for item in client.get("/oauth/providers").json] == [provider]
    response = oauth_sign_in(client, provider)
    assert response.status_code == 200, response.json
    assert client.get("/users/me", token=response.json["access_token"]).json["email"] == "vendor@example.com"


def test_authorize_is_limited_per_address(client, google):
    for _attempt in range(10):
        assert client.get("/oauth/authorize/google").status_code == 200
    limited = client.get("/oauth/authorize/google", lang="es")
    assert "Demasiadas" in error_detail(limited, 429) and int(limited.headers["Retry-After"]) > 0


def test_discovery_and_keys_are_cached_and_rotation_is_followed(client, admin, google):
    assert oauth_sign_in(client, "google").status_code == 200
    google.requests.clear()
    assert oauth_sign_in(client, "google").status_code == 200
    assert google.received("GET", "/.well-known/openid-configuration") == []
    assert google.received("GET", "/jwks") == []
    # The provider rotates its key: the unknown key id makes us fetch the key set once more.
    google.key = google.signing_key = RSAKey.generate_key(2048, auto_kid=True)
    assert oauth_sign_in(client, "google").status_code == 200
    assert len(google.received("GET", "/jwks")) == 1


def test_oauth_events_are_audited(client, admin, google):
    oauth_sign_in(client, "google")
    google.reset(sub="someone", email="someone@example.com", email_verified=False)
    oauth_sign_in(client, "google")
    events = admin.get("/admin/audit-log", query_string={"page_size": 100}).json["items"]
    names = [entry["event"] for entry in events]
    assert names.count("oauth_account_created") == 1 and names.count("oauth_login_success") == 1
    failed = next(entry for entry in events if entry["event"] == "oauth_login_failed")
    assert failed["user_email"] == "someone@example.com" and failed["details"] == {
        "provider": "google", "reason": "email_not_verified"}
