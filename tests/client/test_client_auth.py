"""The client's account calls, replayed: set-up wizard, sign-up and sign-in, profile, password change and
reset, account deletion, MFA (TOTP, e-mail, recovery codes, the public second step), OAuth, and the
administrator's users and integrations pages."""
import base64
import re
import time
from urllib.parse import parse_qs, urlsplit

import jwt as pyjwt
import pyotp

from ..flows import browse_to_provider, end_cooldown, mailed_code
from ..helpers import NEW_PASSWORD, PASSWORD
from .browser import reads, shown_detail

USER_FIELDS = ("id", "email", "full_name", "profile_picture", "timezone", "role", "is_active", "created_at",
               "oauth_providers", "subscription")
MFA_STATUS = ("enabled", "methods", "default_method", "recovery_codes_remaining")
VENDOR_FIELDS = ("id", "vendor_type", "category", "display_name", "is_configured", "is_default",
                 "is_active_payment", "is_active_oauth", "connection_tested", "last_test_at", "last_test_success",
                 "config_fields", "created_at")


def _next_second():
    """Tokens carry whole seconds: start a password change in a fresh second."""
    time.sleep(1.02 - time.time() % 1)


def _totp_on(tab):
    """Profile > Security: setupTotp (no body), show the QR, enableTotp with the code typed."""
    setup = tab.api("POST", "/mfa/setup-totp")
    assert setup.status_code == 200, setup.get_json()
    reads(setup.get_json(), "qr_code_base64", "secret_key")
    assert base64.b64decode(setup.get_json()["qr_code_base64"]).startswith(b"\x89PNG")
    secret = setup.get_json()["secret_key"]
    enabled = tab.api("POST", "/mfa/enable-totp", json={"code": pyotp.TOTP(secret).now()})
    assert enabled.status_code == 200, enabled.get_json()
    codes = reads(enabled.get_json(), "codes")["codes"]
    assert len(codes) == 8 and all(isinstance(code, str) for code in codes)
    return secret, codes


def _next_totp(secret):
    """The code of the next step (the current one was spent enabling TOTP)."""
    return pyotp.TOTP(secret).at(time.time() + 30)


# -- installation, sign-up, sign-in --------------------------------------------------------

def test_the_setup_wizard_creates_the_admin_and_saves_the_timezone(browser):
    tab = browser()
    assert reads(tab.public("GET", "/users/installation-status").get_json(), "needs_setup")["needs_setup"] is True
    registered = tab.public("POST", "/users/register", json={"email": "root@example.com", "password": PASSWORD,
                                                              "full_name": "Root"})
    assert registered.status_code == 201
    me = reads(tab.sign_in("root@example.com", PASSWORD), *USER_FIELDS)
    assert me["role"] == "admin" and me["email"] == "root@example.com" and me["oauth_providers"] == []
    saved = tab.api("PUT", "/users/me", json={"timezone": "Europe/Madrid"})
    assert saved.status_code == 200 and reads(saved.get_json(), *USER_FIELDS)["timezone"] == "Europe/Madrid"
    assert tab.public("GET", "/users/installation-status").get_json()["needs_setup"] is False
    admins = tab.api("GET", "/users/admin-count")
    assert admins.status_code == 200 and reads(admins.get_json(), "count")["count"] == 1
    assert reads(tab.public("GET", "/health").get_json(), "status")["status"] == "ok"


def test_a_sign_up_logs_in_and_loads_the_user(owner, signed_up):
    ada = signed_up("ada@example.com", full_name="Ada")
    me = reads(ada.user, *USER_FIELDS)
    assert me["role"] == "user" and me["full_name"] == "Ada" and me["is_active"] is True
    assert me["subscription"] is None or "name" in me["subscription"]["plan"]


def test_a_failed_login_shows_the_detail_text(owner, browser):
    tab = browser("es")
    response = tab.api("POST", "/users/login", json={"email": "owner@example.com", "password": "Wrong-Passw0rd!"})
    assert shown_detail(response, 401) == "Correo o contraseña incorrectos"


