"""The audit log: events written by the security flows, the administrators' route, retention."""
import re
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from trazo.core.accounts import audit
from trazo.extensions import db
from trazo.models.base import utcnow
from trazo.models.security import AuditEntry

from ...flows import enable_totp, mfa_token, sign_in, totp_code
from ...helpers import NEW_PASSWORD, PASSWORD, UNKNOWN_ID, error_detail, validation_errors


def _events(admin, **query):
    response = admin.get("/admin/audit-log", query_string={"page_size": 100, **query})
    assert response.status_code == 200, response.json
    return response.json["items"]


def test_sign_in_events(client, admin, user):
    sign_in(client, user.email, "Wrong-Passw0rd!")
    entries = _events(admin, user_id=user.id)
    assert [entry["event"] for entry in entries] == ["login_success"]
    failed = _events(admin, event="login_failed")
    assert len(failed) == 1 and failed[0]["user_email"] == user.email and failed[0]["ip_address"] == client.ip
    entry = entries[0]
    assert set(entry) == {"id", "event", "user_id", "user_email", "ip_address", "details", "request_id",
                          "created_at"}
    assert entry["created_at"].endswith("+00:00")


def test_lockout_is_audited(client, admin, user):
    for _attempt in range(5):
        sign_in(client, user.email, "Wrong-Passw0rd!")
    assert len(_events(admin, event="login_failed", email=user.email)) == 5
    assert len(_events(admin, event="login_locked")) == 1


def test_mfa_login_success_is_written_only_when_the_login_completes(client, admin, user):
    secret, _codes = enable_totp(user)
    before = len(_events(admin, event="login_success", user_id=user.id))
    token = mfa_token(client, user.email)
    assert len(_events(admin, event="login_success", user_id=user.id)) == before
    client.post("/mfa/verify", json={"mfa_token": token, "code": "000000"})
    client.post("/mfa/verify", json={"mfa_token": token, "code": totp_code(secret, 1)})
    events = [entry["event"] for entry in _events(admin, user_id=user.id)]
    assert events[:3] == ["login_success", "login_mfa_verified", "mfa_verify_failed"]
    assert "mfa_enabled" in events
    assert _events(admin, event="login_mfa_verified")[0]["details"] == {"method": "totp"}


def test_password_events(client, admin, user, smtp_sink):
    user.put("/users/change-password", json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    client.post("/users/reset-password-request", json={"email": user.email}, buffered=True)
    client.post("/users/reset-password-request", json={"email": "ghost@example.com"}, buffered=True)
    token = parse_qs(urlsplit(re.search(r"http\S+", smtp_sink.wait_for(user.email)["text"]).group(0)).query)["token"][0]
    confirmed = client.post("/users/reset-password-confirm", json={"email": user.email, "token": token,
                                                                   "new_password": PASSWORD})
    assert confirmed.status_code == 200
    events = [entry["event"] for entry in _events(admin, user_id=user.id)]
    assert events[:3] == ["password_reset_confirmed", "password_reset_requested", "password_changed"]
    assert len(_events(admin, event="password_reset_requested")) == 1


def test_account_deletion_is_audited_after_the_account_is_gone(admin, user):
    response = user.delete("/users/me", json={"confirmation_phrase": "delete me", "password": PASSWORD})
    assert response.status_code == 200
    deleted = _events(admin, event="account_deleted")
    assert len(deleted) == 1 and deleted[0]["user_email"] == "user@example.com" and deleted[0]["user_id"] == user.id


def test_admin_actions_are_audited(admin, user):
    enable_totp(user)
    admin.post(f"/mfa/admin/users/{user.id}/reset-mfa")
    reset = _events(admin, event="admin_mfa_reset")
    assert reset[0]["user_id"] == user.id and reset[0]["details"]["reset_by"] == admin.email
    user.post("/mfa/regenerate-recovery-codes", json={"password": PASSWORD})
    vendor = admin.post("/admin/integrations/vendors", json={
        "vendor_type": "smtp", "category": "email", "config": {"host": "127.0.0.1", "from_email": "a@b.c",
                                                               "password": "secret-password"}}).json
    admin.delete(f"/admin/integrations/vendors/{vendor['id']}")
    changes = _events(admin, user_id=admin.id)
    assert [entry["event"] for entry in changes][:2] == ["vendor_deleted", "vendor_created"]
    assert changes[0]["details"]["vendor_id"] == vendor["id"]
    assert "secret-password" not in admin.get("/admin/audit-log").get_data(as_text=True)


def test_audit_log_pages(app, admin):
    with app.app_context():
        for number in range(5):
            audit.record("vendor_tested", email=f"n{number}@example.com")
    first = admin.get("/admin/audit-log", query_string={"event": "vendor_tested", "page_size": 2}).json
    assert first["total"] == 5 and first["total_pages"] == 3 and len(first["items"]) == 2
    assert first["items"][0]["user_email"] == "n4@example.com"
    last = admin.get("/admin/audit-log", query_string={"event": "vendor_tested", "page": 3, "page_size": 2}).json
    assert [entry["user_email"] for entry in last["items"]] == ["n0@example.com"]
    assert admin.get("/admin/audit-log", query_string={"user_id": UNKNOWN_ID}).json["total"] == 0


@pytest.mark.parametrize("query", [{"event": "made_up"}, {"page": 0}, {"page_size": 101}, {"email": "nope"}])
def test_audit_log_query_validation(admin, query):
    validation_errors(admin.get("/admin/audit-log", query_string=query), where="query")


def test_audit_log_is_for_admins(client, user):
    assert error_detail(user.get("/admin/audit-log", lang="es"), 403) == "Acceso restringido a administradores"
    error_detail(client.get("/admin/audit-log"), 401)


def test_record_never_raises(app):
    with app.test_request_context():
        audit.record("login_failed", email="x" * 5000, details={"reason": object()})
        audit.record("login_failed", email="fine@example.com")
        assert db.session.query(AuditEntry).filter_by(email="fine@example.com").count() == 1


def test_prune_keeps_ninety_days(app):
    with app.app_context():
        db.session.add_all([AuditEntry(event="login_failed", email="old@example.com",
                                       created_at=utcnow() - timedelta(days=91)),
                            AuditEntry(event="login_failed", email="recent@example.com",
                                       created_at=utcnow() - timedelta(days=89))])
        db.session.commit()
    result = app.test_cli_runner().invoke(args=["audit", "prune"])
    assert result.exit_code == 0 and "Removed 1 audit entries" in result.output
    with app.app_context():
        assert [entry.email for entry in db.session.query(AuditEntry)] == ["recent@example.com"]
