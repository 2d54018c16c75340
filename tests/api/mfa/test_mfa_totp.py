"""TOTP: set-up with a pending secret, the whole sign-in, replays, attempt limits, settings."""
import base64

import jwt as pyjwt

from trazo.core.accounts.session_tokens import issue_mfa_token
from trazo.extensions import db
from trazo.models import User

from ...flows import enable_totp, mfa_token, sign_in, totp_code
from ...helpers import PASSWORD, error_detail, validation_errors


def test_setup_answers_a_png_qr_and_a_pending_secret(user):
    response = user.post("/mfa/setup-totp")
    assert response.status_code == 200
    body = response.json
    assert base64.b64decode(body["qr_code_base64"]).startswith(b"\x89PNG")
    assert len(body["secret_key"]) == 32
    # Nothing is on until a code confirms the secret.
    assert user.get("/mfa/status").json == {"enabled": False, "methods": [], "default_method": None,
                                            "recovery_codes_remaining": 0}


def test_enable_totp_needs_the_pending_secret_and_a_right_code(user):
    assert error_detail(user.post("/mfa/enable-totp", json={"code": "123456"}), 400) == \
        "Run /mfa/setup-totp first to create the TOTP secret"
    secret = user.post("/mfa/setup-totp").json["secret_key"]
    wrong = f"{(int(totp_code(secret)) + 1) % 10 ** 6:06d}"
    assert error_detail(user.post("/mfa/enable-totp", json={"code": wrong}, lang="es"), 400) == "Código TOTP inválido"
    response = user.post("/mfa/enable-totp", json={"code": totp_code(secret)})
    assert response.status_code == 200
    assert response.json["message"] == "TOTP MFA enabled successfully"
    codes = response.json["codes"]
    assert len(codes) == 8 and len(set(codes)) == 8
    assert all(len(code) == 11 and code[5] == "-" and code.replace("-", "").isalnum() for code in codes)
    assert user.get("/mfa/status").json == {"enabled": True, "methods": ["totp"], "default_method": "totp",
                                            "recovery_codes_remaining": 8}


def test_enable_totp_validation(user):
    for code in ("12345", "abcdef", "1234567", None):
        validation_errors(user.post("/mfa/enable-totp", json={"code": code}), "code")
    validation_errors(user.post("/mfa/enable-totp", json={}), "code")


def test_a_new_setup_does_not_replace_the_active_secret_until_confirmed(client, user):
    secret, _codes = enable_totp(user)
    pending = user.post("/mfa/setup-totp").json["secret_key"]
    assert pending != secret
    # The active secret still signs in; the pending one does not.
    token = mfa_token(client, user.email)
    assert error_detail(client.post("/mfa/verify", json={"mfa_token": token, "code": totp_code(pending)}), 401) \
        == "Invalid MFA code"
    assert client.post("/mfa/verify", json={"mfa_token": token, "code": totp_code(secret, 1)}).status_code == 200


def test_whole_totp_sign_in(app, client, user):
    secret, _codes = enable_totp(user)
    challenge = sign_in(client, user.email)
    assert challenge.status_code == 200
    body = challenge.json
    assert body["mfa_required"] is True and "access_token" not in body
    assert body["mfa_default_method"] == "totp" and body["available_methods"] == ["totp"]

    response = client.post("/mfa/verify", json={"mfa_token": body["mfa_token"], "code": totp_code(secret, 1),
                                                "method": "totp"})
    assert response.status_code == 200
    assert response.json["token_type"] == "bearer" and "recovery_warning" not in response.json
    claims = pyjwt.decode(response.json["access_token"], app.config["JWT_SECRET_KEY"], algorithms=["HS256"])
    assert claims["exp"] - claims["iat"] == 5 * 24 * 3600
    me = client.get("/users/me", token=response.json["access_token"])
    assert me.status_code == 200 and me.json["mfa_enabled"] is True
    with app.app_context():
        assert db.session.get(User, user.id).last_login_at is not None


def test_a_replayed_totp_code_is_refused(client, user):
    secret, _codes = enable_totp(user)
    code = totp_code(secret, 1)
    first = client.post("/mfa/verify", json={"mfa_token": mfa_token(client, user.email), "code": code})
    assert first.status_code == 200
    replay = client.post("/mfa/verify", json={"mfa_token": mfa_token(client, user.email), "code": code})
    assert error_detail(replay, 401) == "Invalid MFA code"
    # The code that confirmed the secret is spent too.
    assert error_detail(client.post("/mfa/verify", json={"mfa_token": mfa_token(client, user.email),
                                                         "code": totp_code(secret)}), 401) == "Invalid MFA code"


def test_a_completed_login_cannot_be_finished_twice(client, user):
    secret, codes = enable_totp(user)
    token = mfa_token(client, user.email)
    assert client.post("/mfa/verify", json={"mfa_token": token, "code": totp_code(secret, 1)}).status_code == 200
    again = client.post("/mfa/verify", json={"mfa_token": token, "code": codes[0], "is_recovery_code": True})
    assert "expir" in error_detail(again, 401)
    assert user.get("/mfa/status").json["recovery_codes_remaining"] == 8


def test_mfa_token_is_never_a_bearer_token(client, user):
    enable_totp(user)
    token = mfa_token(client, user.email)
    for path in ("/users/me", "/mfa/status"):
        error_detail(client.get(path, token=token), 401)
    error_detail(client.post("/mfa/setup-totp", token=token), 401)


