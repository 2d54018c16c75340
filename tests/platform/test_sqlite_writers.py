"""On SQLite the writers of a process take turns on a lock of the process before SQLite's write lock
(transactions.SQLiteWriters): a save that comes while another transaction writes waits for its turn, not in
SQLite's busy handler, which sleeps in growing steps and gives up at the connection's timeout."""
import os
import threading

import pytest
from sqlalchemy import text

from trazo.extensions import db

from .scratch_databases import sqlite_application, sqlite_editor

pytestmark = pytest.mark.skipif(bool(os.environ.get("TEST_DATABASE_URL")), reason="SQLite's write lock")

BUSY_SECONDS = 0.05  # the impatient application's SQLite busy timeout
EMAIL = "writer@example.com"


@pytest.fixture
def impatient(app_env, tmp_path):
    """An application on a SQLite file of its own whose busy handler gives up after 50 ms."""
    options = {"connect_args": {"timeout": BUSY_SECONDS}}
    with sqlite_application(app_env, tmp_path / "writers.db", options) as application:
        yield application


def _editor(application):
    return sqlite_editor(application, EMAIL, "W")


def _save_in_thread(editor, diagram, content):
    answers = []
    saver = threading.Thread(target=lambda: answers.append(
        editor.put(f"/diagrams/{diagram['id']}", json={"content": content})))
    saver.start()
    return saver, answers


HOLDER_WRITE = text("UPDATE users SET full_name = 'Holder' WHERE email = :email")


def _waits_for_its_turn(saver, answers):
    saver.join(20 * BUSY_SECONDS)  # SQLite alone would have refused it by now ("database is locked")
    return saver.is_alive() and not answers


def _landed(saver, answers):
    saver.join(10)  # a turn not given back would hold the save for SQLITE_TURN_SECONDS (30 s)
    return not saver.is_alive() and answers[0].status_code == 200


@pytest.mark.parametrize(("end", "holders_name"), [("commit", "Holder"), ("rollback", "W")])
def test_a_save_while_a_session_writes_waits_for_its_turn_and_lands_once_the_session_ends(impatient, end,
                                                                                         holders_name):
    editor, diagram = _editor(impatient)
    with impatient.app_context():
        db.session.execute(HOLDER_WRITE, {"email": EMAIL})
        saver, answers = _save_in_thread(editor, diagram, "flowchart LR\n  A --> B")
        assert _waits_for_its_turn(saver, answers)
        getattr(db.session, end)()  # the session's connection stays checked out: the turn goes back all the same
        assert _landed(saver, answers), answers
    assert editor.get(f"/diagrams/{diagram['id']}").json["content"] == "flowchart LR\n  A --> B"
    assert editor.get("/users/me").json["full_name"] == holders_name


def test_a_core_transaction_gives_the_turn_back_with_its_connection(impatient):
    editor, diagram = _editor(impatient)
    with impatient.app_context():
        holder = db.engine.connect()
    holder.execute(HOLDER_WRITE, {"email": EMAIL})
    saver, answers = _save_in_thread(editor, diagram, "flowchart LR\n  G --> H")
    assert _waits_for_its_turn(saver, answers)
    holder.commit()
    holder.close()
    assert _landed(saver, answers), answers


def test_a_write_in_autocommit_gives_the_turn_back_at_once(impatient):
    editor, diagram = _editor(impatient)
    with impatient.app_context():
        holder = db.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    holder.execute(HOLDER_WRITE, {"email": EMAIL})
    saver, answers = _save_in_thread(editor, diagram, "flowchart LR\n  C --> D")
    assert _landed(saver, answers), answers
    holder.close()
