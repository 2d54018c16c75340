"""The access log of public shared-link visits: results by link, addresses only as keyed hashes."""
import hashlib
import hmac
from datetime import timedelta

from flask import current_app
from sqlalchemy import delete

from ...extensions import db
from ...models.base import utcnow
from ...models.sharing import AccessLog
from ...ratelimit import Counter, client_address

RETENTION = timedelta(days=90)
PRUNE_EVERY_SECONDS = 3600


def address_hash():
    """HMAC of the caller's address under a key of its own: unlike a plain SHA-256 of an IPv4
    address, it cannot be reversed by hashing all four billion candidates."""
    key = hmac.new(current_app.config["SECRET_KEY"].encode(), b"trazo.access-log-address",
                   hashlib.sha256).digest()
    return hmac.new(key, client_address().encode(), hashlib.sha256).hexdigest()


def record(link, result):
    """Log one visit and commit; at most once an hour (across workers) drop entries past retention."""
    db.session.add(AccessLog(link_id=link.id if link else None, ip_hash=address_hash(), result=result))
    if Counter("shared-access-log-prune", "all").hit(PRUNE_EVERY_SECONDS) == 1:
        db.session.execute(delete(AccessLog).where(AccessLog.created_at < utcnow() - RETENTION))
    db.session.commit()
