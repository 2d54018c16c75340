"""Attacks on the tokens (core/accounts/session_tokens.py, auth.py): every forged, misused or stale token is
refused with the usual 401s, an MFA login token and an access token never pass for each other, and a request's token is
checked once."""
import hashlib
import hmac
import time

import jwt as pyjwt
import pytest
from flask_jwt_extended import create_refresh_token

from trazo.core import credentials
from trazo.core.accounts import session_tokens as tokens
from trazo.extensions import db
from trazo.models import User

from ...helpers import create_project, error_detail

INVALID = "Could not validate credentials"
MFA_REFUSED = "Invalid or expired MFA verification token. Please sign in again."


def _claims(token):
    return pyjwt.decode(token, options={"verify_signature": False})


def _signed(app, claims, key=None, algorithm="HS256"):
    return pyjwt.encode(claims, key if key is not None else app.config["JWT_SECRET_KEY"], algorithm=algorithm)


def _mfa_key(app):
    secret = app.config["JWT_SECRET_KEY"].encode()
    return hmac.new(secret, b"trazo-mfa-login-token", hashlib.sha256).hexdigest()


@pytest.fixture
def mfa_token(app, user):
    with app.test_request_context():
        return tokens.issue_mfa_token(db.session.get(User, user.id), "login-1", ["totp"], "totp")


def _verify_mfa(client, token, lang=None):
    return client.post("/mfa/verify", json={"mfa_token": token, "code": "123456"}, lang=lang)


# -- bearer tokens ---------------------------------------------------------------------------

def test_missing_token_is_not_authenticated_in_both_languages(client):
    response = client.get("/users/me")
    assert error_detail(response, 401) == "Not authenticated"
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert error_detail(client.get("/users/me", lang="es"), 401) == "No autenticado"


def test_an_mfa_token_is_never_a_bearer_token(app, user, mfa_token):
    for token in (mfa_token, _signed(app, _claims(mfa_token)), _signed(app, _claims(mfa_token), _mfa_key(app))):
        response = user.get("/users/me", token=token)
        assert error_detail(response, 401) == INVALID
        assert response.headers["WWW-Authenticate"] == "Bearer"
    # Expired, it is still refused for what it is, not for its age.
    expired = _signed(app, {**_claims(mfa_token), "exp": int(time.time()) - 60}, _mfa_key(app))
    assert error_detail(user.get("/users/me", token=expired), 401) == INVALID


def test_an_access_token_is_never_an_mfa_token(app, client, user):
    forged = {**_claims(user.token), "lid": "login-1", "methods": ["totp"], "default_method": "totp"}
    candidates = (user.token, _signed(app, forged), _signed(app, forged, _mfa_key(app)),
                  _signed(app, {**forged, "type": "mfa"}))
    for token in candidates:
        with app.test_request_context():
            assert tokens.read_mfa_token(token) is None
        assert error_detail(_verify_mfa(client, token), 401) == MFA_REFUSED


def test_an_mfa_token_needs_its_type_and_login(app, mfa_token):
    with app.test_request_context():
        assert tokens.read_mfa_token(mfa_token)["lid"] == "login-1"
        for change in ({"lid": None}, {"exp": None}, {"type": None}):
            claims = {key: value for key, value in _claims(mfa_token).items() if key not in change}
            assert tokens.read_mfa_token(_signed(app, claims, _mfa_key(app))) is None, change


def test_unsigned_token_is_refused(app, user):
    unsigned = pyjwt.encode(_claims(user.token), None, algorithm="none")
    assert error_detail(user.get("/users/me", token=unsigned), 401) == INVALID
    with app.test_request_context():
        assert tokens.read_mfa_token(pyjwt.encode({**_claims(user.token), "type": "mfa", "lid": "x"}, None,
                                                algorithm="none")) is None


@pytest.mark.filterwarnings("ignore:The HMAC key")  # the application's key is short for HS512: that is the point
def test_token_signed_with_another_key_or_algorithm_is_refused(app, user):
    claims = _claims(user.token)
    for token in (_signed(app, claims, "another-secret-0123456789abcdef0123456789"),
                  _signed(app, claims, algorithm="HS512")):
        assert error_detail(user.get("/users/me", token=token), 401) == INVALID


def test_expired_token_says_so_in_both_languages(app, user):
    expired = _signed(app, {**_claims(user.token), "exp": int(time.time()) - 10})
    response = user.get("/users/me", token=expired)
    assert error_detail(response, 401) == "Token has expired"
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert error_detail(user.get("/users/me", token=expired, lang="es"), 401) == "El token ha expirado"


def test_tokens_missing_a_claim_are_refused(app, user):
    claims = _claims(user.token)
    for missing in ("pca", "exp", "sub", "type"):
        token = _signed(app, {key: value for key, value in claims.items() if key != missing})
        assert error_detail(user.get("/users/me", token=token), 401) == INVALID, missing
    not_a_number = _signed(app, {**claims, "pca": str(claims["pca"])})
    assert error_detail(user.get("/users/me", token=not_a_number, lang="es"), 401) == \
        "No se pudieron validar las credenciales"


def test_refresh_and_unknown_types_are_refused(app, user):
    with app.test_request_context():
        refresh = create_refresh_token(identity=user.id, additional_claims={"pca": _claims(user.token)["pca"]})
    for token in (refresh, _signed(app, {**_claims(user.token), "type": "share"})):
        assert error_detail(user.get("/users/me", token=token), 401) == INVALID


def test_garbage_and_malformed_headers(user):
    for token in ("garbage", "a.b.c", user.token[:-4]):
        assert error_detail(user.get("/users/me", token=token), 401) == INVALID
    for header, detail in (("Bearer", INVALID), (f"Token {user.token}", "Not authenticated"),
                           (f"Bearer {user.token}, Bearer {user.token}", "Not authenticated")):
        response = user.get("/users/me", token=None, headers={"Authorization": header})
        assert error_detail(response, 401) == detail, header


# -- one check per request -------------------------------------------------------------------

def test_one_check_per_request_shared_by_the_rate_limit_key(monkeypatch, app, user):
    """A valid token is checked once in the whole request (the rate-limit key and the view share it) and
    decoded once per process (core/credentials.py remembers it); any other goes once through the extension,
    which words the refusal."""
    project = create_project(user)
    with app.test_request_context():
        fresh = user.signed_in(tokens.issue_session_token(db.session.get(User, user.id)))
    decodes, extension_checks = [], []
    decode, checked = pyjwt.decode, credentials.verify_jwt_in_request

    def counted_decode(*args, **kwargs):
        decodes.append(1)
        return decode(*args, **kwargs)

    def counted_check():
        extension_checks.append(1)
        return checked()

    monkeypatch.setattr(pyjwt, "decode", counted_decode)
    monkeypatch.setattr(credentials, "verify_jwt_in_request", counted_check)
    for _request in range(2):
        response = fresh.get(f"/projects/{project['id']}/export/summary")  # per-user limit, signed-in view
        assert response.status_code == 200, response.json
        assert (len(decodes), len(extension_checks)) == (1, 0)
    assert error_detail(user.get(f"/projects/{project['id']}/export/summary", token="garbage"), 401) == INVALID
    assert len(extension_checks) == 1


def test_options_reads_no_token(user):
    project = create_project(user)
    response = user.request("OPTIONS", f"/projects/{project['id']}/export/summary")
    assert response.status_code == 200
