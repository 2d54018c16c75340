"""Migration 0013 (workspaces, docs/teams.md) on a database holding the previous release's data: on SQLite
(a file of its own) and on PostgreSQL (a database of its own, created and dropped here; only with
TEST_DATABASE_URL). The schema is migrated to 0012, the data written with plain SQL as 0012's code wrote it
(two users with projects, folders, diagrams, revisions, a shared link and a personal access token), then
upgraded to head: through an application on that database everything is reachable as before. A downgrade to
0012 keeps the data, and upgrading again works.
"""
import hashlib
import logging.config
import secrets
import uuid
from datetime import UTC, datetime

import flask_migrate
import pytest
import sqlalchemy as sa

from trazo import create_app
from trazo.core.accounts.passwords import hash_password
from trazo.core.history.revisions import compress
from trazo.extensions import db

from ..helpers import PASSWORD
from .scratch_databases import PG_URL, scratch_postgresql

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
API = "/api/v1"
CONTENT = {"ana-1": "graph TD\n  A --> B", "ana-2": "sequenceDiagram\n  A->>B: hi", "ben-1": "graph LR\n  X --> Y"}
TYPES = {"ana-1": "mermaid", "ana-2": "mermaid", "ben-1": "mermaid"}


def _table(name, *columns):
    """A table as 0012 had it, for plain inserts (typed columns: datetimes and JSON bind on both backends)."""
    typed = {"created_at": sa.DateTime(timezone=True), "updated_at": sa.DateTime(timezone=True),
             "password_changed_at": sa.DateTime(timezone=True), "mfa_methods": sa.JSON(), "config": sa.JSON(),
             "user_preferences": sa.JSON(), "seen_addresses": sa.JSON(), "content": sa.Text()}
    return sa.table(name, *(sa.column(column, typed.get(column)) for column in columns))


USERS = _table("users", "id", "email", "password_hash", "has_usable_password", "full_name", "timezone", "role",
               "is_active", "password_changed_at", "mfa_enabled", "mfa_methods", "created_at", "updated_at")
PROJECTS = _table("projects", "id", "user_id", "name", "description", "emoji", "created_at", "updated_at")
FOLDERS = _table("folders", "id", "project_id", "name", "color", "created_at", "updated_at")
DIAGRAMS = _table("diagrams", "id", "project_id", "folder_id", "title", "content", "description", "diagram_type",
                  "config", "user_preferences", "viewport_zoom", "viewport_x", "viewport_y", "content_size",
                  "description_size", "version", "history_size", "created_at", "updated_at")
REVISIONS = sa.table("diagram_revisions", *(sa.column(name) for name in (
    "id", "diagram_id", "number", "title", "diagram_type", "content_size", "stored_size", "content_hash",
    "lines_added", "lines_removed", "author_id", "source")), sa.column("content", sa.LargeBinary()),
    sa.column("created_at", sa.DateTime(timezone=True)), sa.column("updated_at", sa.DateTime(timezone=True)))
LINKS = _table("shared_links", "id", "diagram_id", "user_id", "token", "access_type", "allow_copy_code", "is_active",
               "created_at", "updated_at")
TOKENS = _table("personal_access_tokens", "id", "user_id", "name", "token_hash", "prefix", "scopes",
                "seen_addresses", "created_at")


@pytest.fixture(autouse=True)
def keep_logging(monkeypatch):
    """migrations/env.py configures logging from alembic.ini, which disables the loggers already there (the
    later tests' caplog would see nothing): the suite's logging stays as it is."""
    monkeypatch.setattr(logging.config, "fileConfig", lambda *_args, **_kwargs: None)


def _id():
    return str(uuid.uuid4())


