"""E-mail codes through the SMTP sink: activation, sign-in, single use, resends, switching method."""
import jwt as pyjwt

from ...flows import enable_totp, end_cooldown, mailed_code, mfa_token, sign_in, totp_code
from ...helpers import error_detail, validation_errors


def _enable_email(user, smtp_sink, lang=None):
    smtp_sink.clear()
    response = user.post("/mfa/enable-email", lang=lang)
    assert response.status_code == 200, response.json
    code = mailed_code(smtp_sink, user.email)
    activated = user.post("/mfa/verify-email-activation", json={"code": code})
    assert activated.status_code == 200, activated.json
    smtp_sink.clear()
    return activated.json


def _login_id(token):
    return pyjwt.decode(token, options={"verify_signature": False})["lid"]


def test_activation_by_e_mailed_code(user, smtp_sink):
    response = user.post("/mfa/enable-email", lang="es")
    assert response.status_code == 200 and response.json["message"] == "Código de verificación enviado a su correo"
    mail = smtp_sink.wait_for(user.email)
    assert mail["subject"] == "Tu código de verificación de Trazo"
    assert "activar los códigos" in mail["text"] and "10 minutos" in mail["html"]
    code = mailed_code(smtp_sink, user.email)
    wrong = f"{(int(code) + 1) % 10 ** 6:06d}"
    assert error_detail(user.post("/mfa/verify-email-activation", json={"code": wrong}), 400) == \
        "Invalid verification code"
    activated = user.post("/mfa/verify-email-activation", json={"code": code})
    assert activated.status_code == 200
    assert activated.json["message"] == "E-mail MFA enabled successfully" and len(activated.json["codes"]) == 8
    assert user.get("/mfa/status").json == {"enabled": True, "methods": ["email"], "default_method": "email",
                                            "recovery_codes_remaining": 8}
    assert "Two-step verification turned on" in [m["subject"] for m in smtp_sink.to(user.email)]
    # The code was spent.
    assert error_detail(user.post("/mfa/verify-email-activation", json={"code": code}), 400) == \
        "No pending verification code. Ask for a new one."
    assert error_detail(user.post("/mfa/enable-email"), 400) == "E-mail MFA is already enabled"


def test_activation_codes_are_limited(user, smtp_sink):
    assert error_detail(user.post("/mfa/verify-email-activation", json={"code": "123456"}), 400) == \
        "No pending verification code. Ask for a new one."
    user.post("/mfa/enable-email")
    again = user.post("/mfa/enable-email")
    assert "Wait" in error_detail(again, 429) and int(again.headers["Retry-After"]) > 0
    code = mailed_code(smtp_sink, user.email)
    wrong = f"{(int(code) + 1) % 10 ** 6:06d}"
    for _attempt in range(5):
        error_detail(user.post("/mfa/verify-email-activation", json={"code": wrong}), 400)
    # Five wrong codes discard the pending one.
    assert error_detail(user.post("/mfa/verify-email-activation", json={"code": code}), 400) == \
        "No pending verification code. Ask for a new one."
    validation_errors(user.post("/mfa/verify-email-activation", json={"code": "12ab56"}), "code")


def test_second_method_keeps_the_recovery_codes(user, smtp_sink):
    _secret, codes = enable_totp(user)
    activated = _enable_email(user, smtp_sink)
    assert activated["codes"] is None
    status = user.get("/mfa/status").json
    assert status["methods"] == ["email", "totp"] and status["default_method"] == "email"
    assert status["recovery_codes_remaining"] == len(codes) == 8


def test_whole_email_sign_in(client, user, smtp_sink):
    _enable_email(user, smtp_sink)
    challenge = sign_in(client, user.email, lang="es")
    assert challenge.json["mfa_default_method"] == "email"
    mail = smtp_sink.wait_for(user.email)
    assert "terminar de iniciar sesión" in mail["text"]
    code = mailed_code(smtp_sink, user.email)
    response = client.post("/mfa/verify", json={"mfa_token": challenge.json["mfa_token"], "code": code})
    assert response.status_code == 200
    assert client.get("/users/me", token=response.json["access_token"]).status_code == 200
    # Single use: the same code cannot finish another login.
    second = mfa_token(client, user.email)
    smtp_sink.clear()
    assert error_detail(client.post("/mfa/verify", json={"mfa_token": second, "code": code}), 401) == \
        "Invalid MFA code"


