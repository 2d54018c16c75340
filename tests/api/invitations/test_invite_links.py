"""Invite links (issue 27): admins make join links for roles up to editor, with an expiry and a number of
uses; anyone signed in joins with one, each join counting a use, within max_uses and max_members."""
from datetime import timedelta

from sqlalchemy import select, update

from trazo.extensions import db
from trazo.models.base import utcnow
from trazo.models.workspaces import InviteLink, Membership, WorkspaceEvent

from ...helpers import UNKNOWN_ID, create_project, error_detail, validation_errors
from .test_invitations import WORKSPACE_FIELDS, set_free_max_members

LINK_FIELDS = {"id", "role", "created_at", "expires_at", "max_uses", "uses", "created_by"}


def _link(admin, team, **body):
    response = admin.post(f"/workspaces/{team}/invite-links", json={"role": "viewer", **body})
    assert response.status_code == 201, response.get_json()
    return response.json


def _members(app, team):
    with app.app_context():
        return dict(db.session.execute(select(Membership.user_id, Membership.role)
                                       .where(Membership.workspace_id == team)).all())


def test_a_link_is_created_shown_once_and_joining_with_it_reaches_the_team_projects(app, user, other_user, team):
    project = create_project(user, name="Team plan", workspace_id=team)
    created = _link(user, team, role="editor", expires_in_days=3, max_uses=5)
    assert set(created) == LINK_FIELDS | {"token", "url"}
    assert created["url"] == f"http://localhost:5173/invite-links/{created['token']}"
    assert created["role"] == "editor" and created["max_uses"] == 5 and created["uses"] == 0
    assert created["created_by"] == {"id": user.id, "full_name": "Test User"}
    assert created["expires_at"][:10] == (utcnow() + timedelta(days=3)).date().isoformat()
    (listed,) = user.get(f"/workspaces/{team}/invite-links").json
    assert set(listed) == LINK_FIELDS and listed["id"] == created["id"]

    joined = other_user.post(f"/invite-links/{created['token']}/join")
    assert joined.status_code == 200, joined.json
    assert set(joined.json) == WORKSPACE_FIELDS and joined.json["role"] == "editor" and joined.json["id"] == team
    assert [(p["id"], p["role"]) for p in other_user.get("/projects").json] == [(project["id"], "editor")]
    assert user.get(f"/workspaces/{team}/invite-links").json[0]["uses"] == 1
    assert error_detail(other_user.post(f"/invite-links/{created['token']}/join"), 409)
    assert user.get(f"/workspaces/{team}/invite-links").json[0]["uses"] == 1
    with app.app_context():
        events = db.session.execute(select(WorkspaceEvent.event, WorkspaceEvent.details)
                                    .where(WorkspaceEvent.workspace_id == team)
                                    .order_by(WorkspaceEvent.created_at)).all()
        row = db.session.scalar(select(InviteLink))
        assert row.token_digest != created["token"] and created["token"] not in row.token_digest
    assert [event for event, _details in events] == ["invite_link_created", "member_joined"]
    assert events[1][1]["user_id"] == other_user.id and events[1][1]["invite_link_id"] == created["id"]


def test_a_link_with_max_uses_is_used_up_after_that_many_joins(app, user, make_user, team):
    created = _link(user, team, max_uses=2)
    first, second, third = make_user(), make_user(), make_user()
    for member in (first, second):
        assert member.post(f"/invite-links/{created['token']}/join").status_code == 200
    used_up = third.post(f"/invite-links/{created['token']}/join")
    assert error_detail(used_up, 410) == "This invite link has been used up"
    assert third.id not in _members(app, team)
    assert user.get(f"/workspaces/{team}/invite-links").json == []  # no longer active


