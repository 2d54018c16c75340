"""Wrong second-factor codes count per account across logins: a new login brings no new guesses."""
import itertools

from ...flows import enable_totp, mfa_token, totp_code
from ...helpers import ApiClient, error_detail

_addresses = itertools.count(1)
LOCKED_SUBJECT = "Sign-in to your Trazo account was blocked"


def _elsewhere(app):
    """A client from an address of its own, as an attacker rotating addresses would be."""
    return ApiClient(app.test_client(), f"10.250.{next(_addresses) % 250}.{next(_addresses) % 250 + 1}")


def _events(admin, event):
    response = admin.get("/admin/audit-log", query_string={"event": event, "page_size": 100})
    assert response.status_code == 200, response.json
    return response.json["items"]


def test_six_logins_of_five_wrong_codes_lock_the_account_and_the_right_code_is_refused(app, admin, user, smtp_sink):
    secret, _codes = enable_totp(user)
    smtp_sink.clear()
    statuses = []
    for _login in range(6):
        web = _elsewhere(app)
        token = mfa_token(web, user.email)
        for _guess in range(5):
            statuses.append(web.post("/mfa/verify", json={"mfa_token": token, "code": "000000"}).status_code)
    assert statuses[:9] == [401] * 9 and statuses[9:] == [429] * 21
    web = _elsewhere(app)
    right = web.post("/mfa/verify", json={"mfa_token": mfa_token(web, user.email), "code": totp_code(secret, 1)},
                     lang="es")
    assert error_detail(right, 429).startswith("Cuenta bloqueada temporalmente")
    assert 840 <= int(right.headers["Retry-After"]) <= 900
    notices = [message for message in smtp_sink.to(user.email) if message["subject"] == LOCKED_SUBJECT]
    assert len(notices) == 1 and "10 times" in notices[0]["text"] and "change it now" in notices[0]["text"]
    locks = _events(admin, "mfa_locked")
    assert len(locks) == 1 and locks[0]["user_id"] == user.id
    assert locks[0]["details"] == {"wrong_codes": 10, "lock_seconds": 900}


def test_the_account_lock_spares_other_accounts_and_a_success_clears_the_count(app, make_user):
    victim, bystander = make_user(), make_user()
    victim_secret, _ = enable_totp(victim)
    bystander_secret, _ = enable_totp(bystander)
    for login in range(3):  # 12 wrong codes, but the success after the first 4 starts the count again
        web = _elsewhere(app)
        token = mfa_token(web, victim.email)
        for _guess in range(4):
            error_detail(web.post("/mfa/verify", json={"mfa_token": token, "code": "000000"}), 401)
        if login == 0:
            done = web.post("/mfa/verify", json={"mfa_token": token, "code": totp_code(victim_secret, 1)})
            assert done.status_code == 200 and done.json["token_type"] == "bearer"
    web = _elsewhere(app)
    signed_in = web.post("/mfa/verify", json={"mfa_token": mfa_token(web, bystander.email),
                                              "code": totp_code(bystander_secret, 1)})
    assert signed_in.status_code == 200 and signed_in.json["access_token"]