def test_expired_or_forged_mfa_token_says_expired_in_both_languages(app, client, user):
    enable_totp(user)
    with app.test_request_context():
        account = db.session.get(User, user.id)
        app.config["MFA_TOKEN_EXPIRES"] = -10
        try:
            expired = issue_mfa_token(account, "lid-1", ["totp"], "totp")
        finally:
            app.config["MFA_TOKEN_EXPIRES"] = 300
    for token in (expired, user.token, "garbage"):
        english = error_detail(client.post("/mfa/verify", json={"mfa_token": token, "code": "123456"}), 401)
        spanish = error_detail(client.post("/mfa/verify", json={"mfa_token": token, "code": "123456"},
                                           lang="es"), 401)
        assert "expir" in english.lower() and "expir" in spanish.lower()
    assert spanish == "Token de verificación MFA inválido o expirado. Inicie sesión de nuevo."


def test_five_wrong_codes_end_the_login(client, make_user, admin):
    victim = make_user(email="victim@example.com")
    secret, _codes = enable_totp(victim)
    token = mfa_token(client, victim.email)
    wrong = f"{(int(totp_code(secret)) + 5) % 10 ** 6:06d}"
    for _attempt in range(4):
        assert error_detail(client.post("/mfa/verify", json={"mfa_token": token, "code": wrong}), 401) \
            == "Invalid MFA code"
    fifth = error_detail(client.post("/mfa/verify", json={"mfa_token": token, "code": wrong}), 401)
    assert "expired after too many wrong codes" in fifth
    # Even the right code no longer finishes this login.
    assert "too many" in error_detail(client.post("/mfa/verify", json={"mfa_token": token,
                                                                       "code": totp_code(secret, 1)}), 401)
    fresh = mfa_token(client, victim.email)
    assert client.post("/mfa/verify", json={"mfa_token": fresh, "code": totp_code(secret, 1)}).status_code == 200


def test_verify_is_limited_per_address(client, user):
    for _attempt in range(10):
        error_detail(client.post("/mfa/verify", json={"mfa_token": "bad", "code": "000000"}), 401)
    limited = client.post("/mfa/verify", json={"mfa_token": "bad", "code": "000000"}, lang="es")
    assert "Demasiadas" in error_detail(limited, 429)
    assert int(limited.headers["Retry-After"]) > 0


def test_verify_validation_and_unavailable_method(client, user):
    validation_errors(client.post("/mfa/verify", json={"code": "123456"}), "mfa_token")
    validation_errors(client.post("/mfa/verify", json={"mfa_token": "x"}), "code")
    validation_errors(client.post("/mfa/verify", json={"mfa_token": "x", "code": "1", "method": "sms"}), "method")
    enable_totp(user)
    token = mfa_token(client, user.email)
    assert error_detail(client.post("/mfa/verify", json={"mfa_token": token, "code": "123456",
                                                         "method": "email"}, lang="es"), 400) == \
        "El método MFA solicitado no está activo"


def test_status_and_settings_need_a_token(client):
    for method, path in (("GET", "/mfa/status"), ("POST", "/mfa/setup-totp"), ("POST", "/mfa/enable-totp"),
                         ("POST", "/mfa/enable-email"), ("POST", "/mfa/verify-email-activation"),
                         ("POST", "/mfa/disable"), ("POST", "/mfa/regenerate-recovery-codes"),
                         ("PUT", "/mfa/default-method")):
        assert error_detail(client.request(method, path, json={}), 401) == "Not authenticated"


def test_disable_totp_checks_the_password_when_it_is_sent(client, user, smtp_sink):
    enable_totp(user)
    validation_errors(user.post("/mfa/disable", json={"password": PASSWORD}), "method")
    assert error_detail(user.post("/mfa/disable", json={"method": "totp", "password": "Wrong-Passw0rd!"}),
                        403) == "Password is incorrect"
    assert error_detail(user.post("/mfa/disable", json={"method": "email", "password": PASSWORD}), 400) == \
        "The requested MFA method is not active"
    smtp_sink.clear()
    response = user.post("/mfa/disable", json={"method": "totp", "password": PASSWORD}, lang="es")
    assert response.status_code == 200 and response.json["message"] == "Método MFA 'totp' desactivado correctamente"
    assert user.get("/mfa/status").json == {"enabled": False, "methods": [], "default_method": None,
                                            "recovery_codes_remaining": 0}
    assert "desactivada" in smtp_sink.wait_for(user.email)["subject"]
    assert sign_in(client, user.email).json["access_token"]


def test_wrong_passwords_on_sensitive_changes_are_limited(user):
    enable_totp(user)
    for _attempt in range(5):
        error_detail(user.post("/mfa/regenerate-recovery-codes", json={"password": "Wrong-Passw0rd!"}), 403)
    limited = user.post("/mfa/regenerate-recovery-codes", json={"password": PASSWORD})
    error_detail(limited, 429)
    assert int(limited.headers["Retry-After"]) > 0


def test_default_method(user, smtp_sink):
    assert error_detail(user.put("/mfa/default-method", json={"method": "totp"}), 400) == "MFA is not enabled"
    validation_errors(user.put("/mfa/default-method", json={"method": "sms"}), "method")
    enable_totp(user)
    assert error_detail(user.put("/mfa/default-method", json={"method": "email"}), 400) == \
        "The requested MFA method is not active"
    response = user.put("/mfa/default-method", json={"method": "totp"}, lang="es")
    assert response.status_code == 200
    assert response.json["message"] == "Método MFA predeterminado cambiado a 'totp'"
