"""Sensitive changes (MFA settings, recovery codes, deleting the account) need the current password or a
recent sign-in; wrong current passwords are counted per account across every route that asks for one."""
import re

import jwt as pyjwt
import pyotp
import pytest

from ...helpers import NEW_PASSWORD, PASSWORD, error_detail

WRONG = "Wrong-Passw0rd!"
SIGN_IN_AGAIN = "Please sign in again to confirm this change."
SENSITIVE = [
    ("POST", "/mfa/setup-totp", {}),
    ("POST", "/mfa/enable-totp", {"code": "123456"}),
    ("POST", "/mfa/enable-email", {}),
    ("POST", "/mfa/verify-email-activation", {"code": "123456"}),
    ("POST", "/mfa/disable", {"method": "totp"}),
    ("PUT", "/mfa/default-method", {"method": "totp"}),
    ("POST", "/mfa/regenerate-recovery-codes", {}),
    ("DELETE", "/users/me", {"confirmation_phrase": "delete me"}),
]


def _resigned(app, token, change):
    """The same access token with its claims changed, signed with the application's key."""
    claims = pyjwt.decode(token, options={"verify_signature": False})
    change(claims)
    return pyjwt.encode(claims, app.config["JWT_SECRET_KEY"], algorithm="HS256")


def _signed_in_long_ago(app, token):
    return _resigned(app, token, lambda claims: claims.update(auth_time=claims["auth_time"] - 3600))


def _issued_before_the_claim(app, token):
    return _resigned(app, token, lambda claims: claims.pop("auth_time"))


def _totp_on(user):
    secret = user.post("/mfa/setup-totp").json["secret_key"]
    response = user.post("/mfa/enable-totp", json={"code": pyotp.TOTP(secret).now()})
    assert response.status_code == 200, response.json
    return secret


@pytest.mark.parametrize(("method", "path", "body"), SENSITIVE)
def test_a_sensitive_change_with_an_old_sign_in_and_no_password_is_refused(app, user, method, path, body):
    _totp_on(user)
    old = _signed_in_long_ago(app, user.token)
    assert error_detail(user.request(method, path, json=body, token=old), 403) == SIGN_IN_AGAIN
    assert error_detail(user.request(method, path, json=body, token=old, lang="es"), 403) == \
        "Inicie sesión de nuevo para confirmar este cambio."
    unmarked = _issued_before_the_claim(app, user.token)
    assert error_detail(user.request(method, path, json=body, token=unmarked), 403) == SIGN_IN_AGAIN
    assert user.get("/mfa/status").json["methods"] == ["totp"]
    assert user.get("/users/me", token=old).status_code == 200


@pytest.mark.parametrize(("method", "path", "body"), SENSITIVE)
def test_a_wrong_password_is_refused_even_after_a_recent_sign_in(app, user, method, path, body):
    _totp_on(user)
    wrong = body | {"password": WRONG}
    assert error_detail(user.request(method, path, json=wrong), 403) == "Password is incorrect"
    old = _signed_in_long_ago(app, user.token)
    assert error_detail(user.request(method, path, json=wrong, token=old), 403) == "Password is incorrect"
    assert user.get("/mfa/status").json["methods"] == ["totp"]


def _mailed_code(smtp_sink, address):
    return re.search(r"\b(\d{6})\b", smtp_sink.wait_for(address)["text"]).group(1)


def _every_sensitive_change(user, smtp_sink, token, password=None):
    """The browser client's journey through every sensitive route, each call answered 200."""
    proof = {"password": password} if password else {}

    def ok(method, path, body=None):
        response = user.request(method, path, json={**(body or {}), **proof}, token=token)
        assert response.status_code == 200, (path, response.json)
        return response.json

    secret = ok("POST", "/mfa/setup-totp")["secret_key"]
    assert ok("POST", "/mfa/enable-totp", {"code": pyotp.TOTP(secret).now()})["codes"]
    assert len(ok("POST", "/mfa/regenerate-recovery-codes")["codes"]) == 8
    smtp_sink.clear()
    ok("POST", "/mfa/enable-email")
    ok("POST", "/mfa/verify-email-activation", {"code": _mailed_code(smtp_sink, user.email), "set_as_default": False})
    ok("PUT", "/mfa/default-method", {"method": "email"})
    ok("POST", "/mfa/disable", {"method": "email"})
    ok("POST", "/mfa/disable", {"method": "totp"})
    deleted = ok("DELETE", "/users/me", {"confirmation_phrase": "delete me"})
    assert deleted == {"message": "Account deleted successfully"}


