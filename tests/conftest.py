"""Fixtures: the application on SQLite (default) or PostgreSQL + Redis (TEST_DATABASE_URL,
TEST_REDIS_URL), a clean database and limiter per test, an SMTP sink, and user factories."""
import base64
import itertools
import os
import socket
from pathlib import Path

import pytest
from sqlalchemy import event

from trazo import create_app
from trazo.extensions import db, limiter

from .helpers import PASSWORD, ApiClient
from .servers import SmtpSink

_addresses = itertools.count(1)


def pytest_configure(config):
    """Compile the gettext catalogs, so the suite never runs against stale .mo files."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po_path in (Path(__file__).resolve().parents[1] / "src" / "trazo" / "translations").glob("*/LC_MESSAGES/*.po"):
        with po_path.open("rb") as source:
            catalog = read_po(source)
        with po_path.with_suffix(".mo").open("wb") as target:
            write_mo(target, catalog)


@pytest.fixture(scope="session")
def smtp_sink():
    sink = SmtpSink()
    sink.start()
    yield sink
    sink.stop()


@pytest.fixture(scope="session")
def app_env(tmp_path_factory, smtp_sink):
    """The environment the test application is built from (no leakage from the caller's shell)."""
    database = os.environ.get("TEST_DATABASE_URL") or f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.db'}"
    return {
        "APP_ENV": "testing",
        "INSTANCE_PATH": str(tmp_path_factory.mktemp("instance")),
        "DATABASE_URL": database,
        "RATELIMIT_STORAGE_URI": os.environ.get("TEST_REDIS_URL") or "memory://",
        "SECRET_KEY": "test-secret-key-0123456789abcdef",
        "JWT_SECRET_KEY": "test-jwt-secret-0123456789abcdef0123456789",
        "ENCRYPTION_KEYS": base64.urlsafe_b64encode(b"k" * 32).decode(),
        "FRONTEND_URL": "http://localhost:5173",
        "EMAIL_BACKEND": "smtp",
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": str(smtp_sink.port),
        "MAIL_FROM": "Trazo <noreply@trazo.test>",
        "ARGON2_TIME_COST": "1",
        "ARGON2_MEMORY_COST": "1024",
        "ARGON2_PARALLELISM": "1",
    }


@pytest.fixture(scope="session")
def app(app_env):
    application = create_app(env=app_env)
    with application.app_context():
        db.drop_all()
        db.create_all()
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture(autouse=True)
def clean_state(app, smtp_sink):
    """Every test starts with empty tables, fresh limits and an empty mailbox."""
    yield
    with app.app_context():
        db.session.remove()
        with db.engine.begin() as connection:
            for table in reversed(db.metadata.sorted_tables):
                connection.execute(table.delete())
        limiter.reset()
    smtp_sink.clear()


@pytest.fixture
def client(app):
    """An anonymous HTTP client with an address of its own."""
    return ApiClient(app.test_client(), f"10.0.{next(_addresses) % 250}.{next(_addresses) % 250 + 1}")


@pytest.fixture
def make_user(app):
    """Register (over HTTP) and sign in a user; the first one of a test becomes the admin."""
    counter = itertools.count(1)

    def factory(email=None, password=PASSWORD, full_name="Test User"):
        email = email or f"user{next(counter)}-{os.urandom(3).hex()}@example.com"
        web = ApiClient(app.test_client(), f"10.1.{next(_addresses) % 250}.{next(_addresses) % 250 + 1}")
        profile = web.post("/users/register", json={"email": email, "password": password,
                                                    "full_name": full_name})
        assert profile.status_code == 201, profile.json
        token = web.post("/users/login", json={"email": email, "password": password}).json["access_token"]
        return web.signed_in(token, profile.json, password)

    return factory


@pytest.fixture
def admin(make_user):
    return make_user(email="admin@example.com")


@pytest.fixture
def user(admin, make_user):
    return make_user(email="user@example.com")


@pytest.fixture
def other_user(admin, make_user):
    return make_user(email="other@example.com")


@pytest.fixture
def configure(app, monkeypatch):
    """Change app settings for this test only: configure(FREE_PLAN_MAX_STORAGE_MB=1)."""

    def change(**values):
        for name, value in values.items():
            monkeypatch.setitem(app.config, name, value)

    return change


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


@pytest.fixture
def listener():
    """A TCP listener on 127.0.0.1 that no allow-list names; it must never see a connection."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.settimeout(0.3)
    yield sock
    sock.close()
