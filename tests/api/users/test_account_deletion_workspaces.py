"""What deleting an account does to its workspaces (docs/teams.md, "What leaving and deleting do")."""
from trazo.extensions import db
from trazo.models.workspaces import Workspace

from ...helpers import PASSWORD, create_diagram, create_project, error_detail, share

BODY = {"confirmation_phrase": "delete me", "password": PASSWORD}


def _workspace_exists(app, workspace_id):
    with app.app_context():
        found = db.session.get(Workspace, workspace_id) is not None
        db.session.remove()
        return found


def test_the_personal_workspace_and_its_projects_and_links_go_with_the_account(app, user, client):
    personal = user.get("/workspaces").json[0]
    project = create_project(user, name="Mine")
    link = share(user, create_diagram(user, project["id"])["id"])
    assert client.get(f"/shared/{link['token']}/info").status_code == 200
    assert user.delete("/users/me", json=BODY).status_code == 200
    assert not _workspace_exists(app, personal["id"])
    assert client.get(f"/shared/{link['token']}/info").status_code == 404


def test_the_last_owner_of_a_team_others_use_must_hand_it_over_first(user, other_user, make_team):
    team = make_team(user, members=[(other_user, "editor")], name="Platform")
    make_team(user, members=[(other_user, "owner")], name="Shared ownership")
    detail = error_detail(user.delete("/users/me", json=BODY), 409)
    assert "Platform" in detail and "Shared ownership" not in detail
    assert "Platform" in error_detail(user.delete("/users/me", json=BODY, lang="es"), 409)
    assert user.get("/users/me").status_code == 200
    assert [w["name"] for w in user.get("/workspaces").json] == ["Personal", "Platform", "Shared ownership"]
    assert user.put(f"/workspaces/{team['id']}/members/{other_user.id}", json={"role": "owner"}).status_code == 200
    assert user.delete("/users/me", json=BODY).status_code == 200
    assert [w["name"] for w in other_user.get("/workspaces").json] == ["Personal", "Platform", "Shared ownership"]


def test_a_team_with_no_other_member_is_deleted_with_the_account(app, user, make_team):
    team = make_team(user, name="Solo")
    project = create_project(user, workspace_id=team["id"])
    create_diagram(user, project["id"])
    assert user.delete("/users/me", json=BODY).status_code == 200
    assert not _workspace_exists(app, team["id"])


def test_the_billing_ownership_passes_to_the_longest_standing_other_owner(user, other_user, make_user, make_team):
    third = make_user(email="third@example.com")
    team = make_team(user, members=[(other_user, "owner"), (third, "owner")])
    project = create_project(other_user, name="Kept", workspace_id=team["id"])
    assert user.delete("/users/me", json=BODY).status_code == 200
    after = other_user.get(f"/workspaces/{team['id']}").json
    assert after["billing_owner_id"] == other_user.id and after["member_count"] == 2
    assert other_user.get(f"/projects/{project['id']}").status_code == 200
    events = {e["event"]: e for e in other_user.get(f"/workspaces/{team['id']}/audit-log").json["items"][:2]}
    assert events["member_left"]["actor"] is None and events["member_left"]["details"]["account_deleted"] is True
    assert events["billing_owner_changed"]["details"] == {"previous_user_id": user.id, "user_id": other_user.id,
                                                          "automatic": True}


def test_a_plain_member_deleting_the_account_leaves_the_team_and_its_content(user, other_user, make_team):
    team = make_team(user, members=[(other_user, "editor")])
    project = create_project(other_user, name="By the leaver", workspace_id=team["id"])
    assert other_user.delete("/users/me", json=BODY).status_code == 200
    assert user.get(f"/workspaces/{team['id']}").json["member_count"] == 1
    kept = user.get(f"/projects/{project['id']}")
    assert kept.status_code == 200 and kept.json["user_id"] is None
