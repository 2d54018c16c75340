"""Database round trips and restarts on PostgreSQL (docs/operations.md, "Database round trips and
restarts"): an application connected through a counting proxy (tests/fakes/postgres.py PgWireProxy)."""
import logging
import os

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from trazo import create_app
from trazo.extensions import db
from trazo.models.ai import AISettings
from trazo.models.billing import Plan
from trazo.models.security import OAuthState
from trazo.models.sharing import AccessLog

from ..fakes.postgres import PgWireProxy
from ..helpers import ApiClient, create_diagram, create_project, error_detail

DATABASE_URL = os.environ.get("TEST_DATABASE_URL") or ""
WIRE_APPLICATION_NAME = "trazo-roundtrips-test"
MOST_ROUND_TRIPS_OF_A_READ = 3

pytestmark = pytest.mark.skipif(not DATABASE_URL.startswith("postgresql"),
                                reason="needs TEST_DATABASE_URL (PostgreSQL): round trips are counted at the wire")


@pytest.fixture(scope="module")
def proxy():
    upstream = make_url(DATABASE_URL)
    server = PgWireProxy(upstream.port or 5432, upstream.host or "127.0.0.1").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def wire_app(app, app_env, proxy):
    """The application with its database connections going through the proxy (the `app` fixture has
    created the tables; each test's rows are deleted by clean_state)."""
    url = make_url(DATABASE_URL).set(host="127.0.0.1", port=proxy.port, query={
        "sslmode": "disable", "gssencmode": "disable", "application_name": WIRE_APPLICATION_NAME})
    application = create_app(env={**app_env, "DATABASE_URL": url.render_as_string(hide_password=False)})
    yield application
    with application.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def wire(wire_app, user):
    """The signed-in `user` talking to the proxied application."""
    return ApiClient(wire_app.test_client(), "10.9.0.1", user.token, user.profile, user.password)


def round_trips(proxy, send):
    proxy.reset()
    response = send()
    return response, proxy.round_trips


@pytest.mark.parametrize("path", ["/diagrams/{diagram}", "/projects", "/projects/{project}",
                                  "/users/me"])
def test_an_authenticated_read_makes_at_most_three_round_trips(wire, proxy, path):
    project = create_project(wire, name="Wire")
    diagram = create_diagram(wire, project["id"], title="Counted")
    url = path.format(project=project["id"], diagram=diagram["id"])
    for _warm_up in range(6):
        assert wire.get(url).status_code == 200

    response, count = round_trips(proxy, lambda: wire.get(url))

    assert response.status_code == 200, response.json
    expected = {"/diagrams/{diagram}": ("title", "Counted"), "/projects": ("name", "Wire"),
                "/projects/{project}": ("name", "Wire"), "/users/me": ("email", wire.email)}[path]
    body = response.json[0] if path == "/projects" else response.json
    assert body[expected[0]] == expected[1], body
    print(f"round trips of GET {path}: {count}")
    assert count <= MOST_ROUND_TRIPS_OF_A_READ, count


def test_a_write_still_commits_in_a_transaction(wire, proxy):
    project = create_project(wire, name="Wire")
    diagram = create_diagram(wire, project["id"], title="Before")

    response, count = round_trips(proxy, lambda: wire.put(f"/diagrams/{diagram['id']}", json={"title": "After"}))

    assert response.status_code == 200 and response.json["title"] == "After", response.json
    assert count >= 3  # BEGIN, the statements, COMMIT: writes keep their transaction
    assert wire.get(f"/diagrams/{diagram['id']}").json["title"] == "After"


# -- dead pooled connections --------------------------------------------------------------

