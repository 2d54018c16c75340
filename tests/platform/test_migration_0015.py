"""Migration 0015 (search, docs/search.md) on a database holding the previous release's data: on SQLite (a
file of its own) and on PostgreSQL (a database of its own, created and dropped here; only with
TEST_DATABASE_URL). The schema is migrated to 0014, a user's diagrams and a comment written with plain SQL,
then upgraded to head: the search finds them by title, content, description and comment. A downgrade to
0014 keeps the data and drops the index; upgrading again indexes them again.
"""
import logging.config
import uuid
from datetime import UTC, datetime

import flask_migrate
import pytest
import sqlalchemy as sa

from trazo import create_app
from trazo.core.accounts.passwords import hash_password
from trazo.extensions import db

from ..helpers import PASSWORD
from .scratch_databases import PG_URL, scratch_postgresql

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
API = "/api/v1"
TYPED = {"created_at": sa.DateTime(timezone=True), "updated_at": sa.DateTime(timezone=True),
         "joined_at": sa.DateTime(timezone=True), "password_changed_at": sa.DateTime(timezone=True),
         "mfa_methods": sa.JSON(), "config": sa.JSON(), "user_preferences": sa.JSON(), "anchor": sa.JSON(),
         "mentions": sa.JSON()}


def _table(name, *columns):
    return sa.table(name, *(sa.column(column, TYPED.get(column)) for column in columns))


USERS = _table("users", "id", "email", "password_hash", "has_usable_password", "full_name", "timezone", "role",
               "is_active", "password_changed_at", "mfa_enabled", "mfa_methods", "created_at", "updated_at")
WORKSPACES = _table("workspaces", "id", "name", "kind", "billing_owner_id", "created_at", "updated_at")
MEMBERS = _table("workspace_members", "workspace_id", "user_id", "role", "joined_at")
PROJECTS = _table("projects", "id", "workspace_id", "user_id", "name", "description", "emoji", "created_at",
                  "updated_at")
DIAGRAMS = _table("diagrams", "id", "project_id", "folder_id", "title", "content", "description", "diagram_type",
                  "config", "user_preferences", "viewport_zoom", "viewport_x", "viewport_y", "content_size",
                  "description_size", "version", "history_size", "created_at", "updated_at")
COMMENTS = _table("comments", "id", "diagram_id", "parent_id", "author_id", "body", "body_size", "anchor",
                  "mentions", "created_at", "updated_at")
WRITTEN = {"Order flow": ("graph TD\n  cart --> orderService.create", "Checkout steps"),
           "Ledger": ("erDiagram\n  invoice_line ||--o{ payment : settles", None)}


@pytest.fixture(autouse=True)
def keep_logging(monkeypatch):
    """migrations/env.py configures logging from alembic.ini: the suite's logging stays as it is."""
    monkeypatch.setattr(logging.config, "fileConfig", lambda *_args, **_kwargs: None)


def _previous_release_data(connection):
    user_id, workspace_id, project_id = (str(uuid.uuid4()) for _ in range(3))
    connection.execute(sa.insert(USERS), [{
        "id": user_id, "email": "ana@example.com", "password_hash": hash_password(PASSWORD),
        "has_usable_password": True, "full_name": "Ana", "timezone": "UTC", "role": "user", "is_active": True,
        "password_changed_at": NOW, "mfa_enabled": False, "mfa_methods": [], "created_at": NOW, "updated_at": NOW}])
    connection.execute(sa.insert(WORKSPACES), [{"id": workspace_id, "name": "Personal", "kind": "personal",
                                                "billing_owner_id": user_id, "created_at": NOW, "updated_at": NOW}])
    connection.execute(sa.insert(MEMBERS), [{"workspace_id": workspace_id, "user_id": user_id, "role": "owner",
                                             "joined_at": NOW}])
    connection.execute(sa.insert(PROJECTS), [{"id": project_id, "workspace_id": workspace_id, "user_id": user_id,
                                              "name": "Shop", "description": None, "emoji": "📁",
                                              "created_at": NOW, "updated_at": NOW}])
    diagrams = {title: str(uuid.uuid4()) for title in WRITTEN}
    connection.execute(sa.insert(DIAGRAMS), [
        {"id": diagrams[title], "project_id": project_id, "folder_id": None, "title": title, "content": content,
         "description": description, "diagram_type": "mermaid", "config": {}, "user_preferences": {},
         "viewport_zoom": 1.0, "viewport_x": 0.0, "viewport_y": 0.0, "content_size": len(content),
         "description_size": len(description or ""), "version": 1, "history_size": 0, "created_at": NOW,
         "updated_at": NOW} for title, (content, description) in WRITTEN.items()])
    connection.execute(sa.insert(COMMENTS), [{
        "id": str(uuid.uuid4()), "diagram_id": diagrams["Ledger"], "parent_id": None, "author_id": user_id,
        "body": "Reconcile with the bank", "body_size": 23, "anchor": {"type": "diagram"}, "mentions": [],
        "created_at": NOW, "updated_at": NOW}])
    return diagrams


def _found(app, diagrams):
    web = app.test_client()
    signed_in = web.post(f"{API}/users/login", json={"email": "ana@example.com", "password": PASSWORD},
                         environ_base={"REMOTE_ADDR": "10.9.1.1"})
    assert signed_in.status_code == 200, signed_in.json
    headers = {"Authorization": f"Bearer {signed_in.json['access_token']}"}
    for q, title in (("OrderService", "Order flow"), ("checkout", "Order flow"), ("order flow", "Order flow"),
                     ("InvoiceLine", "Ledger"), ("reconcile", "Ledger")):
        answer = web.get(f"{API}/search", query_string={"q": q}, headers=headers)
        assert answer.status_code == 200, answer.json
        assert [(hit["diagram_id"], hit["title"]) for hit in answer.json["items"]] == [(diagrams[title], title)], q


def _migrate_with_previous_data(app_env, tmp_path, database_url):
    app = create_app(env={**app_env, "DATABASE_URL": database_url, "INSTANCE_PATH": str(tmp_path)})
    try:
        with app.app_context():
            flask_migrate.upgrade(revision="0014")
            with db.engine.begin() as connection:
                diagrams = _previous_release_data(connection)
            flask_migrate.upgrade()
        _found(app, diagrams)
        with app.app_context():
            flask_migrate.downgrade(revision="0014")
            with db.engine.connect() as connection:
                assert connection.execute(sa.text("SELECT count(*) FROM diagrams")).scalar() == 2
                assert connection.execute(sa.text("SELECT count(*) FROM comments")).scalar() == 1
                assert "search_documents" not in sa.inspect(connection).get_table_names()
            flask_migrate.upgrade()
        _found(app, diagrams)
    finally:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def test_the_previous_release_diagrams_are_found_after_the_upgrade_on_sqlite(app_env, tmp_path):
    _migrate_with_previous_data(app_env, tmp_path, f"sqlite:///{tmp_path / 'previous.db'}")


@pytest.mark.skipif(not PG_URL.startswith("postgresql"), reason="needs TEST_DATABASE_URL (PostgreSQL)")
def test_the_previous_release_diagrams_are_found_after_the_upgrade_on_postgresql(app_env, tmp_path):
    with scratch_postgresql("trazo_migration_0015") as url:
        _migrate_with_previous_data(app_env, tmp_path, url)
