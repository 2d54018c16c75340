"""Fixtures: the application on SQLite (default) or PostgreSQL + Redis (TEST_DATABASE_URL,
TEST_REDIS_URL), a clean database and limiter per test, user factories, content made over HTTP, and the fake
servers of tests/fakes/ (SMTP, AI providers, Stripe, OAuth providers, Resend, Kroki) with the settings that
point at them. An area's own fixtures are in its conftest.py, which may override these (a `project` of its
own, say)."""
import base64
import itertools
import os
import re
import socket
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlalchemy import event
from werkzeug.serving import make_server

from trazo import create_app
from trazo.extensions import db, limiter
from trazo.services.render import cache as render_cache
from trazo.services.render import raster

from .fakes.ai_providers import ENDPOINT_SETTINGS, PROTOCOLS, FakeProvider, FakeProviders
from .fakes.kroki import KrokiServer
from .fakes.oauth import GitHubProvider, OidcProvider
from .fakes.resend import ResendApi
from .fakes.smtp import SmtpSink
from .fakes.stripe import SECRET_KEY, WEBHOOK_SECRET, FakeStripe
from .helpers import (
    PASSWORD,
    SHARE_CODE,
    ApiClient,
    create_diagram,
    create_folder,
    create_project,
    set_role,
    share,
    team_members,
)

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


@pytest.fixture(scope="session")
def served_app(app):
    """The session's application served on a free port of 127.0.0.1, one thread per request (for real clients:
    the MCP SDK, a browser); its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


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


@pytest.fixture
def settings(configure):
    """Change settings for this test only: settings(RENDER_BACKEND="local") (the same as `configure`)."""
    return configure


# -- content made over HTTP (the projects, folders and diagrams areas; others override them) ---------

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
def protected(user, diagram):
    """The diagram's shared link behind the access code SHARE_CODE."""
    return share(user, diagram["id"], access_type="protected", access_code=SHARE_CODE)


# -- the fake servers (tests/fakes/), one of each for the session, and the settings that use them -----

@pytest.fixture(scope="session")
def provider_servers():
    servers = FakeProviders(*(FakeProvider(protocol).start() for protocol in PROTOCOLS))
    yield servers
    for server in (servers.openai, servers.anthropic, servers.gemini):
        server.stop()


@pytest.fixture
def fake_providers(app, provider_servers):
    """The fake servers, emptied, with every provider base URL pointed at them (and allowed as private hosts).

    OpenAI, DeepSeek and MiniMax share the OpenAI-protocol server; their requests are told apart
    by a path prefix (`/openai/v1/...`, `/deepseek/v1/...`, `/minimax/v1/...`).
    """
    saved = {name: app.config[name] for name in (*ENDPOINT_SETTINGS, "AI_TIMEOUT", "AI_ALLOWED_PRIVATE_HOSTS")}
    for name, (protocol, prefix) in ENDPOINT_SETTINGS.items():
        server = getattr(provider_servers, protocol)
        app.config[name] = re.sub(r"(:\d+)", rf"\1{prefix}", server.url, count=1)
    app.config["AI_TIMEOUT"] = 5
    # Users' self-hosted base URLs point at the fakes on 127.0.0.1: the operator allows exactly those.
    app.config["AI_ALLOWED_PRIVATE_HOSTS"] = [urlsplit(server.url).netloc for server in
                                              (provider_servers.openai, provider_servers.anthropic,
                                               provider_servers.gemini)]
    provider_servers.reset()
    yield provider_servers
    app.config.update(saved)


@pytest.fixture(scope="session")
def stripe_server():
    server = FakeStripe()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def stripe_api(stripe_server, configure):
    """Billing configured by settings, against the fake Stripe (tests/api/integrations overrides this: a
    payment vendor there is configured through the integrations API, not the settings)."""
    stripe_server.reset()
    configure(STRIPE_SECRET_KEY=SECRET_KEY, STRIPE_WEBHOOK_SECRET=WEBHOOK_SECRET,
              STRIPE_PUBLISHABLE_KEY="pk_test_trazo", STRIPE_API_BASE=stripe_server.url)
    return stripe_server


@pytest.fixture(scope="session")
def google_server():
    server = OidcProvider().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def github_server():
    server = GitHubProvider().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def resend_server():
    server = ResendApi().start()
    yield server
    server.stop()


@pytest.fixture
def google(google_server, settings):
    """Google sign-in configured by settings, against the local OpenID provider."""
    google_server.reset(sub="google-sub-1", email="ada@example.com", email_verified=True, name="Ada Lovelace")
    settings(GOOGLE_CLIENT_ID=google_server.client_id, GOOGLE_CLIENT_SECRET=google_server.client_secret,
             GOOGLE_METADATA_URL=google_server.metadata_url, OAUTH_REDIRECT_URI="http://localhost:5173/oauth/callback")
    return google_server


@pytest.fixture
def github(github_server, settings):
    """GitHub sign-in configured by settings, against the local GitHub."""
    github_server.reset(id=4242, login="octo", name="Octo Cat",
                        emails=[{"email": "octo@example.com", "primary": True, "verified": True}])
    settings(GITHUB_CLIENT_ID=github_server.client_id, GITHUB_CLIENT_SECRET=github_server.client_secret,
             GITHUB_OAUTH_BASE=github_server.url, GITHUB_API_BASE=github_server.url,
             OAUTH_REDIRECT_URI="http://localhost:5173/oauth/callback")
    return github_server


@pytest.fixture
def resend(resend_server):
    resend_server.requests.clear()
    return resend_server


@pytest.fixture(scope="session")
def kroki_server():
    server = KrokiServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def kroki(kroki_server, settings):
    """RENDER_BACKEND=kroki pointed at the fake Kroki server."""
    kroki_server.reset()
    settings(RENDER_BACKEND="kroki", KROKI_URL=kroki_server.url, RENDER_TIMEOUT=5)
    return kroki_server


@pytest.fixture
def local_backend(settings):
    settings(RENDER_BACKEND="local", RENDER_TIMEOUT=10)


@pytest.fixture
def empty_render_cache(app):
    """The render and PNG caches emptied after the test (autouse in the areas that draw: render, shares,
    prompt_history; tests/api/projects/test_export_images.py asks for it)."""
    yield
    render_cache.clear(app.config.get("REDIS_URL"))
    raster.forget()


# -- teams (docs/teams.md) ------------------------------------------------------------------

@pytest.fixture
def make_team(app):
    """Create a team workspace over HTTP as `owner` (its owner and billing owner), then give `members` their
    roles straight in the database: make_team(owner, members={user.id: "editor"}) or
    make_team(owner, members=[(user, "editor"), (other_user, "viewer")]). Answers the workspace's JSON."""

    def factory(owner, members=None, name="Team"):
        response = owner.post("/workspaces", json={"name": name})
        assert response.status_code == 201, response.get_json()
        for member, role in team_members(members):
            set_role(app, response.json["id"], member, role)
        return response.json

    return factory
