"""The Flask class of the service and its session interface (docs/operations.md)."""
import logging

from flask import Flask, request
from flask.sessions import SessionInterface
from sqlalchemy.exc import DBAPIError

from ..extensions import db
from ..transactions import retry_is_safe

log = logging.getLogger("trazo.web")  # the logger name operators' filters know (before web/ was a package)


class Application(Flask):
    """Flask, with its check for async functions made once per function's code, and one retry of a view
    whose statement met a dead pooled database connection.

    There is no pre-ping (DATABASE_POOL_PRE_PING): after a database restart the first statement on
    each old connection fails, SQLAlchemy invalidates the pool, and the view runs again on a fresh
    connection when transactions.retry_is_safe says so; else, or when the retry fails too, the
    client gets 503 and Retry-After (database.answer_database_unavailable). Only the view runs again:
    the before_request hooks (rate limits, body checks) ran once. docs/operations.md."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.plain_code = set()  # the code of functions Flask's ensure_sync gave back as they were

    def ensure_sync(self, func):
        """Flask's, decided once per function's code: Flask asks it of every hook, view and error handler
        of every request (`inspect.iscoroutinefunction`, about 19 times a request). Keyed by code, not by
        function, so closures made per request (after_this_request) and MethodViews' bound methods add
        nothing."""
        code = getattr(func, "__code__", None)
        if code in self.plain_code:
            return func
        synchronous = super().ensure_sync(func)
        if synchronous is func and code is not None:
            self.plain_code.add(code)
        return synchronous

    def dispatch_request(self):
        try:
            return super().dispatch_request()
        except DBAPIError as error:
            if not retry_is_safe(error):
                raise
            rule = request.url_rule.rule if request.url_rule else "?"  # the pattern: paths may hold tokens
            log.warning("database connection lost; retrying %s %s once on a fresh connection", request.method, rule)
            db.session.rollback()
            return super().dispatch_request()


class NoCookieSessions(SessionInterface):
    """The API is stateless (bearer tokens): no cookie session is read or written."""

    def open_session(self, app, request):
        return None

    def save_session(self, app, session, response):
        return None
