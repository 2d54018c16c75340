"""The database seen from HTTP: the answer when it is away, and SQLite's pragmas and search function
(docs/operations.md, docs/search.md)."""
import logging

from flask_babel import gettext as _
from sqlalchemy import event
from sqlalchemy.engine import Engine

from ..core.search.tokens import index_text
from ..errors import error_response
from ..extensions import db
from ..models.search_ddl import SQLITE_FUNCTION

log = logging.getLogger("trazo.web")  # the logger name operators' filters know (before web/ was a package)


def answer_database_unavailable(error):
    """The database went away (restart, failover): nothing was committed; the client may retry."""
    log.warning("database unavailable: %s", error.__class__.__name__)
    db.session.rollback()
    return error_response(503, _("Service temporarily unavailable, try again shortly"), {"Retry-After": "5"})


@event.listens_for(Engine, "connect")
def set_sqlite_pragmas(dbapi_connection, _record):
    """SQLite enforces ON DELETE CASCADE only with this pragma; WAL lets readers and a writer overlap. The
    search index's triggers call SQLITE_FUNCTION (models/search_ddl.py): every connection has it, the
    migrations' included (Flask-Migrate runs them on this engine)."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        dbapi_connection.create_function(SQLITE_FUNCTION, 1, index_text, deterministic=True)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()
