"""Invitations by e-mail (issue 27): an admin invites an address with a role up to their own, the address
gets a link in the request's language, and only the account with that address accepts it, once."""
from datetime import timedelta

from sqlalchemy import select, update

from trazo.core.billing.plans import free_plan
from trazo.extensions import db
from trazo.models.workspaces import Invitation, Membership, WorkspaceEvent

from ...helpers import UNKNOWN_ID, create_project, error_detail, validation_errors
from .conftest import invitation_token

INVITATION_FIELDS = {"id", "email", "role", "created_at", "expires_at", "invited_by"}
WORKSPACE_FIELDS = {"id", "name", "kind", "role", "member_count", "billing_owner_id", "created_at"}


def _events(app, team_id):
    with app.app_context():
        return [(event.event, event.details) for event in db.session.scalars(
            select(WorkspaceEvent).where(WorkspaceEvent.workspace_id == team_id).order_by(WorkspaceEvent.created_at))]


def set_free_max_members(app, limit):
    """The FREE plan's max_members (the admin plan route does not take it yet)."""
    with app.app_context():
        free_plan().max_members = limit
        db.session.commit()


def _expire_invitations(app, team_id, days_ago=1):
    with app.app_context():
        from trazo.models.base import utcnow
        db.session.execute(update(Invitation).where(Invitation.workspace_id == team_id)
                           .values(expires_at=utcnow() - timedelta(days=days_ago)))
        db.session.commit()


def test_an_invitation_e_mails_a_link_that_the_invitee_reads_accepts_and_then_sees_the_team_projects(
        app, user, other_user, team, smtp_sink):
    project = create_project(user, name="Roadmap", workspace_id=team)
    created = user.post(f"/workspaces/{team}/invitations", json={"email": "  Other@Example.COM ", "role": "editor"})
    assert created.status_code == 201, created.json
    assert set(created.json) == INVITATION_FIELDS
    assert created.json["email"] == "other@example.com" and created.json["role"] == "editor"
    assert created.json["invited_by"] == {"id": user.id, "full_name": "Test User"}
    message = smtp_sink.wait_for("other@example.com")
    assert message["subject"] == "You are invited to a team workspace on Trazo"
    for body in (message["text"], message["html"]):
        assert "Acme" in body and "Test User" in body and "editor" in body
    token = invitation_token(smtp_sink, "other@example.com")
    assert f"http://localhost:5173/invitations/{token}" in message["html"]
    assert [p["name"] for p in other_user.get("/projects").json] == []

    preview = other_user.get(f"/invitations/{token}")
    assert preview.status_code == 200
    assert preview.json == {"workspace_name": "Acme", "inviter_name": "Test User", "role": "editor",
                            "expires_at": created.json["expires_at"], "email": "other@example.com"}
    accepted = other_user.post(f"/invitations/{token}/accept")
    assert accepted.status_code == 200, accepted.json
    assert set(accepted.json) == WORKSPACE_FIELDS
    assert accepted.json["id"] == team and accepted.json["kind"] == "team" and accepted.json["role"] == "editor"
    assert accepted.json["member_count"] == 2 and accepted.json["billing_owner_id"] == user.id
    listed = other_user.get("/projects").json
    assert [(p["id"], p["role"]) for p in listed] == [(project["id"], "editor")]
    assert other_user.put(f"/projects/{project['id']}", json={"name": "Roadmap 2"}).status_code == 200
    # Used: gone for good, and the audit log tells the story.
    assert error_detail(other_user.post(f"/invitations/{token}/accept"), 404)
    assert error_detail(other_user.get(f"/invitations/{token}"), 404)
    events = _events(app, team)
    assert [name for name, _details in events] == ["invitation_created", "invitation_accepted"]
    assert events[0][1]["email"] == "other@example.com" and events[0][1]["role"] == "editor"
    assert events[1][1]["user_id"] == other_user.id and events[1][1]["invitation_id"] == created.json["id"]


