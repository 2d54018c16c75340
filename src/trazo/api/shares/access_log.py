"""The access log of public shared-link visits: results by link, addresses only as keyed hashes."""
import hashlib
import hmac
import time
from datetime import timedelta
from functools import lru_cache

from flask import current_app
from sqlalchemy import delete, insert

from ...extensions import db
from ...models.base import utcnow
from ...models.sharing import AccessLog
from ...ratelimit import Counter, client_address
from ...transactions import reads_in_autocommit

RETENTION = timedelta(days=90)
LOG_VISIT = insert(AccessLog.__table__)
PRUNE_EVERY_SECONDS = 3600


def address_hash():
    """HMAC of the caller's address under a key of its own: unlike a plain SHA-256 of an IPv4
    address, it cannot be reversed by hashing all four billion candidates."""
    return hmac.new(_address_key(current_app.config["SECRET_KEY"]), client_address().encode(),
                    hashlib.sha256).hexdigest()


@lru_cache(maxsize=4)
def _address_key(secret_key):
    """The key derived from SECRET_KEY, once per secret (an application's, each test's)."""
    return hmac.new(secret_key.encode(), b"trazo.access-log-address", hashlib.sha256).digest()


class PruneClock:
    """Whether this visit prunes: the shared counter (Redis across workers) allows one prune an hour; each
    process asks it at most once an hour, so a visit costs no round trip to it in between."""

    def __init__(self):
        self.next_question = 0.0  # time.monotonic() of this process

    def due(self):
        now = time.monotonic()
        if now < self.next_question:
            return False
        self.next_question = now + PRUNE_EVERY_SECONDS
        return Counter("shared-access-log-prune", "all").hit(PRUNE_EVERY_SECONDS) == 1


def _prunes():
    return current_app.extensions.setdefault("trazo-access-log-prunes", PruneClock())


def record(link, result):
    """Log one visit and commit; at most once an hour (across workers) drop entries past retention. On a
    GET the statements ran in autocommit, each committed on its own: no session commit to run."""
    # A Core insert on the session's connection (the columns' defaults give its id and time): no object for
    # the unit of work to flush.
    db.session.connection().execute(LOG_VISIT, {"link_id": link.id if link else None, "ip_hash": address_hash(),
                                                "result": result})
    if _prunes().due():
        db.session.execute(delete(AccessLog).where(AccessLog.created_at < utcnow() - RETENTION))
    if not reads_in_autocommit():
        db.session.commit()
