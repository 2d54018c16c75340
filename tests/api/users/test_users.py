"""Users and authentication routes (SEED §4.1): every route's success, no token, bad token,
bad input, limits and language."""
import re
import threading
import time
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import jwt as pyjwt
import pytest
from flask_jwt_extended import create_access_token

from trazo.core.accounts.session_tokens import issue_mfa_token, issue_session_token
from trazo.extensions import db
from trazo.models import User

from ...helpers import NEW_PASSWORD, PASSWORD, ApiClient, error_detail, validation_errors


def _sign_in(client, email, password=PASSWORD, **kwargs):
    return client.post("/users/login", json={"email": email, "password": password}, **kwargs)


def _token(client, email, password=PASSWORD):
    response = _sign_in(client, email, password)
    assert response.status_code == 200, response.json
    return response.json["access_token"]


def _next_second():
    time.sleep(1.02 - time.time() % 1)


# -- installation ----------------------------------------------------------------------

def test_installation_status_and_admin_count(client, make_user):
    assert client.get("/users/installation-status").json == {"needs_setup": True, "user_count": 0}
    assert client.get("/users/admin-count").json == {"count": 0}
    make_user()
    make_user()
    assert client.get("/users/installation-status").json == {"needs_setup": False, "user_count": 2}
    assert client.get("/users/admin-count", token="stale.garbage.token").json == {"count": 1}


def test_first_user_is_admin_and_later_ones_are_not(client):
    first = client.post("/users/register", json={"email": "first@example.com", "password": PASSWORD})
    second = client.post("/users/register", json={"email": "second@example.com", "password": PASSWORD,
                                                  "role": "admin", "is_active": False})
    assert first.status_code == second.status_code == 201
    assert first.json["role"] == "admin"
    assert second.json["role"] == "user" and second.json["is_active"] is True


def test_concurrent_first_registrations_make_one_admin(app):
    barrier = threading.Barrier(2)
    results = []

    def register(index):
        web = ApiClient(app.test_client(), f"10.9.0.{index}")
        barrier.wait()
        results.append(web.post("/users/register", json={"email": f"race{index}@example.com",
                                                         "password": PASSWORD}))

    threads = [threading.Thread(target=register, args=(i,)) for i in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.status_code for r in results) == [201, 201]
    assert sorted(r.json["role"] for r in results) == ["admin", "user"]
    with app.app_context():
        assert db.session.query(User).filter_by(role="admin").count() == 1


# -- registration ----------------------------------------------------------------------

def test_register_answers_the_profile(client):
    response = client.post("/users/register", json={"email": "  Ada.Lovelace@Example.COM ",
                                                     "password": PASSWORD, "full_name": "Ada Lovelace",
                                                     "favourite_colour": "green"})
    assert response.status_code == 201
    body = response.json
    assert set(body) == {"id", "email", "full_name", "profile_picture", "timezone", "role", "is_active",
                         "created_at", "mfa_enabled", "subscription", "oauth_providers",
                         "can_change_password"}
    assert body["email"] == "ada.lovelace@example.com"
    assert body["full_name"] == "Ada Lovelace" and body["timezone"] == "UTC"
    assert body["oauth_providers"] == [] and body["can_change_password"] is True
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$", body["created_at"])
    assert PASSWORD not in response.get_data(as_text=True)


def test_duplicate_email_is_400_in_both_languages(client):
    client.post("/users/register", json={"email": "dup@example.com", "password": PASSWORD})
    again = {"email": "DUP@example.com", "password": PASSWORD}
    assert error_detail(client.post("/users/register", json=again), 400) == "User with this email already exists"
    assert error_detail(client.post("/users/register", json=again, lang="es"), 400) == \
        "Ya existe un usuario con este correo"


@pytest.mark.parametrize("password", ["Sh0rt!pass", "alllowercase1!x", "ALLUPPERCASE1!X", "NoDigitsHere!!x",
                                      "NoSpecials1234x", "Aa1!" + "x" * 125])