def test_the_invitation_e_mail_is_in_the_request_language(user, team, smtp_sink):
    assert user.post(f"/workspaces/{team}/invitations", json={"email": "ana@example.com", "role": "viewer"},
                     lang="es").status_code == 201
    message = smtp_sink.wait_for("ana@example.com")
    assert message["subject"] == "Te han invitado a un espacio de trabajo de equipo en Trazo"
    assert "Test User te ha invitado" in message["text"] and "«Acme»" in message["text"]
    assert "lector" in message["text"] and "Aceptar la invitación" in message["html"]
    assert "invited" not in message["text"]


def test_a_workspace_name_and_inviter_name_cannot_inject_html_into_the_e_mail(app, make_user, make_team, smtp_sink):
    owner = make_user(full_name='<a href="https://evil.example">Click</a>')
    team = make_team(owner, name="<script>alert(1)</script>")
    assert owner.post(f"/workspaces/{team}/invitations",
                      json={"email": "victim@example.com", "role": "viewer"}).status_code == 201
    html = smtp_sink.wait_for("victim@example.com")["html"]
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '<a href="https://evil.example">' not in html


def test_the_token_is_stored_only_as_a_digest_and_never_in_an_answer(app, user, team, invite):
    token = invite(user, team, "someone@example.com")
    listed = user.get(f"/workspaces/{team}/invitations")
    assert token not in listed.get_data(as_text=True)
    with app.app_context():
        (row,) = db.session.scalars(select(Invitation)).all()
        assert row.token_digest != token and len(row.token_digest) == 64 and token not in row.token_digest


def test_only_the_invited_address_may_accept_and_the_preview_hides_it_from_others(user, other_user, make_user,
                                                                                  team, invite):
    token = invite(user, team, other_user.email)
    stranger = make_user(email="stranger@example.com")
    preview = stranger.get(f"/invitations/{token}")
    assert preview.status_code == 200 and "email" not in preview.json
    detail = error_detail(stranger.post(f"/invitations/{token}/accept"), 403, "invitation_email_mismatch")
    assert detail == "This invitation was sent to another e-mail address"
    spanish = stranger.post(f"/invitations/{token}/accept", lang="es")
    assert (error_detail(spanish, 403, "invitation_email_mismatch")
            == "Esta invitación se envió a otra dirección de correo")
    assert error_detail(stranger.get("/projects", token=None), 401)
    # Still valid for the right person.
    assert other_user.post(f"/invitations/{token}/accept").status_code == 200


def test_an_expired_invitation_answers_410_and_a_new_invitation_replaces_it(app, user, other_user, team, invite):
    token = invite(user, team, other_user.email)
    _expire_invitations(app, team)
    assert error_detail(other_user.get(f"/invitations/{token}"), 410) == "This invitation has expired"
    assert error_detail(other_user.post(f"/invitations/{token}/accept"), 410)
    assert user.get(f"/workspaces/{team}/invitations").json == []
    fresh = invite(user, team, other_user.email, role="viewer")
    assert error_detail(other_user.get(f"/invitations/{token}"), 404)
    assert other_user.post(f"/invitations/{fresh}/accept").json["role"] == "viewer"


def test_a_revoked_invitation_answers_404(app, user, other_user, team, invite):
    token = invite(user, team, other_user.email)
    (pending,) = user.get(f"/workspaces/{team}/invitations").json
    assert set(pending) == INVITATION_FIELDS and pending["invited_by"]["id"] == user.id
    assert user.delete(f"/workspaces/{team}/invitations/{pending['id']}").status_code == 204
    assert error_detail(other_user.post(f"/invitations/{token}/accept"), 404)
    assert error_detail(other_user.get(f"/invitations/{token}"), 404)
    assert error_detail(user.delete(f"/workspaces/{team}/invitations/{pending['id']}"), 404)
    assert user.get(f"/workspaces/{team}/invitations").json == []
    assert [name for name, _details in _events(app, team)] == ["invitation_created", "invitation_revoked"]


