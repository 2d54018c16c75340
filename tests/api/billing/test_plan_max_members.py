"""Plans carry max_members, the members of each team workspace billed to a subscriber (docs/teams.md)."""
import pytest

from trazo.core.workspaces.members import add_member
from trazo.errors import Forbidden
from trazo.extensions import db
from trazo.models import User
from trazo.models.workspaces import Workspace

from ...helpers import validation_errors


def test_admins_create_and_update_a_plans_member_limit(admin, make_plan, client):
    plan = make_plan(code="TEAM", max_members=5)
    assert plan["max_members"] == 5
    updated = admin.put(f"/admin/plans/{plan['id']}", json={"max_members": -1})
    assert updated.status_code == 200 and updated.json["max_members"] is None
    assert admin.put(f"/admin/plans/{plan['id']}", json={"max_members": 8}).json["max_members"] == 8
    assert admin.put(f"/admin/plans/{plan['id']}", json={"name": "Team plan"}).json["max_members"] == 8
    public = {row["code"]: row for row in client.get("/plans").json}
    assert public["TEAM"]["max_members"] == 8 and "max_members" in public["FREE"]


@pytest.mark.parametrize("value", [-2, 1_000_001, "ten", 2.5])
def test_a_bad_member_limit_is_422(admin, value):
    body = {"code": "BAD", "name": "Bad", "price_usd": 1, "max_members": value}
    validation_errors(admin.post("/admin/plans", json=body), "max_members")


def test_the_billing_owners_plan_limits_the_members_of_a_team(app, user, other_user, make_user, make_plan,
                                                              subscribe, make_team):
    third = make_user(email="third@example.com")
    subscribe(user, make_plan(code="DUO", max_members=2))
    team = make_team(user)
    with app.test_request_context():
        workspace, owner = db.session.get(Workspace, team["id"]), db.session.get(User, user.id)
        add_member(workspace, db.session.get(User, other_user.id), "editor", owner, "member_joined")
        db.session.commit()
        with pytest.raises(Forbidden) as refused:
            add_member(workspace, db.session.get(User, third.id), "viewer", owner, "member_joined")
        db.session.rollback()
        db.session.remove()
    assert refused.value.detail["resource_type"] == "members" and refused.value.detail["limit"] == 2
    assert user.get(f"/workspaces/{team['id']}").json["member_count"] == 2