def test_a_code_only_works_for_the_login_it_was_sent_for(client, user, smtp_sink):
    _enable_email(user, smtp_sink)
    first = mfa_token(client, user.email)
    code = mailed_code(smtp_sink, user.email)
    smtp_sink.clear()
    second = mfa_token(client, user.email)
    second_code = mailed_code(smtp_sink, user.email)
    assert error_detail(client.post("/mfa/verify", json={"mfa_token": first, "code": second_code}), 401) == \
        "Invalid MFA code"
    if code != second_code:
        error_detail(client.post("/mfa/verify", json={"mfa_token": second, "code": code}), 401)
    assert client.post("/mfa/verify", json={"mfa_token": second, "code": second_code}).status_code == 200


def test_resends_have_a_cooldown_and_a_limit_per_login(app, client, user, smtp_sink):
    _enable_email(user, smtp_sink)
    token = mfa_token(client, user.email)
    early = client.post("/mfa/resend-email-code", json={"mfa_token": token}, lang="es")
    assert error_detail(early, 429).startswith("Espere") and 0 < int(early.headers["Retry-After"]) <= 60
    for remaining in (2, 1, 0):
        end_cooldown(app, _login_id(token))
        smtp_sink.clear()
        response = client.post("/mfa/resend-email-code", json={"mfa_token": token})
        assert response.status_code == 200
        assert response.json == {"message": "Verification code resent", "resends_remaining": remaining}
        code = mailed_code(smtp_sink, user.email)
    end_cooldown(app, _login_id(token))
    exhausted = client.post("/mfa/resend-email-code", json={"mfa_token": token})
    assert error_detail(exhausted, 429) == "Resend limit reached. Please sign in again."
    assert int(exhausted.headers["Retry-After"]) > 0
    # The last code still works, and a new login has its own budget.
    assert client.post("/mfa/verify", json={"mfa_token": token, "code": code}).status_code == 200
    smtp_sink.clear()
    fresh = mfa_token(client, user.email)
    end_cooldown(app, _login_id(fresh))
    assert client.post("/mfa/resend-email-code", json={"mfa_token": fresh}).json["resends_remaining"] == 2


def test_resend_needs_email_among_the_methods(client, user):
    enable_totp(user)
    token = mfa_token(client, user.email)
    assert error_detail(client.post("/mfa/resend-email-code", json={"mfa_token": token}), 400) == \
        "The requested MFA method is not active"
    assert "expir" in error_detail(client.post("/mfa/resend-email-code", json={"mfa_token": "nope"}), 401)
    validation_errors(client.post("/mfa/resend-email-code", json={}), "mfa_token")


def test_switch_method_between_totp_and_email(client, user, smtp_sink):
    enable_totp(user)
    _enable_email(user, smtp_sink)
    user.put("/mfa/default-method", json={"method": "totp"})
    token = mfa_token(client, user.email)
    assert smtp_sink.to(user.email) == []
    switched = client.post("/mfa/switch-method", json={"mfa_token": token, "method": "email"}, lang="es")
    assert switched.status_code == 200 and switched.json["message"] == "Método MFA cambiado a 'email'"
    code = mailed_code(smtp_sink, user.email)
    # Switching back and forth does not send more e-mails while the code is live.
    client.post("/mfa/switch-method", json={"mfa_token": token, "method": "totp"})
    client.post("/mfa/switch-method", json={"mfa_token": token, "method": "email"})
    assert len(smtp_sink.to(user.email)) == 1
    validation_errors(client.post("/mfa/switch-method", json={"mfa_token": token, "method": "sms"}), "method")
    assert client.post("/mfa/verify", json={"mfa_token": token, "code": code, "method": "email"}).status_code == 200


def test_switch_to_a_method_the_account_lacks(client, user):
    enable_totp(user)
    token = mfa_token(client, user.email)
    assert error_detail(client.post("/mfa/switch-method", json={"mfa_token": token, "method": "email"}), 400) \
        == "The requested MFA method is not active"


def test_disable_email_keeps_totp(client, user, smtp_sink):
    secret, _codes = enable_totp(user)
    _enable_email(user, smtp_sink)
    response = user.post("/mfa/disable", json={"method": "email", "password": user.password})
    assert response.status_code == 200
    status = user.get("/mfa/status").json
    assert status == {"enabled": True, "methods": ["totp"], "default_method": "totp", "recovery_codes_remaining": 8}
    token = mfa_token(client, user.email)
    assert client.post("/mfa/verify", json={"mfa_token": token, "code": totp_code(secret, 1)}).status_code == 200