def test_the_profile_page_saves_name_picture_and_timezone(ada):
    picture = "data:image/png;base64," + base64.b64encode(b"\x89PNG fake").decode()
    response = ada.api("PUT", "/users/me", json={"full_name": "Ada L.", "profile_picture": picture,
                                                "timezone": "America/Bogota"})
    assert response.status_code == 200
    me = reads(response.get_json(), *USER_FIELDS)
    assert (me["full_name"], me["profile_picture"], me["timezone"]) == ("Ada L.", picture, "America/Bogota")
    assert ada.api("GET", "/users/me").get_json()["full_name"] == "Ada L."


def test_change_password_with_the_current_one(ada):
    _next_second()
    response = ada.api("PUT", "/users/change-password", json={"current_password": PASSWORD,
                                                              "new_password": NEW_PASSWORD})
    assert response.status_code == 200
    assert reads(response.get_json(), "message")["message"] == "Password changed successfully"
    ada.token = response.get_json()["access_token"]
    assert ada.api("GET", "/users/me").status_code == 200
    wrong = ada.api("PUT", "/users/change-password", json={"current_password": PASSWORD,
                                                           "new_password": NEW_PASSWORD})
    assert shown_detail(wrong, 400) == "Current password is incorrect"


def test_forgotten_password_through_the_mailed_link(ada, browser, smtp_sink):
    tab = browser()
    response = tab.public("POST", "/users/reset-password-request", json={"email": "ada@example.com"},
                          buffered=True)
    assert response.status_code == 200 and isinstance(reads(response.get_json(), "message")["message"], str)
    assert "token" not in response.get_json()
    link = re.search(r"http://localhost:5173/reset-password\?\S+", smtp_sink.wait_for("ada@example.com")["text"])
    query = parse_qs(urlsplit(link.group(0)).query)
    _next_second()
    confirm = {"email": query["email"][0], "token": query["token"][0], "new_password": NEW_PASSWORD}
    done = tab.public("POST", "/users/reset-password-confirm", json=confirm)
    assert done.status_code == 200 and reads(done.get_json(), "message")["message"] == "Password reset successfully"
    assert shown_detail(tab.public("POST", "/users/reset-password-confirm", json=confirm), 400) == \
        "Invalid or expired reset token"
    tab.sign_in("ada@example.com", NEW_PASSWORD)


def test_deleting_the_account_sends_only_the_phrase(ada, browser):
    response = ada.api("DELETE", "/users/me", json={"confirmation_phrase": "delete me"})
    assert response.status_code == 200, response.get_json()
    assert reads(response.get_json(), "message")["message"] == "Account deleted successfully"
    assert ada.api("GET", "/users/me").status_code == 401
    assert browser().api("POST", "/users/login", json={"email": "ada@example.com",
                                                       "password": PASSWORD}).status_code == 401


def test_deleting_the_account_with_the_spanish_phrase(owner, signed_up):
    bea = signed_up("bea@example.com", language="es")
    response = bea.api("DELETE", "/users/me", json={"confirmation_phrase": "elimíname"})
    assert response.status_code == 200, response.get_json()
    assert reads(response.get_json(), "message")["message"] == "Cuenta eliminada correctamente"


def test_the_sole_admin_sees_why_the_account_stays(owner):
    assert owner.api("GET", "/users/admin-count").get_json()["count"] == 1
    refused = owner.api("DELETE", "/users/me", json={"confirmation_phrase": "delete me"})
    assert shown_detail(refused, 403).startswith("Cannot delete the only administrator account")


# -- MFA -------------------------------------------------------------------------------------

