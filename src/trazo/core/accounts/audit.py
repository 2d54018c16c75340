"""The security audit log: who did what, from where. Kept AUDIT_LOG_RETENTION_DAYS days (`flask prune`,
`flask audit prune`: cli/maintenance.py; core/retention.py)."""
import logging

from flask import has_request_context

from ...extensions import db
from ...logs import current_request_id
from ...metrics import audit_event
from ...models.security import AuditEntry
from ...ratelimit import client_address
from .. import retention

log = logging.getLogger("trazo.audit")

EVENTS = (
    "login_success", "login_failed", "login_locked", "login_mfa_verified", "mfa_recovery_used",
    "mfa_verify_failed", "password_changed", "password_reset_requested", "password_reset_confirmed",
    "mfa_enabled", "mfa_disabled", "mfa_recovery_codes_regenerated", "admin_mfa_reset", "account_deleted",
    "oauth_login_success", "oauth_login_failed", "oauth_account_linked", "oauth_account_created",
    "vendor_created", "vendor_updated", "vendor_deleted", "vendor_tested", "vendor_default_set",
    "password_check_locked", "mfa_locked",
    "personal_token_created", "personal_token_revoked", "personal_token_new_address", "personal_tokens_revoked",
    "mcp_write",
    "oauth_consent_given", "oauth_token_issued", "oauth_token_revoked", "oauth_grant_revoked", "oauth_grants_revoked",
)


def record(event, *, user=None, email=None, details=None):
    """Write one entry (the caller's address included) and commit; never raises.

    Call it after the caller's own commit: the entry is committed on its own.
    """
    audit_event(event)  # logins, lockouts and MFA failures are counted here only (docs/operations.md)
    try:
        entry = AuditEntry(event=event, user_id=user.id if user is not None else None,
                           email=email or (user.email if user is not None else None),
                           ip_address=client_address() if has_request_context() else None,
                           details=details or None, request_id=current_request_id())
        db.session.add(entry)
        db.session.commit()
    except Exception:  # an audit failure must never break the request it describes
        log.exception("audit event %s was not recorded", event)
        db.session.rollback()


def prune(now=None):
    """Delete the entries older than AUDIT_LOG_RETENTION_DAYS (in batches); returns how many went."""
    return retention.prune(retention.AUDIT_LOG, now).rows
