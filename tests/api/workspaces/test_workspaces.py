"""Workspaces: list, create, read, rename, delete (docs/teams.md)."""
import pytest

from trazo.core.workspaces.teams import MAX_TEAM_WORKSPACES

from ...helpers import UNKNOWN_ID, create_diagram, create_project, error_detail, share, validation_errors

FIELDS = {"id", "name", "kind", "role", "member_count", "billing_owner_id", "created_at"}


def test_a_new_account_lists_only_its_personal_workspace(user):
    response = user.get("/workspaces")
    assert response.status_code == 200
    (personal,) = response.json
    assert set(personal) == FIELDS
    assert (personal["kind"], personal["role"], personal["member_count"]) == ("personal", "owner", 1)
    assert personal["billing_owner_id"] == user.id and personal["name"] == "Personal"


def test_creating_a_team_makes_the_caller_its_owner_and_billing_owner(user):
    response = user.post("/workspaces", json={"name": "  Platform  "})
    assert response.status_code == 201, response.json
    team = response.json
    assert (team["name"], team["kind"], team["role"], team["member_count"]) == ("Platform", "team", "owner", 1)
    assert team["billing_owner_id"] == user.id
    assert user.get(f"/workspaces/{team['id']}").json == team


def test_the_list_is_personal_first_then_by_name_with_roles_and_counts(user, other_user, make_team):
    make_team(user, name="zeta")
    alpha = make_team(other_user, members=[(user, "viewer")], name="Alpha")
    listed = user.get("/workspaces").json
    assert [w["name"] for w in listed] == ["Personal", "Alpha", "zeta"]
    assert listed[1]["id"] == alpha["id"] and listed[1]["role"] == "viewer" and listed[1]["member_count"] == 2
    assert [w["name"] for w in other_user.get("/workspaces").json] == ["Personal", "Alpha"]


def test_the_list_is_one_statement(user, other_user, make_team, count_queries):
    for index in range(3):
        make_team(other_user, members=[(user, "editor")], name=f"T{index}")
    with count_queries() as counted:
        assert len(user.get("/workspaces").json) == 4
    selects = [s for s in counted.statements if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) == 2  # the caller's account (the token check) and the list


def test_without_a_token_every_route_is_401(client, user, make_team):
    team = make_team(user)
    base = f"/workspaces/{team['id']}"
    for method, path in (("GET", "/workspaces"), ("POST", "/workspaces"), ("GET", base), ("PUT", base),
                         ("DELETE", base), ("GET", f"{base}/members"), ("PUT", f"{base}/members/{user.id}"),
                         ("DELETE", f"{base}/members/{user.id}"), ("POST", f"{base}/leave"),
                         ("PUT", f"{base}/billing-owner"), ("GET", f"{base}/audit-log")):
        error_detail(client.request(method, path, json={}), 401)


def test_a_non_member_gets_404_for_every_route(user, other_user, make_team):
    team = make_team(user)
    base = f"/workspaces/{team['id']}"
    for method, path, body in (("GET", base, None), ("PUT", base, {"name": "Mine"}),
                               ("DELETE", base, {"confirmation": "Team", "password": other_user.password}),
                               ("GET", f"{base}/members", None),
                               ("PUT", f"{base}/members/{user.id}", {"role": "viewer"}),
                               ("DELETE", f"{base}/members/{user.id}", None), ("POST", f"{base}/leave", None),
                               ("PUT", f"{base}/billing-owner", {"user_id": other_user.id}),
                               ("GET", f"{base}/audit-log", None)):
        assert error_detail(other_user.request(method, path, json=body), 404) == "Workspace not found", path
    assert user.get(f"/workspaces/{team['id']}").json["name"] == "Team"
    error_detail(user.get(f"/workspaces/{UNKNOWN_ID}"), 404)