def _previous_release_data(connection):
    """Two users' content as 0012 kept it; what the checks need to find it again."""
    password_hash = hash_password(PASSWORD)
    users = {name: _id() for name in ("ana", "ben")}
    connection.execute(sa.insert(USERS), [
        {"id": user_id, "email": f"{name}@example.com", "password_hash": password_hash, "has_usable_password": True,
         "full_name": name.title(), "timezone": "UTC", "role": "user", "is_active": True,
         "password_changed_at": NOW, "mfa_enabled": False, "mfa_methods": [], "created_at": NOW, "updated_at": NOW}
        for name, user_id in users.items()])
    projects = {"ana-a": (users["ana"], _id()), "ana-b": (users["ana"], _id()), "ben-a": (users["ben"], _id())}
    connection.execute(sa.insert(PROJECTS), [
        {"id": project_id, "user_id": user_id, "name": key, "description": None, "emoji": "📁", "created_at": NOW,
         "updated_at": NOW} for key, (user_id, project_id) in projects.items()])
    folder_id = _id()
    connection.execute(sa.insert(FOLDERS), [{"id": folder_id, "project_id": projects["ana-a"][1], "name": "Docs",
                                             "color": "#10B981", "created_at": NOW, "updated_at": NOW}])
    places = {"ana-1": (projects["ana-a"][1], folder_id, users["ana"]), "ana-2": (projects["ana-b"][1], None,
                                                                                   users["ana"]),
              "ben-1": (projects["ben-a"][1], None, users["ben"])}
    diagrams = {key: _id() for key in places}
    blobs = {key: compress(CONTENT[key]) for key in places}
    connection.execute(sa.insert(DIAGRAMS), [
        {"id": diagrams[key], "project_id": project_id, "folder_id": folder, "title": key, "content": CONTENT[key],
         "description": None, "diagram_type": TYPES[key],
         "config": {"background_color": "#ffffff", "background_pattern": "plain"}, "user_preferences": {},
         "viewport_zoom": 1.0, "viewport_x": 0.0, "viewport_y": 0.0, "content_size": len(CONTENT[key].encode()),
         "description_size": 0, "version": 1, "history_size": len(blobs[key]), "created_at": NOW, "updated_at": NOW}
        for key, (project_id, folder, _author) in places.items()])
    connection.execute(sa.insert(REVISIONS), [
        {"id": _id(), "diagram_id": diagrams[key], "number": 1, "title": key, "diagram_type": TYPES[key],
         "content": blobs[key], "content_size": len(CONTENT[key].encode()), "stored_size": len(blobs[key]),
         "content_hash": hashlib.sha256(CONTENT[key].encode()).hexdigest(),
         "lines_added": len(CONTENT[key].splitlines()),
         "lines_removed": 0, "author_id": author, "source": "create", "created_at": NOW, "updated_at": NOW}
        for key, (_project, _folder, author) in places.items()])
    link_token = secrets.token_urlsafe(32)
    connection.execute(sa.insert(LINKS), [{"id": _id(), "diagram_id": diagrams["ana-1"], "user_id": users["ana"],
                                           "token": link_token, "access_type": "public", "allow_copy_code": True,
                                           "is_active": True, "created_at": NOW, "updated_at": NOW}])
    personal_token = "trz_" + secrets.token_urlsafe(32)
    connection.execute(sa.insert(TOKENS), [{"id": _id(), "user_id": users["ben"], "name": "CI",
                                            "token_hash": hashlib.sha256(personal_token.encode()).hexdigest(),
                                            "prefix": personal_token[:12], "scopes": "read write",
                                            "seen_addresses": [], "created_at": NOW}])
    return {"users": users, "projects": projects, "diagrams": diagrams, "folder_id": folder_id,
            "link_token": link_token, "personal_token": personal_token}


def _sign_in(web, name):
    response = web.post(f"{API}/users/login", json={"email": f"{name}@example.com", "password": PASSWORD},
                        environ_base={"REMOTE_ADDR": f"10.9.0.{len(name)}"})
    assert response.status_code == 200, response.json
    return {"Authorization": f"Bearer {response.json['access_token']}"}


def _personal_workspace(user_id):
    return db.session.scalar(sa.text("SELECT id FROM workspaces WHERE kind = 'personal' AND billing_owner_id = :id"),
                             {"id": user_id})