def test_password_policy(client, password):
    response = client.post("/users/register", json={"email": "weak@example.com", "password": password})
    validation_errors(response, "password")


def test_password_equal_to_email_is_refused(client):
    email = "Conf-1!same@example.com"
    response = client.post("/users/register", json={"email": email, "password": email}, lang="es")
    messages = [item["msg"] for item in validation_errors(response, "password")]
    assert "La contraseña no puede ser igual al correo" in messages


def test_register_field_validation(client):
    validation_errors(client.post("/users/register", json={"email": "nope", "password": PASSWORD}), "email")
    validation_errors(client.post("/users/register", json={"email": "a@example.com"}), "password")
    validation_errors(client.post("/users/register", json={"email": "a@example.com", "password": PASSWORD,
                                                            "full_name": "x" * 201}), "full_name")


# -- sign-in ---------------------------------------------------------------------------

def test_login_answers_a_bound_access_token(client, app, user):
    response = _sign_in(client, "USER@example.com")
    assert response.status_code == 200
    body = response.json
    assert body["token_type"] == "bearer" and body["mfa_enabled"] is False
    claims = pyjwt.decode(body["access_token"], app.config["JWT_SECRET_KEY"], algorithms=["HS256"])
    assert claims["type"] == "access" and claims["sub"] == user.id
    assert isinstance(claims["pca"], int) and claims["exp"] - claims["iat"] == 2 * 24 * 3600
    assert client.get("/users/me", token=body["access_token"]).json["email"] == "user@example.com"


def test_wrong_password_and_unknown_email_look_alike(client, user):
    wrong = error_detail(_sign_in(client, user.email, "Wrong-Passw0rd!"), 401)
    unknown = error_detail(_sign_in(client, "ghost@example.com", "Wrong-Passw0rd!"), 401)
    assert wrong == unknown == "Incorrect email or password"
    assert error_detail(_sign_in(client, "ghost@example.com", "x", lang="es"), 401) == \
        "Correo o contraseña incorrectos"


def test_inactive_account_cannot_sign_in(client, app, user):
    with app.app_context():
        db.session.get(User, user.id).is_active = False
        db.session.commit()
    error_detail(_sign_in(client, user.email), 401)
    error_detail(user.get("/users/me"), 401)


def test_login_validation(client):
    validation_errors(client.post("/users/login", json={"email": "a@example.com"}), "password")
    validation_errors(client.post("/users/login", json={"email": "bad", "password": "x"}), "email")


def test_mfa_account_gets_a_challenge_whose_token_is_not_an_access_token(client, app, user):
    with app.app_context():
        account = db.session.get(User, user.id)
        account.mfa_enabled, account.mfa_methods, account.mfa_default_method = True, ["totp"], "totp"
        db.session.commit()
    body = _sign_in(client, user.email).json
    assert body["mfa_required"] is True and body["mfa_default_method"] == "totp"
    assert body["available_methods"] == ["totp"] and "access_token" not in body
    error_detail(client.get("/users/me", token=body["mfa_token"]), 401)


# -- tokens ----------------------------------------------------------------------------

def test_missing_and_malformed_tokens_are_401(client, user):
    response = client.get("/users/me")
    assert error_detail(response, 401) == "Not authenticated"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    header, payload, signature = user.token.split(".")
    flipped = signature[:-3] + ("AAA" if not signature.endswith("AAA") else "BBB")
    claims = pyjwt.decode(user.token, options={"verify_signature": False})
    foreign = pyjwt.encode(claims, "other-secret-0123456789abcdef0123", algorithm="HS256")
    for bad in ("garbage", f"{header}.{payload}.{flipped}", foreign):
        assert error_detail(client.get("/users/me", token=bad), 401) == "Could not validate credentials"
    unsigned = pyjwt.encode(pyjwt.decode(user.token, options={"verify_signature": False}), None,
                            algorithm="none")
    error_detail(client.get("/users/me", token=unsigned), 401)
    error_detail(client.get("/users/me", token=None, headers={"Authorization": f"Token {user.token}"}), 401)
    for header in ("Bearer", f"Bearer {user.token} extra", f"Bearer {user.token}, Bearer {user.token}"):
        response = client.get("/users/me", token=None, headers={"Authorization": header})
        assert error_detail(response, 401) in ("Could not validate credentials", "Not authenticated"), header
    both = f"Basic dXNlcjpwYXNz, Bearer {user.token}"  # another scheme beside ours is fine
    assert client.get("/users/me", token=None, headers={"Authorization": both}).status_code == 200