@pytest.mark.parametrize("role", ["viewer", "commenter", "editor"])
def test_renaming_needs_admin(user, other_user, make_team, role):
    team = make_team(user, members=[(other_user, role)])
    response = other_user.put(f"/workspaces/{team['id']}", json={"name": "Taken"})
    error_detail(response, 403, "insufficient_role")
    assert user.get(f"/workspaces/{team['id']}").json["name"] == "Team"


def test_an_admin_renames_and_the_log_says_so(user, other_user, make_team):
    team = make_team(user, members=[(other_user, "admin")])
    response = other_user.put(f"/workspaces/{team['id']}", json={"name": "Renamed"})
    assert response.status_code == 200 and response.json["name"] == "Renamed" and response.json["role"] == "admin"
    latest = user.get(f"/workspaces/{team['id']}/audit-log").json["items"][0]
    assert latest["event"] == "workspace_renamed"
    assert latest["details"] == {"previous_name": "Team", "name": "Renamed"}
    assert latest["actor"] == {"id": other_user.id, "full_name": "Test User"}


@pytest.mark.parametrize("body, field", [({}, "name"), ({"name": "   "}, "name"), ({"name": "x" * 201}, "name"),
                                         ({"name": 7}, "name")])
def test_bad_names_are_422(user, body, field):
    validation_errors(user.post("/workspaces", json=body), field)
    assert len(user.get("/workspaces").json) == 1


def test_one_account_is_billing_owner_of_a_bounded_number_of_teams(user, app):
    from trazo.extensions import db
    from trazo.models.workspaces import TEAM, Workspace

    with app.app_context():
        db.session.add_all([Workspace(name=f"W{i}", kind=TEAM, billing_owner_id=user.id)
                            for i in range(MAX_TEAM_WORKSPACES)])
        db.session.commit()
    detail = error_detail(user.post("/workspaces", json={"name": "One more"}), 409)
    assert str(MAX_TEAM_WORKSPACES) in detail
    assert "50" in error_detail(user.post("/workspaces", json={"name": "One more"}, lang="es"), 409)


def _delete(client, team, confirmation=None, **body):
    return client.delete(f"/workspaces/{team['id']}",
                         json={"confirmation": team["name"] if confirmation is None else confirmation, **body})


def test_an_owner_deletes_a_team_with_its_projects_and_links(user, other_user, make_team, client):
    team = make_team(user, members=[(other_user, "editor")])
    project = create_project(other_user, name="Shared", workspace_id=team["id"])
    diagram = create_diagram(other_user, project["id"])
    link = share(other_user, diagram["id"])
    assert client.get(f"/shared/{link['token']}/info").status_code == 200
    response = _delete(user, team, password=user.password)
    assert response.status_code == 200 and response.json == {"message": "Workspace deleted"}
    assert [w["kind"] for w in other_user.get("/workspaces").json] == ["personal"]
    error_detail(other_user.get(f"/projects/{project['id']}"), 404)
    assert client.get(f"/shared/{link['token']}/info").status_code == 404


@pytest.mark.parametrize("role", ["viewer", "commenter", "editor", "admin"])
def test_deleting_a_team_needs_owner(user, other_user, make_team, role):
    team = make_team(user, members=[(other_user, role)])
    error_detail(_delete(other_user, team, password=other_user.password), 403, "insufficient_role")
    assert user.get(f"/workspaces/{team['id']}").status_code == 200


def test_deleting_needs_the_exact_name_and_a_recent_sign_in(user, make_team):
    team = make_team(user, name="Core team")
    assert "exact name" in error_detail(_delete(user, team, "core team", password=user.password), 400)
    error_detail(_delete(user, team, password="wrong-password"), 403)
    validation_errors(user.delete(f"/workspaces/{team['id']}", json={}), "confirmation")
    assert user.get(f"/workspaces/{team['id']}").status_code == 200


def test_a_personal_workspace_cannot_be_deleted(user):
    personal = user.get("/workspaces").json[0]
    assert "account" in error_detail(_delete(user, personal, password=user.password), 409)
    assert len(user.get("/workspaces").json) == 1
