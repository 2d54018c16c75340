"""How a request uses the database (docs/operations.md, "Database round trips and restarts").

- Reads run in autocommit: the statements of a GET, HEAD or OPTIONS request go out on a connection
  in the DBAPI's autocommit mode (SQLAlchemy's `isolation_level="AUTOCOMMIT"` execution option, set
  when the session takes a connection from the pool), so PostgreSQL sees no `BEGIN` before the
  first statement and no `ROLLBACK` when the session ends: two round trips fewer per read. A request
  that never touches the database never takes a connection.
- A GET route that writes declares it (`Blueprint.route(..., transaction=True)`, api/blueprint.py):
  its statements run in a transaction, as those of every POST, PUT, PATCH and DELETE do.
- A statement that meets a dead pooled connection (the database restarted) is retried once, on a
  fresh connection, when that is safe (`retry_is_safe`): the request is a read, or nothing of it
  has reached the database yet. The retry itself is web.Application.dispatch_request.

Each engine gets the listeners once (`watch`); they only act inside a request.
"""
from functools import wraps

from flask import g, has_request_context, request
from sqlalchemy import event

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def watch(engine):
    """Put the listeners of this module on `engine` (idempotent)."""
    if not event.contains(engine, "engine_connect", _reads_in_autocommit):
        event.listen(engine, "engine_connect", _reads_in_autocommit)
        event.listen(engine, "after_cursor_execute", _count_statement)


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


def _count_statement(_connection, _cursor, _statement, _parameters, _context, _executemany):
    """Statements of this request that succeeded (on any connection: a request that gave its
    connection back before an outbound call may have committed on the first one)."""
    if has_request_context():
        g.db_statements = g.get("db_statements", 0) + 1