def test_expired_wrong_type_and_stale_tokens_are_401(app, user):
    with app.test_request_context():
        account = db.session.get(User, user.id)
        expired = create_access_token(identity=user.id, expires_delta=timedelta(seconds=-10),
                                      additional_claims={"pca": int(account.password_changed_at.timestamp())})
        without_pca = create_access_token(identity=user.id)
        mfa = issue_mfa_token(account, "login-1", ["totp"], "totp")
        stale = create_access_token(identity=user.id, additional_claims={
            "pca": int(account.password_changed_at.timestamp()) - 5})
        fresh = issue_session_token(account)
    assert error_detail(user.get("/users/me", token=expired), 401) == "Token has expired"
    assert error_detail(user.get("/users/me", token=expired, lang="es"), 401) == "El token ha expirado"
    error_detail(user.get("/users/me", token=without_pca), 401)
    error_detail(user.get("/users/me", token=mfa), 401)
    assert error_detail(user.get("/users/me", token=stale), 401) == "Session invalidated. Please log in again."
    assert user.get("/users/me", token=fresh).status_code == 200


def test_a_token_accepted_before_is_refused_once_it_expires(app, user):
    """A verified token is remembered per process (core/credentials.py); its expiry is checked every time."""
    with app.test_request_context():
        account = db.session.get(User, user.id)
        _next_second()
        issued = int(time.time())  # the expiry is a whole second: issued + 2
        short = create_access_token(identity=user.id, expires_delta=timedelta(seconds=2),
                                    additional_claims={"pca": int(account.password_changed_at.timestamp())})
    assert user.get("/users/me", token=short).status_code == 200
    assert user.get("/projects", token=short).status_code == 200
    time.sleep(max(0.0, issued + 2.05 - time.time()))
    assert error_detail(user.get("/users/me", token=short), 401) == "Token has expired"
    assert error_detail(user.get("/projects", token=short, lang="es"), 401) == "El token ha expirado"


def test_a_remembered_token_is_refused_once_its_signature_is_altered(app, user):
    assert user.get("/users/me").status_code == 200
    header, payload, signature = user.token.split(".")
    claims = pyjwt.decode(user.token, options={"verify_signature": False})
    other = pyjwt.encode({**claims, "sub": "someone-else"}, "not-our-key-but-long-enough-for-hs256",
                         algorithm="HS256").split(".")
    for forged in (f"{header}.{other[1]}.{signature}", f"{header}.{payload}.{other[2]}",
                   f"{header}.{payload}.{signature[:-2]}"):
        assert error_detail(user.get("/users/me", token=forged), 401) == "Could not validate credentials"
    assert user.get("/users/me").status_code == 200


# -- profile ---------------------------------------------------------------------------