def test_after_a_recent_sign_in_every_sensitive_change_works_without_the_password(user, smtp_sink):
    _every_sensitive_change(user, smtp_sink, user.token)
    assert error_detail(user.get("/users/me"), 401) == "User not found or inactive"


def test_an_old_sign_in_with_the_right_password_is_allowed(app, user, smtp_sink):
    _every_sensitive_change(user, smtp_sink, _signed_in_long_ago(app, user.token), PASSWORD)
    assert error_detail(user.get("/users/me"), 401) == "User not found or inactive"


def test_the_recent_window_is_a_setting(app, user):
    saved = app.config["RECENT_SIGN_IN_SECONDS"]
    app.config["RECENT_SIGN_IN_SECONDS"] = 0
    try:
        assert error_detail(user.post("/mfa/setup-totp"), 403) == SIGN_IN_AGAIN
        assert user.post("/mfa/setup-totp", json={"password": PASSWORD}).status_code == 200
    finally:
        app.config["RECENT_SIGN_IN_SECONDS"] = saved
    assert user.post("/mfa/setup-totp").status_code == 200


def test_every_sign_in_and_a_password_change_mark_the_token_as_a_recent_sign_in(app, client, user):
    old = _signed_in_long_ago(app, user.token)
    changed = user.put("/users/change-password", json={"current_password": PASSWORD, "new_password": NEW_PASSWORD},
                       token=old)
    assert changed.status_code == 200, changed.json
    assert user.post("/mfa/setup-totp", token=changed.json["access_token"]).status_code == 200
    signed_in = client.post("/users/login", json={"email": user.email, "password": NEW_PASSWORD})
    assert user.post("/mfa/setup-totp", token=signed_in.json["access_token"]).status_code == 200


# -- wrong current passwords are counted per account -----------------------------------

def test_forty_wrong_current_passwords_lock_the_account_and_then_the_right_one_is_refused(user):
    statuses = [user.put("/users/change-password", json={"current_password": WRONG,
                                                         "new_password": NEW_PASSWORD}).status_code
                for _attempt in range(40)]
    assert statuses == [400] * 5 + [429] * 35
    right = user.put("/users/change-password", json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert error_detail(right, 429).startswith("Account temporarily locked after multiple failed attempts")
    assert 840 <= int(right.headers["Retry-After"]) <= 900
    assert user.get("/users/me").status_code == 200


def test_the_wrong_password_count_is_shared_by_every_route_that_checks_it(admin, user, make_user):
    _totp_on(user)
    error_detail(user.put("/users/change-password", json={"current_password": WRONG, "new_password": NEW_PASSWORD}),
                 400)
    error_detail(user.delete("/users/me", json={"confirmation_phrase": "delete me", "password": WRONG}), 403)
    error_detail(user.delete("/users/me", json={"confirmation_phrase": "delete me", "current_password": WRONG}), 403)
    error_detail(user.post("/mfa/disable", json={"method": "totp", "password": WRONG}), 403)
    error_detail(user.post("/mfa/regenerate-recovery-codes", json={"password": WRONG}), 403)
    for method, path, body in SENSITIVE:
        locked = user.request(method, path, json=body | {"password": PASSWORD}, lang="es")
        assert error_detail(locked, 429).startswith("Cuenta bloqueada temporalmente"), path
        assert int(locked.headers["Retry-After"]) > 0
    assert user.get("/mfa/status").json["methods"] == ["totp"]
    entries = admin.get("/admin/audit-log", query_string={"event": "password_check_locked"}).json["items"]
    assert [entry["user_id"] for entry in entries] == [user.id]
    bystander = make_user()
    assert bystander.put("/users/change-password", json={"current_password": PASSWORD,
                                                         "new_password": NEW_PASSWORD}).status_code == 200