def terminate_wire_connections():
    """End the proxied application's backends (only those: its application_name, this database)."""
    engine = sa.create_engine(DATABASE_URL, poolclass=sa.pool.NullPool)
    with engine.connect() as connection:
        ended = connection.execute(sa.text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name = :name AND pid <> pg_backend_pid()"), {"name": WIRE_APPLICATION_NAME}).scalar()
    engine.dispose()
    return ended


def retry_warnings(caplog):
    return [record for record in caplog.records
            if record.levelno == logging.WARNING and "retrying" in record.getMessage()]


def test_a_read_on_a_dead_pooled_connection_is_retried_once_on_a_fresh_one(wire, caplog):
    diagram = create_diagram(wire, create_project(wire)["id"], title="Survivor")
    assert terminate_wire_connections() >= 1
    caplog.set_level(logging.WARNING)

    response = wire.get(f"/diagrams/{diagram['id']}")

    assert response.status_code == 200, response.json
    assert response.json["title"] == "Survivor"
    (warning,) = retry_warnings(caplog)
    assert "GET /api/v1/diagrams/<diagram_id>" in warning.getMessage()


def test_a_write_whose_first_statement_meets_a_dead_connection_is_retried(wire, caplog):
    diagram = create_diagram(wire, create_project(wire)["id"], title="Before")
    assert terminate_wire_connections() >= 1
    caplog.set_level(logging.WARNING)

    response = wire.put(f"/diagrams/{diagram['id']}", json={"title": "After the restart"})

    assert response.status_code == 200, response.json
    assert response.json["title"] == "After the restart"
    assert len(retry_warnings(caplog)) == 1
    assert wire.get(f"/diagrams/{diagram['id']}").json["title"] == "After the restart"


def test_a_write_that_loses_its_connection_after_a_statement_answers_503_and_writes_nothing(wire, proxy, caplog):
    diagram = create_diagram(wire, create_project(wire)["id"], title="Before")
    caplog.set_level(logging.WARNING)
    proxy.cut_at(3)  # BEGIN and the user lookup go through; the diagram lookup finds the connection cut

    response = wire.put(f"/diagrams/{diagram['id']}", json={"title": "Lost"})

    assert error_detail(response, 503) == "Service temporarily unavailable, try again shortly"
    assert response.headers["Retry-After"] == "5"
    assert retry_warnings(caplog) == []
    assert wire.get(f"/diagrams/{diagram['id']}").json["title"] == "Before"


def test_a_read_answers_503_when_the_retry_fails_too(wire, proxy, caplog):
    diagram = create_diagram(wire, create_project(wire)["id"], title="Unreachable")
    caplog.set_level(logging.WARNING)
    proxy.cut_at(1, times=2)  # the first attempt and the retry both lose their connection

    response = wire.get(f"/diagrams/{diagram['id']}", lang="es")

    assert error_detail(response, 503) == "Servicio no disponible temporalmente, inténtelo de nuevo en breve"
    assert response.headers["Retry-After"] == "5"
    assert len(retry_warnings(caplog)) == 1
    assert wire.get(f"/diagrams/{diagram['id']}").json["title"] == "Unreachable"


# -- GET routes that write keep a transaction (a SAVEPOINT outside one fails on PostgreSQL) ------

def rows(app, model):
    with app.app_context():
        return db.session.scalars(sa.select(model)).all()


@pytest.mark.parametrize("path", ["/plans", "/subscriptions/me", "/subscriptions/usage"])
def test_a_get_that_creates_the_free_plan_commits_it(app, user, path):
    response = user.get(path)

    assert response.status_code == 200, response.json
    (plan,) = rows(app, Plan)
    assert (plan.code, plan.name, plan.amounts) == ("FREE", "Free", {"usd": 0})


def test_the_admins_plan_list_creates_the_free_plan(app, admin):
    response = admin.get("/admin/plans")

    assert response.status_code == 200, response.json
    assert [plan["name"] for plan in response.json] == ["Free"]
    assert [plan.code for plan in rows(app, Plan)] == ["FREE"]


def test_the_first_read_of_the_ai_settings_creates_them(app, user):
    response = user.get("/ai/settings")

    assert response.status_code == 200, response.json
    assert [settings.user_id for settings in rows(app, AISettings)] == [user.id]


def test_a_shared_diagram_visit_is_logged(app, client, user):
    diagram = create_diagram(user, create_project(user)["id"], title="Public")
    link = user.post("/shared-links", json={"diagram_id": diagram["id"]}).json

    response = client.get(f"/shared/{link['token']}/diagram")

    assert response.status_code == 200 and response.json["title"] == "Public", response.json
    assert [entry.result for entry in rows(app, AccessLog)] == ["success"]


def test_the_oauth_authorization_stores_its_state(app, app_env):
    github = create_app(env={**app_env, "GITHUB_CLIENT_ID": "gh-client", "GITHUB_CLIENT_SECRET": "gh-secret"})
    response = ApiClient(github.test_client(), "10.9.0.2").get("/oauth/authorize/github")

    assert response.status_code == 200, response.json
    assert [state.state for state in rows(app, OAuthState)] == [response.json["state"]]
    with github.app_context():
        db.engine.dispose()


def test_a_shared_link_visit_makes_two_round_trips(wire, proxy):
    """The link with its diagram and maker's name in one read, then the visit's log line, each committed on its
    own (no BEGIN or COMMIT), and no read after it."""
    diagram = create_diagram(wire, create_project(wire)["id"], title="Visited")
    link = wire.post("/shared-links", json={"diagram_id": diagram["id"]}).json
    visitor = ApiClient(wire.flask_client, "10.9.0.7")
    assert visitor.get(f"/shared/{link['token']}/diagram").status_code == 200  # the first visit may prune

    response, count = round_trips(proxy, lambda: visitor.get(f"/shared/{link['token']}/diagram"))

    assert response.status_code == 200 and response.json["title"] == "Visited", response.json
    assert count == 2, count
