"""Races (issue 27, "Races hold"): two accepts of one invitation make one membership; concurrent joins with
one link pass neither its max_uses nor the members limit. Row locks need PostgreSQL (make test-pg)."""
import os

import pytest
from sqlalchemy import func, select

from trazo.extensions import db
from trazo.models.workspaces import InviteLink, Membership

from ...helpers import ApiClient, at_once
from .test_invitations import set_free_max_members

pytestmark = pytest.mark.skipif(not (os.environ.get("TEST_DATABASE_URL") or "").startswith("postgresql"),
                                reason="needs TEST_DATABASE_URL (PostgreSQL): row locks under concurrent requests")


def _clients(app, member, count):
    """`count` clients of `member`, each from an address of its own (the token routes' budget is per address)."""
    return [ApiClient(app.test_client(), f"10.9.0.{index + 1}", member.token) for index in range(count)]


def _race(clients, path):
    """POST `path` from every client at the same instant; the statuses, sorted."""
    return at_once(len(clients), lambda index: clients[index].post(path).status_code)


def _member_count(app, team):
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Membership).where(Membership.workspace_id == team))


def test_two_accepts_of_one_invitation_make_one_membership(app, user, make_user, make_team, invite):
    for round_ in range(5):  # a few rounds, so a missing lock shows up reliably
        team = make_team(user, name=f"Team {round_}")
        invitee = make_user()
        token = invite(user, team, invitee.email)
        statuses = _race(_clients(app, invitee, 2), f"/invitations/{token}/accept")
        assert statuses[0] == 200 and statuses[1] in (404, 409), statuses
        assert _member_count(app, team) == 2


def test_concurrent_joins_never_pass_max_uses(app, user, make_user, make_team):
    for round_, max_uses in enumerate((1, 1, 3)):
        team = make_team(user, name=f"Team {round_}")
        body = {"role": "viewer", "max_uses": max_uses}
        token = user.post(f"/workspaces/{team}/invite-links", json=body).json["token"]
        joiners = [ApiClient(app.test_client(), f"10.9.1.{index + 1}", make_user().token) for index in range(6)]
        statuses = _race(joiners, f"/invite-links/{token}/join")
        assert statuses == [200] * max_uses + [410] * (6 - max_uses)
        assert _member_count(app, team) == 1 + max_uses
        with app.app_context():
            assert db.session.scalar(select(InviteLink.uses).where(InviteLink.workspace_id == team)) == max_uses


def test_concurrent_joins_never_pass_the_members_limit(app, user, make_user, make_team):
    set_free_max_members(app, 3)
    team = make_team(user)
    token = user.post(f"/workspaces/{team}/invite-links", json={"role": "viewer"}).json["token"]
    joiners = [ApiClient(app.test_client(), f"10.9.2.{index + 1}", make_user().token) for index in range(6)]
    statuses = _race(joiners, f"/invite-links/{token}/join")
    assert statuses == [200, 200] + [403] * 4
    assert _member_count(app, team) == 3
    with app.app_context():
        assert db.session.scalar(select(InviteLink.uses)) == 2
