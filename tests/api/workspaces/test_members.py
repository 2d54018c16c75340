"""Members of a team workspace: roles, removal, leaving, the billing owner, and the last-owner rule."""
import pytest

from ...helpers import error_detail, validation_errors

LOWER = ["viewer", "commenter", "editor"]


def members_of(client, team):
    response = client.get(f"/workspaces/{team['id']}/members")
    assert response.status_code == 200, response.json
    return {member["user_id"]: member["role"] for member in response.json}


def put_role(client, team, member, role):
    return client.put(f"/workspaces/{team['id']}/members/{member.id}", json={"role": role})


@pytest.fixture
def third(make_user):
    return make_user(email="third@example.com", full_name="Third Person")


def test_any_member_reads_the_members(user, other_user, make_team):
    team = make_team(user, members=[(other_user, "viewer")])
    response = other_user.get(f"/workspaces/{team['id']}/members")
    assert response.status_code == 200
    assert [(m["user_id"], m["email"], m["role"]) for m in response.json] == [
        (user.id, "user@example.com", "owner"), (other_user.id, "other@example.com", "viewer")]
    assert set(response.json[0]) == {"user_id", "email", "full_name", "role", "joined_at"}


@pytest.mark.parametrize("role", LOWER)
def test_changing_roles_and_removing_need_admin(user, other_user, third, make_team, role):
    team = make_team(user, members=[(other_user, role), (third, "viewer")])
    error_detail(put_role(other_user, team, third, "editor"), 403, "insufficient_role")
    error_detail(other_user.delete(f"/workspaces/{team['id']}/members/{third.id}"), 403, "insufficient_role")
    assert members_of(user, team)[third.id] == "viewer"


def test_an_admin_changes_roles_up_to_admin(user, other_user, third, make_team):
    team = make_team(user, members=[(other_user, "admin"), (third, "viewer")])
    response = put_role(other_user, team, third, "admin")
    assert response.status_code == 200
    assert (response.json["user_id"], response.json["role"]) == (third.id, "admin")
    error_detail(put_role(other_user, team, third, "owner"), 403, "insufficient_role")
    error_detail(put_role(other_user, team, user, "editor"), 403, "insufficient_role")
    assert members_of(user, team) == {user.id: "owner", other_user.id: "admin", third.id: "admin"}
    entry = user.get(f"/workspaces/{team['id']}/audit-log").json["items"][0]
    assert entry["event"] == "member_role_changed"
    assert entry["details"] == {"user_id": third.id, "previous_role": "viewer", "role": "admin"}


def test_only_owners_grant_and_take_owner_and_one_owner_stays(user, other_user, make_team):
    team = make_team(user, members=[(other_user, "editor")])
    assert put_role(user, team, other_user, "owner").json["role"] == "owner"
    assert put_role(other_user, team, user, "admin").json["role"] == "admin"
    detail = error_detail(put_role(other_user, team, other_user, "admin"), 409)
    assert "at least one owner" in detail
    es = error_detail(other_user.put(f"/workspaces/{team['id']}/members/{other_user.id}", json={"role": "admin"},
                                     lang="es"), 409)
    assert es != detail
    assert members_of(user, team) == {user.id: "admin", other_user.id: "owner"}


def test_a_role_change_takes_a_known_role_and_a_member(user, other_user, make_team):
    team = make_team(user)
    validation_errors(put_role(user, team, user, "superuser"), "role")
    validation_errors(user.put(f"/workspaces/{team['id']}/members/{user.id}", json={}), "role")
    assert error_detail(put_role(user, team, other_user, "viewer"), 404) == "Member not found"


def test_admins_remove_non_owners_owners_remove_anyone(user, other_user, third, make_team):
    team = make_team(user, members=[(other_user, "admin"), (third, "editor")])
    error_detail(other_user.delete(f"/workspaces/{team['id']}/members/{user.id}"), 403, "insufficient_role")
    response = other_user.delete(f"/workspaces/{team['id']}/members/{third.id}")
    assert response.status_code == 200 and response.json == {"message": "Member removed"}
    assert user.delete(f"/workspaces/{team['id']}/members/{other_user.id}").status_code == 200
    assert members_of(user, team) == {user.id: "owner"}
    error_detail(third.get(f"/workspaces/{team['id']}"), 404)
    assert "at least one owner" in error_detail(user.delete(f"/workspaces/{team['id']}/members/{user.id}"), 409)
    events = [e["event"] for e in user.get(f"/workspaces/{team['id']}/audit-log").json["items"]]
    assert events == ["member_removed", "member_removed", "workspace_created"]


