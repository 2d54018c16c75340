"""A PostgreSQL database of a test's own on the suite's server (TEST_DATABASE_URL), for the migration tests
that upgrade a previous release's data from an empty schema."""
import os
import secrets
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import make_url

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