def test_totp_set_up_sign_in_and_status(ada, browser):
    secret, _codes = _totp_on(ada)
    status = ada.api("GET", "/mfa/status")
    assert reads(status.get_json(), *MFA_STATUS)["enabled"] is True
    assert status.get_json()["methods"] == ["totp"] and status.get_json()["default_method"] == "totp"
    assert status.get_json()["recovery_codes_remaining"] == 8

    tab = browser()
    login = tab.api("POST", "/users/login", json={"email": "ada@example.com", "password": PASSWORD})
    challenge = reads(login.get_json(), "mfa_required", "mfa_token", "mfa_default_method", "available_methods")
    assert challenge["mfa_required"] is True and challenge["available_methods"] == ["totp"]
    verified = tab.public("POST", "/mfa/verify", json={"mfa_token": challenge["mfa_token"],
                                                       "code": _next_totp(secret), "method": "totp",
                                                       "is_recovery_code": False})
    assert verified.status_code == 200, verified.get_json()
    tab.token = reads(verified.get_json(), "access_token")["access_token"]
    assert tab.api("GET", "/users/me").status_code == 200


def test_a_recovery_code_signs_in_without_a_method(ada, browser):
    _secret, codes = _totp_on(ada)
    tab = browser()
    token = tab.api("POST", "/users/login", json={"email": "ada@example.com",
                                                  "password": PASSWORD}).get_json()["mfa_token"]
    verified = tab.public("POST", "/mfa/verify", json={"mfa_token": token, "code": codes[0],
                                                       "is_recovery_code": True})
    assert verified.status_code == 200, verified.get_json()
    assert reads(verified.get_json(), "access_token")["token_type"] == "bearer"


def test_an_expired_mfa_token_says_expired_so_the_client_returns_to_login(ada, browser):
    _totp_on(ada)
    for language in ("en", "es"):
        response = browser(language).public("POST", "/mfa/verify", json={"mfa_token": "not.a.token",
                                                                          "code": "123456", "method": "totp",
                                                                          "is_recovery_code": False})
        assert "expir" in shown_detail(response, 401).lower()


def test_regenerating_recovery_codes_sends_no_body(ada):
    _totp_on(ada)
    response = ada.api("POST", "/mfa/regenerate-recovery-codes")
    assert response.status_code == 200, response.get_json()
    codes = reads(response.get_json(), "codes")["codes"]
    assert len(codes) == 8
    assert ada.api("GET", "/mfa/status").get_json()["recovery_codes_remaining"] == 8


def test_after_an_mfa_sign_in_codes_regenerate_and_the_account_deletes_without_a_password(ada, browser):
    secret, codes = _totp_on(ada)
    tab = browser()
    token = tab.api("POST", "/users/login", json={"email": "ada@example.com",
                                                  "password": PASSWORD}).get_json()["mfa_token"]
    tab.token = tab.public("POST", "/mfa/verify", json={"mfa_token": token, "code": _next_totp(secret),
                                                        "method": "totp", "is_recovery_code": False}
                           ).get_json()["access_token"]
    regenerated = tab.api("POST", "/mfa/regenerate-recovery-codes")
    assert regenerated.status_code == 200, regenerated.get_json()
    assert set(reads(regenerated.get_json(), "codes")["codes"]).isdisjoint(codes)
    deleted = tab.api("DELETE", "/users/me", json={"confirmation_phrase": "delete me"})
    assert deleted.status_code == 200, deleted.get_json()


def test_after_a_password_change_the_account_deletes_with_the_phrase_only(ada):
    _next_second()
    changed = ada.api("PUT", "/users/change-password", json={"current_password": PASSWORD,
                                                             "new_password": NEW_PASSWORD})
    ada.token = changed.get_json()["access_token"]
    deleted = ada.api("DELETE", "/users/me", json={"confirmation_phrase": "delete me"})
    assert deleted.status_code == 200, deleted.get_json()


def test_after_a_google_sign_in_the_account_deletes_with_the_phrase_only(owner, browser, google):
    tab = browser()
    start = tab.public("GET", "/oauth/authorize/google").get_json()
    code, state, _location = browse_to_provider(start["authorization_url"])
    tab.token = tab.public("POST", "/oauth/callback", json={"code": code, "state": state,
                                                            "provider": "google"}).get_json()["access_token"]
    deleted = tab.api("DELETE", "/users/me", json={"confirmation_phrase": "delete me"})
    assert deleted.status_code == 200, deleted.get_json()


