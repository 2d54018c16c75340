"""Fixtures of the content area: data made over HTTP, tight rate limits, a SQL statement counter."""
import pytest
from sqlalchemy import event

from trazo.extensions import db

from ...helpers import create_diagram, create_folder, create_project


@pytest.fixture
def project(user):
    return create_project(user, name="Arquitectura", description="Main", emoji="🏗️")


@pytest.fixture
def folder(user, project):
    return create_folder(user, project["id"], name="Pagos", color="#10B981")


@pytest.fixture
def diagram(user, project):
    return create_diagram(user, project["id"], title="Login flow", description="How we log in")


@pytest.fixture
def tight_limit(app, monkeypatch):
    """Set one named rate limit (e.g. "EXPORT") for this test only."""

    def set_limit(name, value):
        monkeypatch.setitem(app.config, f"RATE_LIMIT_{name}", value)

    return set_limit


@pytest.fixture
def count_queries(app):
    """Count the SQL statements a block of requests runs: `with count_queries() as counted: ...`."""

    class Counter:
        def __init__(self):
            self.statements = []

        def __enter__(self):
            with app.app_context():
                self.engine = db.engine
            event.listen(self.engine, "before_cursor_execute", self._record)
            return self

        def __exit__(self, *exc):
            event.remove(self.engine, "before_cursor_execute", self._record)

        def _record(self, _conn, _cursor, statement, *_args):
            self.statements.append(statement)

        @property
        def count(self):
            return len(self.statements)

    return Counter