def test_any_member_leaves_but_not_the_last_owner(user, other_user, make_team):
    team = make_team(user, members=[(other_user, "viewer")])
    response = other_user.post(f"/workspaces/{team['id']}/leave")
    assert response.status_code == 200 and response.json == {"message": "You left the workspace"}
    assert [w["kind"] for w in other_user.get("/workspaces").json] == ["personal"]
    error_detail(other_user.post(f"/workspaces/{team['id']}/leave"), 404)
    assert "at least one owner" in error_detail(user.post(f"/workspaces/{team['id']}/leave"), 409)
    assert user.get(f"/workspaces/{team['id']}/audit-log").json["items"][0]["details"] == {
        "user_id": other_user.id, "role": "viewer"}


def test_a_personal_workspace_has_no_members_to_manage(user, other_user):
    personal = user.get("/workspaces").json[0]
    assert "personal" in error_detail(user.post(f"/workspaces/{personal['id']}/leave"), 409)
    assert "personal" in error_detail(put_role(user, personal, user, "admin"), 409)
    assert "personal" in error_detail(user.put(f"/workspaces/{personal['id']}/billing-owner",
                                               json={"user_id": user.id}), 409)
    assert members_of(user, personal) == {user.id: "owner"}
    error_detail(other_user.get(f"/workspaces/{personal['id']}/members"), 404)


def test_the_billing_owner_is_handed_to_another_owner_only(user, other_user, third, make_team):
    team = make_team(user, members=[(other_user, "owner"), (third, "admin")])
    url = f"/workspaces/{team['id']}/billing-owner"
    error_detail(third.put(url, json={"user_id": third.id}), 403, "insufficient_role")
    assert "must be an owner" in error_detail(user.put(url, json={"user_id": third.id}), 409)
    assert "must be an owner" in error_detail(user.put(url, json={"user_id": "nobody"}), 409)
    validation_errors(user.put(url, json={}), "user_id")
    response = user.put(url, json={"user_id": other_user.id})
    assert response.status_code == 200 and response.json["billing_owner_id"] == other_user.id
    entry = user.get(f"/workspaces/{team['id']}/audit-log").json["items"][0]
    assert entry["event"] == "billing_owner_changed"
    assert entry["details"] == {"previous_user_id": user.id, "user_id": other_user.id}


def test_the_billing_owner_leaving_hands_billing_to_the_longest_standing_owner(user, other_user, third, make_team):
    team = make_team(user, members=[(other_user, "owner"), (third, "owner")])
    assert user.post(f"/workspaces/{team['id']}/leave").status_code == 200
    assert other_user.get(f"/workspaces/{team['id']}").json["billing_owner_id"] == other_user.id
    assert put_role(third, team, other_user, "admin").status_code == 200  # the billing owner demoted
    assert third.get(f"/workspaces/{team['id']}").json["billing_owner_id"] == third.id


def test_the_audit_log_is_for_admins_newest_first_and_paged(user, other_user, third, make_team):
    team = make_team(user, members=[(other_user, "editor"), (third, "viewer")])
    for role in ("commenter", "editor", "viewer"):
        put_role(user, team, third, role)
    url = f"/workspaces/{team['id']}/audit-log"
    error_detail(other_user.get(url), 403, "insufficient_role")
    page = user.get(url, query_string={"page": 1, "page_size": 2}).json
    assert (page["total"], page["total_pages"], page["page"], page["page_size"]) == (4, 2, 1, 2)
    assert [e["details"].get("role") for e in page["items"]] == ["viewer", "editor"]
    last = user.get(url, query_string={"page": 2, "page_size": 2}).json["items"]
    assert last[-1]["event"] == "workspace_created" and last[-1]["actor"]["id"] == user.id
    validation_errors(user.get(url, query_string={"page_size": 1000}), "page_size", where="query")
