"""The database seen from HTTP: the answer when it is away, and SQLite's pragmas (docs/operations.md)."""
import logging

from flask_babel import gettext as _
from sqlalchemy import event
from sqlalchemy.engine import Engine

from ..errors import error_response
from ..extensions import db

log = logging.getLogger("trazo.web")  # the logger name operators' filters know (before web/ was a package)


def answer_database_unavailable(error):
    """The database went away (restart, failover): nothing was committed; the client may retry."""
    log.warning("database unavailable: %s", error.__class__.__name__)
    db.session.rollback()
    return error_response(503, _("Service temporarily unavailable, try again shortly"), {"Retry-After": "5"})


@event.listens_for(Engine, "connect")
def set_sqlite_pragmas(dbapi_connection, _record):
    """SQLite enforces ON DELETE CASCADE only with this pragma; WAL lets readers and a writer overlap."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()