def test_me_reads_and_updates_the_profile(user):
    me = user.get("/users/me").json
    assert me["id"] == user.id and me["role"] == "user"
    assert me["subscription"] == {"plan": {"name": "Free", "price_usd": 0.0, "max_projects": None,
                                           "max_diagrams": None}}
    picture = "data:image/png;base64,iVBORw0KGgo="
    updated = user.put("/users/me", json={"full_name": "Grace Hopper", "profile_picture": picture,
                                          "timezone": "Europe/Madrid", "role": "admin", "is_active": False,
                                          "email": "new@example.com"})
    assert updated.status_code == 200
    assert updated.json["full_name"] == "Grace Hopper" and updated.json["timezone"] == "Europe/Madrid"
    assert updated.json["profile_picture"] == picture
    assert updated.json["role"] == "user" and updated.json["email"] == "user@example.com"
    cleared = user.put("/users/me", json={"full_name": None, "profile_picture": None})
    assert cleared.json["full_name"] is None and cleared.json["profile_picture"] is None
    assert cleared.json["timezone"] == "Europe/Madrid"


def test_profile_update_validation(user):
    validation_errors(user.put("/users/me", json={"timezone": "Mars/Olympus"}), "timezone")
    validation_errors(user.put("/users/me", json={"profile_picture": "javascript:alert(1)"}), "profile_picture")
    validation_errors(user.put("/users/me", json={"timezone": None}), "timezone")


def test_profile_routes_need_a_token(client):
    for method in ("GET", "PUT", "DELETE"):
        error_detail(client.request(method, "/users/me", json={}), 401)
    error_detail(client.put("/users/change-password", json={"new_password": NEW_PASSWORD}), 401)


# -- change password -------------------------------------------------------------------

def test_change_password_rotates_tokens(client, user):
    _next_second()
    response = user.put("/users/change-password", json={"current_password": PASSWORD,
                                                        "new_password": NEW_PASSWORD})
    assert response.status_code == 200
    assert response.json["message"] == "Password changed successfully"
    assert error_detail(user.get("/users/me"), 401) == "Session invalidated. Please log in again."
    assert user.get("/users/me", token=response.json["access_token"]).status_code == 200
    error_detail(_sign_in(client, user.email), 401)
    assert _sign_in(client, user.email, NEW_PASSWORD).status_code == 200


def test_change_password_twice_within_a_second_still_invalidates(user):
    first = user.put("/users/change-password", json={"current_password": PASSWORD,
                                                     "new_password": NEW_PASSWORD}).json["access_token"]
    second = user.put("/users/change-password", json={"current_password": NEW_PASSWORD,
                                                      "new_password": PASSWORD}, token=first)
    assert second.status_code == 200
    error_detail(user.get("/users/me", token=first), 401)
    assert user.get("/users/me", token=second.json["access_token"]).status_code == 200


def test_change_password_checks(user):
    assert error_detail(user.put("/users/change-password", json={"current_password": "Not-The-Passw0rd!",
                                                                  "new_password": NEW_PASSWORD}), 400) == \
        "Current password is incorrect"
    assert error_detail(user.put("/users/change-password", json={"new_password": NEW_PASSWORD}, lang="es"),
                        400) == "Se requiere la contraseña actual"
    validation_errors(user.put("/users/change-password", json={"current_password": PASSWORD,
                                                               "new_password": "weak"}), "new_password")
    assert user.get("/users/me").status_code == 200


# -- password reset --------------------------------------------------------------------

def _reset_link(smtp_sink, email):
    message = smtp_sink.wait_for(email)
    link = re.search(r"http://localhost:5173/reset-password\?\S+", message["text"]).group(0)
    query = parse_qs(urlsplit(link).query)
    return message, query["token"][0], query["email"][0]


def test_password_reset_through_the_emailed_link(client, user, smtp_sink):
    # buffered: the client reads the whole answer and closes it, as a server does; the work follows.
    response = client.post("/users/reset-password-request", json={"email": user.email}, lang="es", buffered=True)
    assert response.status_code == 200
    assert response.json == {"message": "Si el correo existe, se ha enviado un enlace de recuperación"}
    message, token, email = _reset_link(smtp_sink, user.email)
    assert email == user.email and "Restablece" in message["subject"] and token in message["html"]
    _next_second()
    confirm = {"email": user.email, "token": token, "new_password": NEW_PASSWORD}
    done = client.post("/users/reset-password-confirm", json=confirm)
    assert done.status_code == 200 and done.json == {"message": "Password reset successfully"}
    error_detail(user.get("/users/me"), 401)
    assert _sign_in(client, user.email, NEW_PASSWORD).status_code == 200
    assert error_detail(client.post("/users/reset-password-confirm", json=confirm), 400) == \
        "Invalid or expired reset token"