def test_e_mail_mfa_activation_switch_resend_and_default(app, ada, browser, smtp_sink):
    _totp_on(ada)
    smtp_sink.clear()
    started = ada.api("POST", "/mfa/enable-email")
    assert started.status_code == 200 and isinstance(reads(started.get_json(), "message")["message"], str)
    activated = ada.api("POST", "/mfa/verify-email-activation",
                        json={"code": mailed_code(smtp_sink, "ada@example.com")})
    assert activated.status_code == 200, activated.get_json()
    assert "codes" in activated.get_json()
    default = ada.api("PUT", "/mfa/default-method", json={"method": "totp"})
    assert default.status_code == 200 and isinstance(reads(default.get_json(), "message")["message"], str)

    tab = browser()
    smtp_sink.clear()
    challenge = tab.api("POST", "/users/login", json={"email": "ada@example.com", "password": PASSWORD}).get_json()
    assert challenge["mfa_default_method"] == "totp" and set(challenge["available_methods"]) == {"totp", "email"}
    switched = tab.public("POST", "/mfa/switch-method", json={"mfa_token": challenge["mfa_token"],
                                                              "method": "email"})
    assert switched.status_code == 200 and isinstance(reads(switched.get_json(), "message")["message"], str)
    mailed_code(smtp_sink, "ada@example.com")
    # The client waits out its own 60-second cooldown before offering "resend".
    end_cooldown(app, pyjwt.decode(challenge["mfa_token"], options={"verify_signature": False})["lid"])
    smtp_sink.clear()
    resent = tab.public("POST", "/mfa/resend-email-code", json={"mfa_token": challenge["mfa_token"]})
    assert resent.status_code == 200, resent.get_json()
    assert isinstance(reads(resent.get_json(), "resends_remaining", "message")["resends_remaining"], int)
    verified = tab.public("POST", "/mfa/verify", json={"mfa_token": challenge["mfa_token"], "method": "email",
                                                       "code": mailed_code(smtp_sink, "ada@example.com"),
                                                       "is_recovery_code": False})
    assert verified.status_code == 200, verified.get_json()
    assert "access_token" in verified.get_json()


def test_disabling_a_method_sends_the_password_and_the_method(ada):
    _totp_on(ada)
    response = ada.api("POST", "/mfa/disable", json={"password": PASSWORD, "method": "totp"})
    assert response.status_code == 200 and isinstance(reads(response.get_json(), "message")["message"], str)
    assert ada.api("GET", "/mfa/status").get_json()["enabled"] is False


def test_the_admin_users_page_lists_resets_and_exports(owner, ada):
    _totp_on(ada)
    page = owner.api("GET", "/mfa/admin/users", query_string={"page": 1, "page_size": 15, "search": "ada"})
    assert page.status_code == 200
    body = reads(page.get_json(), "items", "total", "page", "page_size", "total_pages")
    assert body["total"] == 1 and body["page_size"] == 15 and body["items"][0]["email"] == "ada@example.com"
    reset = owner.api("POST", f"/mfa/admin/users/{body['items'][0]['id']}/reset-mfa")
    assert reset.status_code == 200 and isinstance(reads(reset.get_json(), "message")["message"], str)
    assert ada.api("GET", "/mfa/status").get_json()["enabled"] is False
    export = owner.api("GET", "/mfa/admin/users/export")
    assert export.status_code == 200 and export.data.startswith(b"PK")
    assert "attachment" in export.headers["Content-Disposition"]


# -- OAuth -----------------------------------------------------------------------------------

