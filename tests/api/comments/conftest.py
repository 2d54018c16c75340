"""Comment fixtures: a team workspace owned by `user` with a project and a diagram of six lines, and its
members by role (docs/comments.md)."""
import pytest

from ...helpers import create_diagram, create_project, set_role

SOURCE = "graph TD\n  A --> B\n  B --> C\n  C --> D\n  D --> E\n  E --> F\n"


@pytest.fixture
def team(make_team, user):
    return make_team(user)["id"]


@pytest.fixture
def project(user, team):
    return create_project(user, name="Shared", workspace_id=team)


@pytest.fixture
def diagram(user, project):
    return create_diagram(user, project["id"], title="Flow", content=SOURCE)


@pytest.fixture
def member(app, team, make_user):
    """member("viewer"): a new account with that role in the team."""
    def make(role, full_name="Member"):
        web = make_user(full_name=full_name)
        set_role(app, team, web, role)
        return web
    return make


def comment(web, diagram_id, body="Looks good", **fields):
    response = web.post(f"/diagrams/{diagram_id}/comments", json={"body": body, **fields})
    assert response.status_code == 201, response.json
    return response.json


def threads(web, diagram_id, **query):
    response = web.get(f"/diagrams/{diagram_id}/comments", query_string=query)
    assert response.status_code == 200, response.json
    return response.json
