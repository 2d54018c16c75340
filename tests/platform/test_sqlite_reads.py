"""On SQLite a read runs in autocommit by the connection's own switch, flipped back when the pool takes the
connection back (transactions.py): no pragma goes out to reset it, since a flag pragma expires every prepared
statement of the connection and each read would parse and plan its statements again."""
import os

import pytest
from sqlalchemy import event

from trazo.extensions import db

from ..helpers import ApiClient, share
from .scratch_databases import sqlite_application, sqlite_editor

pytestmark = pytest.mark.skipif(bool(os.environ.get("TEST_DATABASE_URL")), reason="SQLite's connections")


@pytest.fixture
def traced(app_env, tmp_path):
    """(an application on a SQLite file of its own with one pooled connection, the statements SQLite ran
    since the list was last cleared, as its trace callback saw them)."""
    statements = []
    with sqlite_application(app_env, tmp_path / "reads.db", {"pool_size": 1, "max_overflow": 0}) as application:
        with application.app_context():
            event.listen(db.engine, "checkout", lambda dbapi_connection, *_: dbapi_connection.set_trace_callback(
                statements.append))
        yield application, statements


def _editor(application):
    return sqlite_editor(application, "reader@example.com", "R", title="Read")


def _kinds(statements):
    return [statement.split()[0].upper() for statement in statements]


def test_a_read_sends_its_selects_and_no_pragma_that_would_expire_the_prepared_statements(traced):
    application, statements = traced
    editor, diagram = _editor(application)
    assert editor.get(f"/diagrams/{diagram['id']}").status_code == 200
    statements.clear()

    response = editor.get(f"/diagrams/{diagram['id']}")

    assert response.status_code == 200 and response.json["title"] == "Read"
    assert _kinds(statements) == ["SELECT", "SELECT"], statements


def test_a_shared_visit_commits_its_log_line_on_its_own(traced):
    application, statements = traced
    editor, diagram = _editor(application)
    link = share(editor, diagram["id"])
    visitor = ApiClient(application.test_client(), "10.9.0.2")
    assert visitor.get(f"/shared/{link['token']}/diagram").status_code == 200  # the first also prunes old lines
    statements.clear()

    response = visitor.get(f"/shared/{link['token']}/diagram")

    assert response.status_code == 200 and response.json["title"] == "Read"
    assert _kinds(statements) == ["SELECT", "INSERT"], statements  # no BEGIN, no COMMIT: autocommit
    with application.app_context():
        assert db.session.connection().exec_driver_sql(
            "SELECT count(*) FROM shared_link_access_logs WHERE result = 'success'").scalar() == 2


def test_a_save_after_a_read_on_the_same_connection_runs_in_a_transaction_again(traced):
    application, statements = traced
    editor, diagram = _editor(application)
    assert editor.get(f"/diagrams/{diagram['id']}").status_code == 200
    statements.clear()

    response = editor.put(f"/diagrams/{diagram['id']}", json={"title": "Saved"})

    assert response.status_code == 200 and response.json["title"] == "Saved"
    kinds = _kinds(statements)
    assert "BEGIN" in kinds and kinds[-1] == "COMMIT", statements
    assert kinds.index("BEGIN") < kinds.index("UPDATE"), statements