def test_an_expired_link_answers_410_and_a_revoked_one_404(app, user, other_user, team):
    expiring, revoked = _link(user, team), _link(user, team)
    with app.app_context():
        db.session.execute(update(InviteLink).where(InviteLink.id == expiring["id"])
                           .values(expires_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()
    expired = other_user.post(f"/invite-links/{expiring['token']}/join")
    assert error_detail(expired, 410) == "This invite link has expired"
    assert user.delete(f"/workspaces/{team}/invite-links/{revoked['id']}").status_code == 204
    assert error_detail(other_user.post(f"/invite-links/{revoked['token']}/join"), 404) == "Invite link not found"
    assert error_detail(other_user.post("/invite-links/not-a-token/join"), 404)
    assert error_detail(user.delete(f"/workspaces/{team}/invite-links/{revoked['id']}"), 404)
    assert other_user.id not in _members(app, team)


def test_a_refused_join_counts_no_use(app, user, other_user, make_user, team):
    created = _link(user, team, max_uses=1)
    assert error_detail(user.post(f"/invite-links/{created['token']}/join"), 409)  # the owner is a member
    set_free_max_members(app, 1)
    refused = other_user.post(f"/invite-links/{created['token']}/join")
    assert error_detail(refused, 403)["resource_type"] == "members"
    set_free_max_members(app, None)
    assert other_user.post(f"/invite-links/{created['token']}/join").status_code == 200
    assert error_detail(make_user().post(f"/invite-links/{created['token']}/join"), 410)


def test_links_are_for_roles_up_to_editor_within_bounds(user, team):
    for body, field in (({"role": "admin"}, "role"), ({"role": "owner"}, "role"), ({}, "role"),
                        ({"role": "viewer", "expires_in_days": 0}, "expires_in_days"),
                        ({"role": "viewer", "expires_in_days": 31}, "expires_in_days"),
                        ({"role": "viewer", "max_uses": 0}, "max_uses"),
                        ({"role": "viewer", "max_uses": 1001}, "max_uses"),
                        ({"role": "viewer", "max_uses": "many"}, "max_uses")):
        validation_errors(user.post(f"/workspaces/{team}/invite-links", json=body), field)
    unlimited = _link(user, team, role="commenter")
    assert unlimited["max_uses"] is None
    assert unlimited["expires_at"][:10] == (utcnow() + timedelta(days=7)).date().isoformat()


def test_only_admins_manage_links_and_non_members_get_404(user, other_user, make_user, team, add_to_team):
    admin, editor = make_user(), make_user()
    add_to_team(user, team, admin, "admin")
    add_to_team(user, team, editor, "editor")
    created = _link(admin, team, role="editor")
    assert len(user.get(f"/workspaces/{team}/invite-links").json) == 1
    assert error_detail(editor.post(f"/workspaces/{team}/invite-links", json={"role": "viewer"}), 403,
                        "insufficient_role")
    assert error_detail(editor.get(f"/workspaces/{team}/invite-links"), 403, "insufficient_role")
    assert error_detail(editor.delete(f"/workspaces/{team}/invite-links/{created['id']}"), 403, "insufficient_role")
    assert error_detail(other_user.post(f"/workspaces/{team}/invite-links", json={"role": "viewer"}), 404)
    assert error_detail(other_user.get(f"/workspaces/{team}/invite-links"), 404)
    assert error_detail(other_user.delete(f"/workspaces/{team}/invite-links/{created['id']}"), 404)
    assert error_detail(user.delete(f"/workspaces/{team}/invite-links/{UNKNOWN_ID}"), 404)


def test_the_listing_never_shows_tokens(user, team):
    created = _link(user, team)
    listing = user.get(f"/workspaces/{team}/invite-links")
    assert created["token"] not in listing.get_data(as_text=True) and "token" not in listing.json[0]


def test_a_personal_workspace_has_no_invite_links(user):
    personal = create_project(user)["workspace_id"]
    assert error_detail(user.post(f"/workspaces/{personal}/invite-links", json={"role": "viewer"}), 409)


def test_link_routes_need_a_signed_in_user(client, user, team):
    created = _link(user, team)
    for method, path in (("POST", f"/workspaces/{team}/invite-links"), ("GET", f"/workspaces/{team}/invite-links"),
                         ("DELETE", f"/workspaces/{team}/invite-links/{created['id']}"),
                         ("POST", f"/invite-links/{created['token']}/join")):
        assert error_detail(client.request(method, path, json={"role": "viewer"}), 401), (method, path)
    assert user.get(f"/workspaces/{team}/invite-links").json[0]["uses"] == 0


def test_a_workspace_cannot_hold_more_active_links_than_the_cap(user, team, monkeypatch):
    from trazo.core.invitations import links as invite_links
    monkeypatch.setattr(invite_links, "MAX_ACTIVE_LINKS", 2)
    first = _link(user, team)
    _link(user, team)
    third = user.post(f"/workspaces/{team}/invite-links", json={"role": "viewer"})
    assert error_detail(third, 409) == "This workspace already has 2 active invite links: revoke some first"
    assert user.delete(f"/workspaces/{team}/invite-links/{first['id']}").status_code == 204
    _link(user, team)