def test_google_sign_in_from_the_login_page_buttons(owner, browser, google):
    tab = browser()
    providers = tab.public("GET", "/oauth/providers")
    assert providers.status_code == 200 and isinstance(providers.get_json(), list)
    assert [reads(item, "provider", "authorization_url")["provider"] for item in providers.get_json()] == ["google"]
    start = tab.public("GET", "/oauth/authorize/google")
    assert start.status_code == 200
    code, state, _location = browse_to_provider(reads(start.get_json(), "authorization_url")["authorization_url"])
    # The SPA callback page reads code, state and provider from its own URL and posts them.
    signed = tab.public("POST", "/oauth/callback", json={"code": code, "state": state, "provider": "google"})
    assert signed.status_code == 200, signed.get_json()
    tab.token = reads(signed.get_json(), "access_token")["access_token"]
    me = reads(tab.api("GET", "/users/me").get_json(), *USER_FIELDS)
    assert me["email"] == "grace@example.com" and me["oauth_providers"][0]["provider"] == "google"


# -- administrator integrations ------------------------------------------------------------

def test_the_integrations_page_adds_tests_edits_and_activates_a_mail_vendor(owner, resend):
    base = "/admin/integrations"
    status = owner.api("GET", f"{base}/status")
    assert status.status_code == 200
    reads(status.get_json(), "email.configured_count", "email.default_vendor", "email.has_default",
          "payment.configured_count", "payment.active_vendor", "payment.has_active")
    for category in ("email", "payment", "oauth"):
        listed = owner.api("GET", f"{base}/vendors", query_string={"category": category})
        assert listed.status_code == 200 and listed.get_json() == []
    config = {"api_key": resend.api_key, "from_email": "Trazo <mail@trazo.test>", "api_base": resend.url}
    created = owner.api("POST", f"{base}/vendors", json={"vendor_type": "resend", "category": "email",
                                                         "display_name": "Resend", "config": config})
    assert created.status_code == 201, created.get_json()
    vendor = reads(created.get_json(), *VENDOR_FIELDS)
    shown = owner.api("GET", f"{base}/vendors/{vendor['id']}/config")
    assert shown.status_code == 200
    masked = reads(shown.get_json(), "vendor_id", "config")["config"]
    assert masked["api_key"].startswith("\u2022") and masked["from_email"] == "Trazo <mail@trazo.test>"
    # The edit form sends only the keys whose value changed (never a masked one).
    edited = owner.api("PUT", f"{base}/vendors/{vendor['id']}", json={"config": {"from_email": "ops@trazo.test"}})
    assert edited.status_code == 200 and reads(edited.get_json(), *VENDOR_FIELDS)["display_name"] == "Resend"
    tested = owner.api("POST", f"{base}/vendors/{vendor['id']}/test")
    assert tested.status_code == 200
    assert reads(tested.get_json(), "success", "message")["success"] is True, tested.get_json()
    activated = owner.api("PUT", f"{base}/vendors/{vendor['id']}/set-default")
    assert activated.status_code == 200 and reads(activated.get_json(), *VENDOR_FIELDS)["is_default"] is True
    assert owner.api("GET", f"{base}/status").get_json()["email"]["has_default"] is True
    assert owner.api("DELETE", f"{base}/vendors/{vendor['id']}").status_code in (200, 204)


def test_a_failed_vendor_test_reads_success_and_error_detail(owner, resend):
    base = "/admin/integrations"
    config = {"api_key": "re_wrong_key_000", "from_email": "mail@trazo.test", "api_base": resend.url}
    vendor = owner.api("POST", f"{base}/vendors", json={"vendor_type": "resend", "category": "email",
                                                        "display_name": "Resend", "config": config}).get_json()
    tested = owner.api("POST", f"{base}/vendors/{vendor['id']}/test")
    assert tested.status_code == 200
    body = reads(tested.get_json(), "success", "message", "error_detail")
    assert body["success"] is False and isinstance(body["error_detail"] or body["message"], str)
    refused = owner.api("PUT", f"{base}/vendors/{vendor['id']}/set-default")
    assert isinstance(shown_detail(refused, 400), str)


def test_regular_users_see_the_admin_refusal_as_text(ada):
    assert shown_detail(ada.api("GET", "/admin/integrations/status"), 403)
    assert shown_detail(ada.api("GET", "/mfa/admin/users"), 403)
