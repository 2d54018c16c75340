"""`flask prune`: each kind of row goes once older than its setting, --dry-run only counts, and deletions
go in batches of one transaction each."""
from datetime import timedelta

import pytest
from sqlalchemy import event, func, select

from trazo.extensions import db
from trazo.models.base import utcnow
from trazo.models.billing import WebhookEvent
from trazo.models.outbox import OutboxMessage
from trazo.models.security import AuditEntry, OAuthState
from trazo.models.sharing import AccessLog

TABLES = (WebhookEvent, AccessLog, OutboxMessage, OAuthState, AuditEntry)


def _days_ago(days):
    return utcnow() - timedelta(days=days)


def _message(name, status, days, sent_days=None):
    return OutboxMessage(recipient=f"{name}@example.com", subject=name, status=status, attempts=1,
                         next_attempt_at=_days_ago(days), created_at=_days_ago(days),
                         sent_at=None if sent_days is None else _days_ago(sent_days))


def _state(name, expires_in):
    return OAuthState(state=name, provider="google", code_verifier="v", redirect_uri="http://localhost/cb",
                      expires_at=utcnow() + timedelta(seconds=expires_in))


@pytest.fixture
def aged_rows(app):
    """For every kind of row, one just past its retention and one just inside it."""
    with app.app_context():
        db.session.add_all([
            WebhookEvent(event_id="evt_old", provider="stripe", event_type="x", outcome="ok",
                         received_at=_days_ago(91)),
            WebhookEvent(event_id="evt_new", provider="stripe", event_type="x", outcome="ok",
                         received_at=_days_ago(89)),
            AccessLog(ip_hash="old", result="ok", created_at=_days_ago(91)),
            AccessLog(ip_hash="new", result="ok", created_at=_days_ago(89)),
            _message("sent-old", "sent", 9, sent_days=8), _message("sent-new", "sent", 9, sent_days=6),
            _message("failed-old", "failed", 31), _message("failed-new", "failed", 29),
            _message("pending-ancient", "pending", 400),
            _state("expired", -1), _state("live", 300),
            AuditEntry(event="login_failed", email="old@example.com", created_at=_days_ago(91)),
            AuditEntry(event="login_failed", email="new@example.com", created_at=_days_ago(89)),
        ])
        db.session.commit()


def _remaining(app):
    with app.app_context():
        return {
            "webhook_events": sorted(db.session.scalars(select(WebhookEvent.event_id))),
            "access_logs": sorted(db.session.scalars(select(AccessLog.ip_hash))),
            "outbox": sorted(db.session.scalars(select(OutboxMessage.subject))),
            "oauth_states": sorted(db.session.scalars(select(OAuthState.state))),
            "audit_log": sorted(db.session.scalars(select(AuditEntry.email))),
        }


EVERYTHING = {"webhook_events": ["evt_new", "evt_old"], "access_logs": ["new", "old"],
              "outbox": ["failed-new", "failed-old", "pending-ancient", "sent-new", "sent-old"],
              "oauth_states": ["expired", "live"], "audit_log": ["new@example.com", "old@example.com"]}


def test_a_dry_run_counts_what_would_go_and_deletes_nothing(app, aged_rows):
    result = app.test_cli_runner().invoke(args=["prune", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "webhook_events: 1 rows older than 90 days would be deleted",
        "shared_link_access_logs: 1 rows older than 90 days would be deleted",
        "outbox_messages (sent): 1 rows older than 7 days would be deleted",
        "outbox_messages (failed): 1 rows older than 30 days would be deleted",
        "oauth_states: 1 rows past their expiry would be deleted",
        "oauth2_codes: 0 rows past their expiry would be deleted",
        "oauth2_tokens: 0 rows past their expiry would be deleted",
        "audit_log: 1 rows older than 90 days would be deleted",
    ]
    assert _remaining(app) == EVERYTHING


def test_prune_deletes_each_kind_of_row_past_its_retention_and_keeps_the_rest(app, aged_rows):
    result = app.test_cli_runner().invoke(args=["prune"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "webhook_events: 1 rows older than 90 days deleted in 1 batch(es)"
    assert result.output.splitlines()[4] == "oauth_states: 1 rows past their expiry deleted in 1 batch(es)"
    assert _remaining(app) == {"webhook_events": ["evt_new"], "access_logs": ["new"],
                               "outbox": ["failed-new", "pending-ancient", "sent-new"],
                               "oauth_states": ["live"], "audit_log": ["new@example.com"]}


def test_the_retention_settings_decide_the_age(app, aged_rows, monkeypatch):
    for name in ("WEBHOOK_EVENTS_RETENTION_DAYS", "SHARE_ACCESS_LOG_RETENTION_DAYS", "AUDIT_LOG_RETENTION_DAYS"):
        monkeypatch.setitem(app.config, name, 88)
    monkeypatch.setitem(app.config, "OUTBOX_RETENTION_DAYS", 5)
    monkeypatch.setitem(app.config, "OUTBOX_FAILED_RETENTION_DAYS", 28)
    result = app.test_cli_runner().invoke(args=["prune"])
    assert result.exit_code == 0 and "audit_log: 2 rows older than 88 days deleted" in result.output
    assert _remaining(app) == {"webhook_events": [], "access_logs": [], "outbox": ["pending-ancient"],
                               "oauth_states": ["live"], "audit_log": []}


def test_prune_deletes_in_batches_of_one_transaction_each(app):
    with app.app_context():
        db.session.add_all([AuditEntry(event="login_failed", email=f"old{number}@example.com",
                                       created_at=_days_ago(100)) for number in range(5)])
        db.session.commit()
        engine = db.engine
    happened = []

    def statement(_conn, _cursor, sql, *_args):
        if sql.startswith("DELETE FROM audit_log"):
            happened.append("delete audit_log")

    def commit(_conn):
        if happened and happened[-1] != "commit":
            happened.append("commit")

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine, "commit", commit)
    try:
        result = app.test_cli_runner().invoke(args=["prune", "--batch-size", "2"])
    finally:
        event.remove(engine, "before_cursor_execute", statement)
        event.remove(engine, "commit", commit)
    assert result.exit_code == 0, result.output
    assert "audit_log: 5 rows older than 90 days deleted in 3 batch(es)" in result.output
    assert happened == ["delete audit_log", "commit"] * 3
    with app.app_context():
        assert db.session.scalar(select(func.count()).select_from(AuditEntry)) == 0


def test_the_audit_prune_command_keeps_working_with_its_setting(app, monkeypatch):
    monkeypatch.setitem(app.config, "AUDIT_LOG_RETENTION_DAYS", 30)
    with app.app_context():
        db.session.add_all([AuditEntry(event="login_failed", email="old@example.com", created_at=_days_ago(31)),
                            AuditEntry(event="login_failed", email="new@example.com", created_at=_days_ago(29))])
        db.session.commit()
    result = app.test_cli_runner().invoke(args=["audit", "prune"])
    assert result.exit_code == 0 and result.output == "Removed 1 audit entries older than 30 days.\n"
    assert _remaining(app)["audit_log"] == ["new@example.com"]