def test_reset_request_does_not_reveal_accounts(client, user, smtp_sink):
    known = client.post("/users/reset-password-request", json={"email": user.email}, buffered=True)
    unknown = client.post("/users/reset-password-request", json={"email": "ghost@example.com"}, buffered=True)
    assert known.status_code == unknown.status_code == 200 and known.json == unknown.json
    smtp_sink.wait_for(user.email)
    assert smtp_sink.to("ghost@example.com") == []
    assert "token" not in known.json


def test_reset_tokens_expire_and_a_new_request_replaces_the_old(client, app, user, smtp_sink, configure):
    configure(RESET_MAIL_COOLDOWN_SECONDS=0)  # a second mail at once (the cooldown: test_reset_mail_cooldown.py)
    client.post("/users/reset-password-request", json={"email": user.email}, buffered=True)
    _, old_token, _ = _reset_link(smtp_sink, user.email)
    smtp_sink.clear()
    client.post("/users/reset-password-request", json={"email": user.email}, buffered=True)
    _, new_token, _ = _reset_link(smtp_sink, user.email)
    confirm = {"email": user.email, "new_password": NEW_PASSWORD}
    error_detail(client.post("/users/reset-password-confirm", json=confirm | {"token": old_token}), 400)
    with app.app_context():
        account = db.session.get(User, user.id)
        account.reset_token_expires_at = account.reset_token_expires_at - timedelta(hours=2)
        db.session.commit()
    error_detail(client.post("/users/reset-password-confirm", json=confirm | {"token": new_token}), 400)


def test_reset_confirm_validation(client, user):
    error_detail(client.post("/users/reset-password-confirm", json={
        "email": user.email, "token": "not-the-token", "new_password": NEW_PASSWORD}), 400)
    validation_errors(client.post("/users/reset-password-confirm", json={
        "email": user.email, "token": "x", "new_password": "weak"}), "new_password")
    validation_errors(client.post("/users/reset-password-confirm", json={"email": user.email}), "token")
    validation_errors(client.post("/users/reset-password-request", json={"email": "nope"}), "email")


# -- account deletion ------------------------------------------------------------------

def test_delete_account(client, user):
    body = {"confirmation_phrase": "delete me", "password": PASSWORD}
    assert error_detail(user.delete("/users/me", json=body | {"confirmation_phrase": "please"}), 400) == \
        "Invalid confirmation phrase"
    assert error_detail(user.delete("/users/me", json=body | {"password": "Wrong-Passw0rd!"}), 403) == \
        "Password is incorrect"
    validation_errors(user.delete("/users/me", json={}), "confirmation_phrase")
    response = user.delete("/users/me", json={"confirmation_phrase": "elimíname", "current_password": PASSWORD})
    assert response.status_code == 200 and response.json == {"message": "Account deleted successfully"}
    assert error_detail(user.get("/users/me"), 401) == "User not found or inactive"
    error_detail(_sign_in(client, user.email), 401)


def test_the_only_admin_cannot_delete_the_account(admin, make_user):
    body = {"confirmation_phrase": "delete me", "password": PASSWORD}
    error_detail(admin.delete("/users/me", json=body), 403)
    assert admin.get("/users/me").status_code == 200


# -- limits and lockout ----------------------------------------------------------------

def _hit_until_429(send, allowed):
    for index in range(allowed):
        assert send(index).status_code != 429, f"refused after {index}"
    refused = send(allowed)
    assert refused.status_code == 429, refused.json
    return refused


