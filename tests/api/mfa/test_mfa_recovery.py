"""Recovery codes: single use, the last-code warning, regeneration, accounts without a password."""
from trazo.extensions import db
from trazo.models import User
from trazo.models.security import RecoveryCode

from ...flows import enable_totp, mfa_token
from ...helpers import PASSWORD, error_detail


def _recover(client, email, code, **kwargs):
    return client.post("/mfa/verify", json={"mfa_token": mfa_token(client, email), "code": code,
                                            "is_recovery_code": True}, **kwargs)


def test_recovery_codes_work_once(client, user):
    _secret, codes = enable_totp(user)
    first = _recover(client, user.email, codes[0].lower().replace("-", " "))
    assert first.status_code == 200 and "recovery_warning" not in first.json
    assert error_detail(_recover(client, user.email, codes[0]), 401) == "Invalid MFA code"
    assert user.get("/mfa/status").json["recovery_codes_remaining"] == 7


def test_recovery_codes_are_stored_hashed(app, user):
    _secret, codes = enable_totp(user)
    with app.app_context():
        stored = [row.code_hash for row in db.session.query(RecoveryCode).filter_by(user_id=user.id)]
    assert len(stored) == 8
    assert not any(code.replace("-", "") in value or code in value for code in codes for value in stored)


def test_the_last_code_comes_with_a_warning(client, make_user, admin):
    account = make_user(email="spender@example.com")
    _secret, codes = enable_totp(account)
    address = 0
    for code in codes[:-1]:
        # A fresh address per sign-in keeps this test under the per-address verify limit.
        address += 1
        client.ip = f"10.77.0.{address}"
        assert _recover(client, account.email, code).status_code == 200
    last = _recover(client, account.email, codes[-1], lang="es")
    assert last.status_code == 200
    assert last.json["recovery_warning"].startswith("Ha utilizado su último código de recuperación")
    assert account.get("/mfa/status").json["recovery_codes_remaining"] == 0


def test_regenerate_replaces_every_code(client, user):
    _secret, codes = enable_totp(user)
    response = user.post("/mfa/regenerate-recovery-codes")  # what the browser client sends after a recent sign-in
    assert response.status_code == 200
    fresh = response.json["codes"]
    assert len(fresh) == 8 and not set(fresh) & set(codes)
    assert error_detail(_recover(client, user.email, codes[1]), 401) == "Invalid MFA code"
    assert _recover(client, user.email, fresh[1]).status_code == 200


def test_regenerate_needs_mfa(user):
    assert error_detail(user.post("/mfa/regenerate-recovery-codes", json={"password": PASSWORD}, lang="es"),
                        400) == "MFA no está activado"


def test_accounts_without_a_password_confirm_with_a_recent_sign_in(app, user, settings):
    enable_totp(user)
    with app.app_context():
        account = db.session.get(User, user.id)
        account.has_usable_password, account.password_hash = False, None
        db.session.commit()
    regenerated = user.post("/mfa/regenerate-recovery-codes", json={})
    assert regenerated.status_code == 200 and len(regenerated.json["codes"]) == 8
    assert error_detail(user.post("/mfa/disable", json={"method": "totp", "password": PASSWORD}), 403) == \
        "Password is incorrect"
    settings(RECENT_SIGN_IN_SECONDS=0)
    assert error_detail(user.post("/mfa/disable", json={"method": "totp", "code": regenerated.json["codes"][0]}),
                        403) == "Please sign in again to confirm this change."
    assert user.get("/mfa/status").json["enabled"] is True
