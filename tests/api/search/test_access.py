"""Who sees what (docs/search.md, "Who finds what"; docs/teams.md): a search spans the caller's workspaces
and nothing else, not even as a count; a filter naming a workspace or project of someone else's is a 404,
as everywhere; personal access tokens with the read scope search too."""
import pytest

from ...helpers import UNKNOWN_ID, create_diagram, create_project, error_detail
from .conftest import search, titles


@pytest.fixture
def team(user, other_user, make_team):
    """A team workspace owned by `other_user`, `user` a viewer of it, with a project and a diagram."""
    workspace = make_team(other_user, members=[(user, "viewer")], name="Platform")
    shared = create_project(other_user, name="Shared", workspace_id=workspace["id"])
    create_diagram(other_user, shared["id"], title="Team flow", content="graph TD\n  gateway --> ledger",
                   diagram_type="mermaid")
    return {"workspace": workspace, "project": shared}


@pytest.fixture
def mine(user, project):
    return [create_diagram(user, project["id"], title="My flow", content="graph TD\n  gateway --> cache"),
            create_diagram(user, project["id"], title="My schema", content="Table gateway {\n  id int\n}",
                           diagram_type="dbml")]


def test_a_search_spans_every_workspace_of_the_caller_and_no_other(user, other_user, make_user, make_team, team,
                                                                  mine):
    create_diagram(other_user, create_project(other_user, name="Private")["id"], title="Their secret",
                   content="graph TD\n  gateway --> vault")
    stranger = make_user()
    outside = make_team(stranger, name="Elsewhere")
    create_diagram(stranger, create_project(stranger, name="Theirs", workspace_id=outside["id"])["id"],
                   title="Outsider", content="graph TD\n  gateway")
    answer = search(user, "gateway")
    assert set(answer) == {"items", "next_cursor"} and answer["next_cursor"] is None
    assert sorted(hit["title"] for hit in answer["items"]) == ["My flow", "My schema", "Team flow"]
    assert sorted(titles(other_user, "gateway")) == ["Team flow", "Their secret"]
    assert titles(stranger, "gateway") == ["Outsider"]


def test_a_removed_member_stops_finding_the_workspace_diagrams(user, other_user, team):
    assert titles(user, "ledger") == ["Team flow"]
    response = other_user.delete(f"/workspaces/{team['workspace']['id']}/members/{user.id}")
    assert response.status_code == 200 and set(response.json) == {"message"}, response.json
    assert search(user, "ledger") == {"items": [], "next_cursor": None}


def test_filters_narrow_to_a_workspace_a_project_and_a_type(user, project, team, mine):
    assert titles(user, "gateway", workspace_id=team["workspace"]["id"]) == ["Team flow"]
    assert sorted(titles(user, "gateway", workspace_id=project["workspace_id"])) == ["My flow", "My schema"]
    assert titles(user, "gateway", project_id=team["project"]["id"]) == ["Team flow"]
    assert titles(user, "gateway", diagram_type="dbml") == ["My schema"]
    assert titles(user, "gateway", diagram_type="DBML") == ["My schema"]
    assert sorted(titles(user, "gateway", workspace_id="", project_id="", diagram_type="", cursor="")) == [
        "My flow", "My schema", "Team flow"]
    assert titles(user, "gateway", diagram_type="dbml", project_id=team["project"]["id"]) == []
    assert titles(user, "gateway", workspace_id=team["workspace"]["id"], project_id=project["id"]) == []


@pytest.mark.parametrize("filter_name, message", [("workspace_id", "Workspace not found"),
                                                  ("project_id", "Project not found")])
def test_a_filter_naming_someone_elses_workspace_or_project_is_not_found(user, other_user, filter_name, message):
    theirs = create_project(other_user, name="Theirs")
    create_diagram(other_user, theirs["id"], title="Hidden", content="graph TD\n  gateway")
    named = theirs["workspace_id"] if filter_name == "workspace_id" else theirs["id"]
    for value in (named, UNKNOWN_ID, "not-an-id"):
        response = user.get("/search", query_string={"q": "gateway", filter_name: value})
        assert error_detail(response, 404) == message


def test_a_read_token_searches_and_a_request_without_a_token_is_refused(user, mint, mine):
    reader = mint(["read"])
    assert sorted(titles(reader, "gateway")) == ["My flow", "My schema"]
    assert sorted(titles(mint(["write"]), "gateway")) == ["My flow", "My schema"]
    response = user.get("/search", query_string={"q": "gateway"}, token=None)
    assert error_detail(response, 401) == "Not authenticated"


def test_searches_are_rate_limited_per_user(user, configure, mint, mine):
    configure(RATE_LIMIT_SEARCH="2/minute")
    assert titles(user, "gateway") and titles(mint(["read"]), "gateway")
    response = user.get("/search", query_string={"q": "gateway"})
    assert response.status_code == 429 and "Retry-After" in response.headers, response.get_json()
    assert set(response.get_json()) == {"detail"}
