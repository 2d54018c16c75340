"""Deleting rows past their retention period: `flask prune` (cron, cli/maintenance.py;
docs/operations.md "Retention").

Each kind of row is deleted in batches of at most `batch_size` rows, one short transaction each, so a
large table is never locked for long and the other requests keep going meanwhile.
"""
from dataclasses import dataclass
from datetime import timedelta

from flask import current_app
from sqlalchemy import and_, delete, func, inspect, select

from ..extensions import db
from ..models.base import utcnow
from ..models.billing import WebhookEvent
from ..models.oauth_server import OAuth2Code, OAuth2Token
from ..models.outbox import FAILED, SENT, OutboxMessage
from ..models.security import AuditEntry, OAuthState
from ..models.sharing import AccessLog

BATCH_SIZE = 5000


@dataclass(frozen=True)
class Rule:
    """Rows of `model` whose `column` is older than `setting` days (an expiry time when `setting` is None)."""

    name: str
    model: type
    column: object
    setting: str | None
    only: object = None

    def days(self):
        return None if self.setting is None else current_app.config[self.setting]

    def condition(self, now):
        cutoff = now if self.setting is None else now - timedelta(days=self.days())
        expired = self.column < cutoff
        return expired if self.only is None else and_(self.only, expired)


AUDIT_LOG = Rule("audit_log", AuditEntry, AuditEntry.created_at, "AUDIT_LOG_RETENTION_DAYS")
RULES = (
    Rule("webhook_events", WebhookEvent, WebhookEvent.received_at, "WEBHOOK_EVENTS_RETENTION_DAYS"),
    Rule("shared_link_access_logs", AccessLog, AccessLog.created_at, "SHARE_ACCESS_LOG_RETENTION_DAYS"),
    Rule("outbox_messages (sent)", OutboxMessage, OutboxMessage.sent_at, "OUTBOX_RETENTION_DAYS",
         OutboxMessage.status == SENT),
    Rule("outbox_messages (failed)", OutboxMessage, OutboxMessage.created_at, "OUTBOX_FAILED_RETENTION_DAYS",
         OutboxMessage.status == FAILED),
    Rule("oauth_states", OAuthState, OAuthState.expires_at, None),
    # the authorization server's (docs/oauth-server.md): a code past its expiry, a token pair past its refresh
    # token's (a rotated one is kept until then, so that its reuse still revokes the family)
    Rule("oauth2_codes", OAuth2Code, OAuth2Code.expires_at, None),
    Rule("oauth2_tokens", OAuth2Token, OAuth2Token.refresh_expires_at, None),
    AUDIT_LOG,
)


@dataclass(frozen=True)
class Pruned:
    rule: Rule
    rows: int
    batches: int

    def line(self, dry_run):
        days = self.rule.days()
        age = "past their expiry" if days is None else f"older than {days} days"
        if dry_run:
            return f"{self.rule.name}: {self.rows} rows {age} would be deleted"
        return f"{self.rule.name}: {self.rows} rows {age} deleted in {self.batches} batch(es)"


def count(rule, now):
    return db.session.scalar(select(func.count()).select_from(rule.model).where(rule.condition(now)))


def prune(rule, now=None, batch_size=BATCH_SIZE):
    """Delete what `rule` finds, `batch_size` rows per transaction; returns a Pruned."""
    now = now or utcnow()
    key = inspect(rule.model).primary_key[0]
    removed = batches = 0
    while True:
        batch = select(key).where(rule.condition(now)).limit(batch_size)
        deleted = db.session.execute(delete(rule.model).where(key.in_(batch))
                                     .execution_options(synchronize_session=False)).rowcount
        db.session.commit()
        if deleted == 0:
            break
        removed, batches = removed + deleted, batches + 1
        if deleted < batch_size:
            break
    return Pruned(rule, removed, batches)


def prune_all(now=None, dry_run=False, batch_size=BATCH_SIZE):
    """Every rule in turn; with `dry_run`, only count."""
    now = now or utcnow()
    if dry_run:
        return [Pruned(rule, count(rule, now), 0) for rule in RULES]
    return [prune(rule, now, batch_size) for rule in RULES]
