"""Teams for the invitation tests: a team workspace made in the database (POST /workspaces is another
area's), members brought in through the invitation flow itself."""
import re

import pytest

from trazo.extensions import db
from trazo.models.base import new_id
from trazo.models.workspaces import OWNER, TEAM, Membership, Workspace

LINK = re.compile(r"http://localhost:5173/invitations/([A-Za-z0-9_-]+)")


@pytest.fixture
def make_team(app):
    """make_team(owner, name="Acme"): a team workspace whose owner and billing owner is `owner`; its id."""

    def factory(owner, name="Acme"):
        with app.app_context():
            workspace = Workspace(id=new_id(), name=name, kind=TEAM, billing_owner_id=owner.id)
            db.session.add(workspace)
            db.session.flush()
            db.session.add(Membership(workspace_id=workspace.id, user_id=owner.id, role=OWNER))
            db.session.commit()
            return workspace.id

    return factory


@pytest.fixture
def team(make_team, user):
    return make_team(user)


def invitation_token(smtp_sink, email):
    """The token of the last invitation e-mailed to `email`."""
    return LINK.search(smtp_sink.wait_for(email)["text"]).group(1)


@pytest.fixture
def invite(smtp_sink):
    """invite(admin, team, email, role): POST the invitation (assert 201); the token from the e-mail."""

    def send(inviter, team_id, email, role="editor", **kwargs):
        smtp_sink.clear()
        response = inviter.post(f"/workspaces/{team_id}/invitations", json={"email": email, "role": role}, **kwargs)
        assert response.status_code == 201, response.get_json()
        return invitation_token(smtp_sink, email)

    return send


@pytest.fixture
def add_to_team(invite):
    """add_to_team(owner, team, member, role): invite `member` and accept; the accept's answer."""

    def join(owner, team_id, member, role):
        token = invite(owner, team_id, member.email, role)
        accepted = member.post(f"/invitations/{token}/accept")
        assert accepted.status_code == 200, accepted.get_json()
        return accepted.get_json()

    return join
