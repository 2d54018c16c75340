"""How a request uses the database (docs/operations.md, "Database round trips and restarts").

- Reads run in autocommit: the statements of a GET, HEAD or OPTIONS request go out on a connection
  in the DBAPI's autocommit mode (SQLAlchemy's `isolation_level="AUTOCOMMIT"` execution option, set
  when the session takes a connection from the pool), so PostgreSQL sees no `BEGIN` before the
  first statement and no `ROLLBACK` when the session ends: two round trips fewer per read. A request
  that never touches the database never takes a connection. On SQLite the connection's own switch is
  flipped instead (`isolation_level = None`, as SQLAlchemy's pysqlite recipe does) and flipped back when
  the pool takes it back: SQLAlchemy would reset its option with `PRAGMA read_uncommitted`, and a flag
  pragma expires every prepared statement of the connection, so each read parsed and planned its
  statements anew.
- A GET route that writes declares it (`Blueprint.route(..., transaction=True)`, api/blueprint.py):
  its statements run in a transaction, as those of every POST, PUT, PATCH and DELETE do.
- A statement that meets a dead pooled connection (the database restarted) is retried once, on a
  fresh connection, when that is safe (`retry_is_safe`): the request is a read, or nothing of it
  has reached the database yet. The retry itself is web.Application.dispatch_request.
- On SQLite, the writers of a process queue for SQLite's one write lock on a lock of the process
  (`SQLiteWriters`), taken before a transaction's first write and given back when it ends, instead
  of meeting SQLite's busy handler, which sleeps in growing steps (up to 100 ms each) while the lock is
  held: under concurrent saves that sleeping, not the work, made the slowest answers (p99 of 1.8 s for
  16 concurrent autosaves). SQLite's own lock still decides between processes.

Each engine gets the listeners once (`watch`); they only act inside a request, but the SQLite writers'
queue, which every connection of the engine joins.
"""
import re
import threading
from functools import wraps

from flask import g, has_request_context, request
from sqlalchemy import event
from sqlalchemy.orm import Session

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


# A statement that takes SQLite's write lock (pysqlite opens a transaction before the first of them).
SQLITE_WRITE = re.compile(r"\s*(?:INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b", re.IGNORECASE)
# How long a writer waits for its turn before it goes on to SQLite's own busy handler (the connection's
# `timeout`, 30 s, config.py): a turn never held that long in practice.
SQLITE_TURN_SECONDS = 30


def watch(engine):
    """Put the listeners of this module on `engine` (idempotent)."""
    if not event.contains(engine, "after_cursor_execute", _count_statement):
        event.listen(engine, "after_cursor_execute", _count_statement)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "engine_connect", _sqlite_reads_in_autocommit)
            event.listen(engine.pool, "checkin", _sqlite_transactions_again)
            SQLiteWriters().watch(engine)
        else:
            event.listen(engine, "engine_connect", _reads_in_autocommit)


class SQLiteWriters:
    """One writing transaction at a time per process and engine, the others waiting on a lock in arrival
    (the OS's) order. A connection takes the turn before its transaction's first write statement and gives
    it back once the transaction has ended: after the session's commit or rollback (the commit written to
    disk, so the next writer meets no lock), after a statement that left no transaction open (a write in
    autocommit), and at the latest when the pool takes the connection back (a Core transaction). A thread
    that holds the turn on another connection does not wait for itself: SQLite's busy handler decides, as
    before."""

    HOLDS = "trazo.sqlite_write_turn"  # in the DBAPI connection's info: the thread that took the turn on it

    def __init__(self):
        self.turn = threading.Lock()

    def watch(self, engine):
        event.listen(engine, "before_cursor_execute", self.before_statement)
        event.listen(engine, "after_cursor_execute", self.after_statement)
        for name in ("checkin", "invalidate", "soft_invalidate"):  # before an invalidated connection's info goes
            event.listen(engine.pool, name, self.checked_in)
        for name in ("after_commit", "after_rollback"):
            if not event.contains(Session, name, _session_ended):
                event.listen(Session, name, _session_ended)

    def before_statement(self, connection, cursor, statement, *_args):
        info, thread = connection.info, threading.get_ident()
        if self.HOLDS in info or not SQLITE_WRITE.match(statement) or TURNS.get(thread, (None,))[0] is self:
            return
        if cursor.connection.in_transaction:
            # The transaction has written already (pysqlite opens one only before a write), without the turn: it
            # went on to SQLite's lock after SQLITE_TURN_SECONDS, and holds it. Waiting for the turn now would
            # wait for a writer that waits for this transaction's lock, until both gave up. (A SAVEPOINT opens
            # one too, before any write: its writes meet SQLite's busy handler, as before the turns.)
            return
        if self.turn.acquire(timeout=SQLITE_TURN_SECONDS):
            info[self.HOLDS] = thread
            TURNS[thread] = (self, info)

    def after_statement(self, connection, cursor, *_args):
        if self.HOLDS in connection.info and not cursor.connection.in_transaction:
            self.give_back(connection.info)

    def checked_in(self, _dbapi_connection, record, *_exception):
        self.give_back(record.info)

    def give_back(self, info):
        if self.HOLDS in info:
            TURNS.pop(info.pop(self.HOLDS), None)
            self.turn.release()


# The turn each thread holds: {thread id: (its SQLiteWriters, the holding connection's info)}.
TURNS = {}


def _session_ended(_session, *_args):
    """A session's commit or rollback has reached the database: its thread's turn goes back."""
    held = TURNS.get(threading.get_ident())
    if held is not None:
        held[0].give_back(held[1])


def in_transaction(view):
    """`view` with its statements in a transaction whatever the method: a GET route that writes.

    The flag is set before the view runs, so before the request's first statement (the user lookup
    of the access check comes after it)."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        g.db_transaction = True
        return view(*args, **kwargs)

    return wrapper


def reads_in_autocommit():
    """True when the current request's statements run without a transaction."""
    return (has_request_context() and request.method in READ_METHODS
            and not g.get("db_transaction", False))


def retry_is_safe(error):
    """Whether the request that raised `error` (a DBAPIError) may run again on a fresh connection:
    the pooled connection was dead (SQLAlchemy invalidated it, and the pool with it), and the
    request is a read or none of its statements had succeeded, so it has written nothing and called
    nothing outside (no outbound call comes before a route's first statement, the user lookup)."""
    return bool(getattr(error, "connection_invalidated", False)) and (
        request.method in READ_METHODS or not g.get("db_statements", 0))


def _reads_in_autocommit(connection):
    if reads_in_autocommit():
        connection.execution_options(isolation_level="AUTOCOMMIT")


# In a pooled SQLite connection's info: its pysqlite `isolation_level` before a read switched it off.
SQLITE_ISOLATION = "trazo.sqlite_isolation_level"


def _sqlite_reads_in_autocommit(connection):
    if reads_in_autocommit():
        pooled = connection.connection
        pooled.info.setdefault(SQLITE_ISOLATION, pooled.driver_connection.isolation_level)
        pooled.driver_connection.isolation_level = None  # no implicit BEGIN: each write commits on its own


def _sqlite_transactions_again(dbapi_connection, record):
    isolation_level = record.info.pop(SQLITE_ISOLATION, None)
    if isolation_level is not None and dbapi_connection is not None:  # None: the connection was invalidated
        dbapi_connection.isolation_level = isolation_level


def _count_statement(_connection, _cursor, _statement, _parameters, _context, _executemany):
    """Statements of this request that succeeded (on any connection: a request that gave its
    connection back before an outbound call may have committed on the first one)."""
    if has_request_context():
        g.db_statements = g.get("db_statements", 0) + 1