def test_login_is_limited_per_address(client):
    refused = _hit_until_429(lambda i: _sign_in(client, f"rl{i}@example.com", "Wrong-Passw0rd!"), 10)
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert error_detail(refused, 429).startswith("Too many requests")
    assert error_detail(_sign_in(client, "x@example.com", lang="es"), 429).startswith("Demasiadas solicitudes")


def test_register_and_reset_limits(client):
    register = _hit_until_429(lambda i: client.post("/users/register", json={
        "email": f"burst{i}@example.com", "password": PASSWORD}), 20)
    assert 1 <= int(register.headers["Retry-After"]) <= 3601
    reset = _hit_until_429(lambda i: client.post("/users/reset-password-request", json={
        "email": f"nobody{i}@example.com"}), 10)
    assert 1 <= int(reset.headers["Retry-After"]) <= 3601
    confirm = _hit_until_429(lambda i: client.post("/users/reset-password-confirm", json={
        "email": "nobody@example.com", "token": "t", "new_password": NEW_PASSWORD}), 10)
    assert int(confirm.headers["Retry-After"]) >= 1


def test_lockout_after_five_failures(client, make_user, app):
    victim = make_user(email="victim@example.com")
    for _ in range(4):
        error_detail(_sign_in(client, victim.email, "Wrong-Passw0rd!"), 401)
    locked = _sign_in(client, victim.email, "Wrong-Passw0rd!")
    assert error_detail(locked, 429).startswith("Account temporarily locked")
    elsewhere = ApiClient(app.test_client(), "10.200.0.1")
    right = _sign_in(elsewhere, "VICTIM@example.com", PASSWORD, lang="es")
    assert error_detail(right, 429).startswith("Cuenta bloqueada temporalmente")
    assert 840 <= int(right.headers["Retry-After"]) <= 900
    bystander = make_user(email="bystander@example.com")
    assert _sign_in(elsewhere, bystander.email).status_code == 200


def test_a_successful_login_resets_the_failure_count(client, user):
    for _ in range(4):
        error_detail(_sign_in(client, user.email, "Wrong-Passw0rd!"), 401)
    assert _sign_in(client, user.email).status_code == 200
    for _ in range(4):
        error_detail(_sign_in(client, user.email, "Wrong-Passw0rd!"), 401)
    assert _sign_in(client, user.email).status_code == 200


# -- CLI -------------------------------------------------------------------------------

def test_cli_create_admin_and_seed(app, client):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["create-admin", "root@example.com", "--password", PASSWORD])
    assert result.exit_code == 0, result.output
    assert "Created administrator root@example.com" in result.output
    token = _token(client, "root@example.com")
    assert client.get("/users/me", token=token).json["role"] == "admin"
    promoted = runner.invoke(args=["create-admin", "root@example.com"], input=f"{NEW_PASSWORD}\n{NEW_PASSWORD}\n")
    assert promoted.exit_code == 0 and "Promoted" in promoted.output
    assert _token(client, "root@example.com", NEW_PASSWORD)
    weak = runner.invoke(args=["create-admin", "weak@example.com", "--password", "weak"])
    assert weak.exit_code != 0 and "password" in weak.output
    seeded = runner.invoke(args=["seed"])
    assert seeded.exit_code == 0 and "Seed complete." in seeded.output


def test_lockout_holds_with_rate_limits_switched_off(app_env):
    from trazo import create_app
    from trazo.extensions import limiter

    unlimited = create_app(env={**app_env, "RATELIMIT_ENABLED": "false"})
    try:
        web = ApiClient(unlimited.test_client(), "10.77.0.1")
        web.post("/users/register", json={"email": "nolimits@example.com", "password": PASSWORD})
        statuses = [_sign_in(web, "nolimits@example.com", "Wrong-Passw0rd!").status_code for _ in range(6)]
        assert statuses == [401, 401, 401, 401, 429, 429]
    finally:
        limiter.enabled = True  # the limiter object is process-wide; the suite's app keeps its limits on