def test_inviting_a_member_or_an_address_already_invited_is_a_conflict(user, other_user, team, invite):
    assert error_detail(user.post(f"/workspaces/{team}/invitations",
                                  json={"email": "USER@example.com", "role": "viewer"}), 409)
    invite(user, team, "new@example.com")
    again = user.post(f"/workspaces/{team}/invitations", json={"email": "new@example.com", "role": "admin"})
    assert error_detail(again, 409) == "This address is already invited to this workspace"


def test_admins_invite_up_to_their_own_role_and_only_owners_invite_owners(user, other_user, make_user, team,
                                                                          add_to_team, smtp_sink):
    add_to_team(user, team, other_user, "admin")
    assert other_user.post(f"/workspaces/{team}/invitations",
                           json={"email": "a@example.com", "role": "admin"}).status_code == 201
    refused = other_user.post(f"/workspaces/{team}/invitations", json={"email": "o@example.com", "role": "owner"})
    assert error_detail(refused, 403, "insufficient_role")
    assert user.post(f"/workspaces/{team}/invitations",
                     json={"email": "o@example.com", "role": "owner"}).status_code == 201
    assert smtp_sink.to("o@example.com") and len(smtp_sink.to("a@example.com")) == 1


def test_editors_and_viewers_cannot_invite_list_or_revoke(user, make_user, team, add_to_team, invite):
    editor, viewer = make_user(), make_user()
    add_to_team(user, team, editor, "editor")
    add_to_team(user, team, viewer, "viewer")
    invite(user, team, "x@example.com")
    (pending,) = user.get(f"/workspaces/{team}/invitations").json
    for member in (editor, viewer):
        body = {"email": "y@example.com", "role": "viewer"}
        assert error_detail(member.post(f"/workspaces/{team}/invitations", json=body), 403, "insufficient_role")
        assert error_detail(member.get(f"/workspaces/{team}/invitations"), 403, "insufficient_role")
        assert error_detail(member.delete(f"/workspaces/{team}/invitations/{pending['id']}"), 403,
                            "insufficient_role")
    assert len(user.get(f"/workspaces/{team}/invitations").json) == 1


def test_a_non_member_gets_404_for_everything_of_the_workspace(user, other_user, team, invite):
    invite(user, team, "x@example.com")
    (pending,) = user.get(f"/workspaces/{team}/invitations").json
    body = {"email": other_user.email, "role": "owner"}
    assert error_detail(other_user.post(f"/workspaces/{team}/invitations", json=body), 404) == "Workspace not found"
    assert error_detail(other_user.get(f"/workspaces/{team}/invitations"), 404)
    assert error_detail(other_user.delete(f"/workspaces/{team}/invitations/{pending['id']}"), 404)
    assert error_detail(other_user.get(f"/workspaces/{UNKNOWN_ID}/invitations"), 404)
    assert error_detail(user.delete(f"/workspaces/{team}/invitations/{UNKNOWN_ID}"), 404)


def test_another_workspace_admin_cannot_revoke_this_workspace_invitation(user, other_user, team, make_team, invite):
    invite(user, team, "x@example.com")
    (pending,) = user.get(f"/workspaces/{team}/invitations").json
    own = make_team(other_user, name="Other team")
    assert error_detail(other_user.delete(f"/workspaces/{own}/invitations/{pending['id']}"), 404)
    assert len(user.get(f"/workspaces/{team}/invitations").json) == 1


def test_a_personal_workspace_takes_no_invitations(user):
    project = create_project(user)  # in the personal workspace
    answer = user.post(f"/workspaces/{project['workspace_id']}/invitations",
                       json={"email": "x@example.com", "role": "viewer"})
    assert error_detail(answer, 409) == "A personal workspace has no other members"


