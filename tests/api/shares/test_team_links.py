"""Shared links in a team workspace (docs/teams.md): the editors of a diagram manage its link, admins see and
revoke every link of the workspace's diagrams whoever made it; viewers and strangers do not."""
import pytest

from trazo.extensions import db
from trazo.models.base import new_id
from trazo.models.workspaces import TEAM, Membership, Workspace

from ...helpers import create_diagram, create_project, error_detail, share


@pytest.fixture
def team(app, make_user):
    """{role: client} of a team workspace (owner, admin, editor, viewer), its project and diagram."""
    people = {role: make_user(full_name=role.title()) for role in ("owner", "admin", "editor", "viewer")}
    with app.app_context():
        workspace = Workspace(id=new_id(), name="Team", kind=TEAM, billing_owner_id=people["owner"].id)
        db.session.add(workspace)
        db.session.flush()
        db.session.add_all(Membership(workspace_id=workspace.id, user_id=person.id, role=role)
                           for role, person in people.items())
        db.session.commit()
        workspace_id = workspace.id
    project = create_project(people["owner"], name="Team", workspace_id=workspace_id)
    people["diagram"] = create_diagram(people["owner"], project["id"])
    return people


def test_an_admin_sees_and_revokes_a_link_another_member_made(client, team):
    link = share(team["editor"], team["diagram"]["id"])
    seen = team["admin"].get(f"/shared-links/diagram/{team['diagram']['id']}")
    assert seen.status_code == 200 and seen.json["id"] == link["id"] and seen.json["token"] == link["token"]
    assert client.get(f"/shared/{link['token']}/diagram", token=None).status_code == 200
    revoked = team["admin"].delete(f"/shared-links/{link['id']}")
    assert revoked.status_code == 200 and revoked.json == {"message": "Shared link revoked successfully"}
    assert error_detail(client.get(f"/shared/{link['token']}/diagram", token=None), 404)
    assert team["editor"].get(f"/shared-links/diagram/{team['diagram']['id']}").json is None


def test_an_admin_changes_a_link_another_member_made(team):
    link = share(team["owner"], team["diagram"]["id"])
    changed = team["admin"].put(f"/shared-links/{link['id']}", json={"access_type": "protected"})
    assert changed.status_code == 200 and changed.json["access_type"] == "protected"
    assert len(changed.json["access_code"]) >= 4


def test_an_editor_manages_the_link_of_a_diagram_they_edit(team):
    link = share(team["editor"], team["diagram"]["id"])
    replaced = share(team["editor"], team["diagram"]["id"])  # a new link revokes the previous one, whoever made it
    assert replaced["id"] != link["id"]
    assert team["editor"].put(f"/shared-links/{replaced['id']}", json={"allow_copy_code": False}).json[
        "allow_copy_code"] is False
    assert team["editor"].delete(f"/shared-links/{replaced['id']}").status_code == 200


def test_a_viewer_sees_no_link_and_revokes_none(team):
    link = share(team["owner"], team["diagram"]["id"])
    error_detail(team["viewer"].get(f"/shared-links/diagram/{team['diagram']['id']}"), 403, "insufficient_role")
    error_detail(team["viewer"].delete(f"/shared-links/{link['id']}"), 403, "insufficient_role")
    error_detail(team["viewer"].post("/shared-links", json={"diagram_id": team["diagram"]["id"]}), 403,
                 "insufficient_role")
    assert team["owner"].get(f"/shared-links/diagram/{team['diagram']['id']}").json["is_active"] is True


def test_someone_outside_the_workspace_cannot_find_its_links(team, other_user):
    link = share(team["owner"], team["diagram"]["id"])
    assert error_detail(other_user.delete(f"/shared-links/{link['id']}"), 404) == "Shared link not found"
    assert error_detail(other_user.get(f"/shared-links/diagram/{team['diagram']['id']}"), 404) == "Diagram not found"
    assert team["owner"].get(f"/shared-links/diagram/{team['diagram']['id']}").json["is_active"] is True