def _reachable_as_before(app, data):
    web = app.test_client()
    spec_paths = web.get("/openapi.json").json["paths"]
    for name, own in (("ana", ("ana-a", "ana-b")), ("ben", ("ben-a",))):
        headers = _sign_in(web, name)
        with app.app_context():
            workspace_id = _personal_workspace(data["users"][name])
        assert workspace_id
        projects = web.get(f"{API}/projects", headers=headers).json
        assert sorted(project["name"] for project in projects) == sorted(own)
        assert {(project["workspace_id"], project["role"]) for project in projects} == {(workspace_id, "owner")}
        assert {project["id"] for project in projects} == {data["projects"][key][1] for key in own}
        if f"{API}/workspaces" in spec_paths:  # the workspaces routes (issue 27), once merged
            listed = web.get(f"{API}/workspaces", headers=headers).json
            assert [(item["id"], item["kind"], item["role"]) for item in listed] == [
                (workspace_id, "personal", "owner")]
        for key, diagram_id in data["diagrams"].items():
            answer = web.get(f"{API}/diagrams/{diagram_id}", headers=headers)
            if not key.startswith(name):
                assert answer.status_code == 404, answer.json  # the other user's: as before
                continue
            assert answer.status_code == 200 and answer.json["content"] == CONTENT[key], answer.json
            revisions = web.get(f"{API}/diagrams/{diagram_id}/revisions", headers=headers).json["items"]
            assert [(item["number"], item["author_id"]) for item in revisions] == [(1, data["users"][name])]
            first = web.get(f"{API}/diagrams/{diagram_id}/revisions/1", headers=headers)
            assert first.status_code == 200 and first.json["content"] == CONTENT[key]
    tree = web.get(f"{API}/projects/{data['projects']['ana-a'][1]}", headers=_sign_in(web, "ana")).json
    assert [folder["id"] for folder in tree["folders"]] == [data["folder_id"]]
    assert [diagram["id"] for diagram in tree["folders"][0]["diagrams"]] == [data["diagrams"]["ana-1"]]
    shared = web.get(f"{API}/shared/{data['link_token']}/diagram")
    assert shared.status_code == 200 and shared.json["content"] == CONTENT["ana-1"], shared.json
    by_token = web.get(f"{API}/projects", headers={"Authorization": f"Bearer {data['personal_token']}"})
    assert by_token.status_code == 200 and [project["name"] for project in by_token.json] == ["ben-a"]


def _migrate_with_previous_data(app_env, tmp_path, database_url):
    """Each step in an app context of its own: requests run outside them (an outer context would share `g`,
    the signed-in user included, across requests)."""
    app = create_app(env={**app_env, "DATABASE_URL": database_url, "INSTANCE_PATH": str(tmp_path)})
    try:
        with app.app_context():
            flask_migrate.upgrade(revision="0012")
            with db.engine.begin() as connection:
                data = _previous_release_data(connection)
            flask_migrate.upgrade()
        _reachable_as_before(app, data)
        with app.app_context():
            flask_migrate.downgrade(revision="0012")
            with db.engine.connect() as connection:
                owners = connection.execute(sa.text("SELECT name, user_id FROM projects ORDER BY name")).all()
                assert [tuple(row) for row in owners] == [(key, user_id) for key, (user_id, _project)
                                                          in sorted(data["projects"].items())]
                assert connection.execute(sa.text("SELECT count(*) FROM diagrams")).scalar() == 3
                assert connection.execute(sa.text("SELECT count(*) FROM shared_links")).scalar() == 1
            flask_migrate.upgrade()
        _reachable_as_before(app, data)
    finally:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def test_previous_release_data_stays_reachable_on_sqlite(app_env, tmp_path):
    _migrate_with_previous_data(app_env, tmp_path, f"sqlite:///{tmp_path / 'previous.db'}")


@pytest.mark.skipif(not PG_URL.startswith("postgresql"), reason="needs TEST_DATABASE_URL (PostgreSQL)")
def test_previous_release_data_stays_reachable_on_postgresql(app_env, tmp_path):
    with scratch_postgresql("trazo_migration_0013") as url:
        _migrate_with_previous_data(app_env, tmp_path, url)