def test_every_invitation_route_needs_a_signed_in_user(client, user, team, invite):
    token = invite(user, team, "x@example.com")
    for method, path in (("POST", f"/workspaces/{team}/invitations"), ("GET", f"/workspaces/{team}/invitations"),
                         ("DELETE", f"/workspaces/{team}/invitations/{UNKNOWN_ID}"), ("GET", f"/invitations/{token}"),
                         ("POST", f"/invitations/{token}/accept")):
        assert error_detail(client.request(method, path, json={}), 401), (method, path)


def test_bad_input_is_a_422(user, team):
    for body, field in (({"email": "not-an-address", "role": "viewer"}, "email"),
                        ({"email": "a@example.com", "role": "superuser"}, "role"),
                        ({"role": "viewer"}, "email"), ({"email": "a@example.com"}, "role"),
                        ({"email": "a" * 320 + "@example.com", "role": "viewer"}, "email")):
        validation_errors(user.post(f"/workspaces/{team}/invitations", json=body), field)


def test_the_members_limit_refuses_an_accept_and_keeps_the_invitation(app, user, other_user, team, invite, configure):
    token = invite(user, team, other_user.email)
    set_free_max_members(app, 1)
    detail = error_detail(other_user.post(f"/invitations/{token}/accept"), 403)
    assert detail["error"] == "resource_limit_exceeded" and detail["resource_type"] == "members"
    assert detail["current_usage"] == 1 and detail["limit"] == 1
    assert other_user.get(f"/invitations/{token}").status_code == 200
    with app.app_context():
        assert db.session.scalar(select(Membership).where(Membership.workspace_id == team,
                                                          Membership.user_id == other_user.id)) is None


def test_invitations_are_rate_limited_per_user(user, team, configure):
    configure(RATE_LIMIT_INVITATIONS="3/hour")
    for index in range(3):
        assert user.post(f"/workspaces/{team}/invitations",
                         json={"email": f"p{index}@example.com", "role": "viewer"}).status_code == 201
    refused = user.post(f"/workspaces/{team}/invitations", json={"email": "p9@example.com", "role": "viewer"})
    assert refused.status_code == 429 and refused.headers["Retry-After"]
    # Invite links spend the same budget.
    assert user.post(f"/workspaces/{team}/invite-links", json={"role": "viewer"}).status_code == 429


def test_token_guesses_are_rate_limited_per_address(user, other_user, configure):
    configure(RATE_LIMIT_INVITE_TOKENS="3/minute")
    assert error_detail(other_user.get("/invitations/guess-1"), 404)
    assert error_detail(other_user.post("/invitations/guess-2/accept"), 404)
    assert error_detail(other_user.post("/invite-links/guess-3/join"), 404)
    assert other_user.get("/invitations/guess-4").status_code == 429
    assert user.get("/invitations/guess-5").status_code == 404  # another address


def test_a_workspace_cannot_hold_more_pending_invitations_than_the_cap(app, user, team, monkeypatch):
    from trazo.core.invitations import invitations
    monkeypatch.setattr(invitations, "MAX_PENDING_INVITATIONS", 2)
    for index in range(2):
        assert user.post(f"/workspaces/{team}/invitations",
                         json={"email": f"p{index}@example.com", "role": "viewer"}).status_code == 201
    third = user.post(f"/workspaces/{team}/invitations", json={"email": "p2@example.com", "role": "viewer"})
    assert error_detail(third, 409) == "This workspace already has 2 pending invitations: revoke some first"
    _expire_invitations(app, team)
    assert user.post(f"/workspaces/{team}/invitations",
                     json={"email": "p2@example.com", "role": "viewer"}).status_code == 201


def test_accepting_while_already_a_member_is_a_conflict(user, other_user, team, invite, add_to_team):
    token = invite(user, team, other_user.email, role="viewer")
    with_link = user.post(f"/workspaces/{team}/invite-links", json={"role": "editor"}).json
    assert other_user.post(f"/invite-links/{with_link['token']}/join").status_code == 200
    assert error_detail(other_user.post(f"/invitations/{token}/accept"), 409)
