"""Databases of a test's own: a PostgreSQL database on the suite's server (TEST_DATABASE_URL), for the migration
tests that upgrade a previous release's data from an empty schema; an application on a SQLite file, for the tests
of SQLite's connections and write lock."""
import os
import secrets
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from trazo import create_app
from trazo.extensions import db

from ..helpers import PASSWORD, ApiClient, create_diagram, create_project

PG_URL = os.environ.get("TEST_DATABASE_URL") or ""


@contextmanager
def scratch_postgresql(prefix):
    """The URL of a new database named `prefix`_<random>, dropped (connections and all) afterwards."""
    server = make_url(PG_URL)
    name = f"{prefix}_{secrets.token_hex(4)}"
    admin = sa.create_engine(server.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def sqlite_application(app_env, path, engine_options):
    """An application on the SQLite file `path` (its tables created) with `engine_options`, its engine
    disposed afterwards."""
    application = create_app(env={**app_env, "DATABASE_URL": f"sqlite:///{path}"},
                             overrides={"SQLALCHEMY_ENGINE_OPTIONS": engine_options})
    with application.app_context():
        db.create_all()
    try:
        yield application
    finally:
        with application.app_context():
            db.session.remove()
            db.engine.dispose()


def sqlite_editor(application, email, full_name, **diagram):
    """(a signed-in client of a new account `email` named `full_name`, a diagram of its own made with `diagram`'s
    fields)."""
    web = ApiClient(application.test_client(), "10.9.0.1")
    account = {"email": email, "password": PASSWORD, "full_name": full_name}
    assert web.post("/users/register", json=account).status_code == 201
    editor = web.signed_in(web.post("/users/login", json={"email": email, "password": PASSWORD}).json["access_token"])
    return editor, create_diagram(editor, create_project(editor)["id"], **diagram)
