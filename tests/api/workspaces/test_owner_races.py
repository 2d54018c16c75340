"""Races on the last-owner rule (PostgreSQL: SQLite serializes every write anyway): two owners demoting or
removing each other at the same moment still leave one owner."""
import pytest

from trazo.extensions import db

from ...helpers import at_once


@pytest.fixture(autouse=True)
def on_postgresql(app):
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("concurrent transactions with row locks are PostgreSQL's")


def _owners(client, team):
    return sorted(m["user_id"] for m in client.get(f"/workspaces/{team['id']}/members").json if m["role"] == "owner")


@pytest.mark.parametrize("attempt", range(5))
def test_two_owners_demoting_each_other_at_once_leave_one_owner(user, other_user, make_team, attempt):
    team = make_team(user, members=[(other_user, "owner")])
    pairs = [(user, other_user), (other_user, user)]
    statuses = at_once(2, lambda index: pairs[index][0].put(
        f"/workspaces/{team['id']}/members/{pairs[index][1].id}", json={"role": "admin"}).status_code)
    assert statuses in ([200, 403], [200, 409])  # the loser is an admin by then, or would leave no owner
    assert len(_owners(user, team) or _owners(other_user, team)) == 1


@pytest.mark.parametrize("attempt", range(5))
def test_two_owners_removing_each_other_at_once_leave_one_owner(user, other_user, make_team, attempt):
    team = make_team(user, members=[(other_user, "owner")])
    pairs = [(user, other_user), (other_user, user)]
    statuses = at_once(2, lambda index: pairs[index][0].delete(
        f"/workspaces/{team['id']}/members/{pairs[index][1].id}").status_code)
    assert statuses == [200, 404]  # the loser is no member any more
    survivors = [client for client in (user, other_user)
                 if client.get(f"/workspaces/{team['id']}").status_code == 200]
    assert len(survivors) == 1 and _owners(survivors[0], team) == [survivors[0].id]


@pytest.mark.parametrize("attempt", range(3))
def test_two_owners_leaving_at_once_leave_one_owner(user, other_user, make_team, attempt):
    team = make_team(user, members=[(other_user, "owner")])
    clients = [user, other_user]
    statuses = at_once(2, lambda index: clients[index].post(f"/workspaces/{team['id']}/leave").status_code)
    assert statuses == [200, 409]
    survivors = [client for client in clients if client.get(f"/workspaces/{team['id']}").status_code == 200]
    assert len(survivors) == 1 and _owners(survivors[0], team) == [survivors[0].id]
