"""Who may follow a feed (docs/events.md, "Routes"): any member who reads it, from viewer to owner; 401
without a token, 404 for a non-member or an unknown id, 403 for a personal access token; a ticket names one
feed."""
import pytest

from ...helpers import UNKNOWN_ID, error_detail, validation_errors
from .conftest import ROLES, diagram_path, person, refused, workspace_path

FEEDS = {"diagram": diagram_path, "workspace": workspace_path}


def _object_id(team, kind):
    return team.diagram["id"] if kind == "diagram" else team.id


def _feed_path(team, kind, object_id=None):
    return FEEDS[kind](object_id or _object_id(team, kind))


@pytest.mark.parametrize("role", [*ROLES, "owner"])
def test_a_member_of_any_role_follows_the_diagram_and_workspace_feeds(team, feeds, role):
    on_diagram, on_workspace = feeds(team[role])
    saved = team["editor"].put(f"/diagrams/{team.diagram['id']}", json={"title": f"Seen by {role}"})
    assert saved.status_code == 200, saved.json
    for stream in (on_diagram, on_workspace):
        event = stream.next()
        assert event.name == "diagram.updated" and event.data["title"] == f"Seen by {role}"
        assert event.author == person(team["editor"]) and event.data["version"] == 2


@pytest.mark.parametrize("kind", sorted(FEEDS))
def test_a_feed_without_a_token_or_ticket_is_401(team, client, request_stream, kind):
    response = request_stream(client, _feed_path(team, kind))
    assert refused(response, 401) == "Not authenticated"
    assert response.headers["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("kind", sorted(FEEDS))
def test_a_feed_with_a_forged_token_is_401(team, client, request_stream, kind):
    refused(request_stream(client, _feed_path(team, kind), headers={"Authorization": "Bearer not.a.jwt"}), 401)


@pytest.mark.parametrize(("kind", "message"), [("diagram", "Diagram not found"), ("workspace", "Workspace not found")])
def test_a_non_member_gets_404_for_the_feed_as_for_the_object(team, other_user, request_stream, kind, message):
    assert refused(request_stream(other_user, _feed_path(team, kind)), 404) == message
    assert refused(request_stream(other_user, _feed_path(team, kind, UNKNOWN_ID)), 404) == message
    assert error_detail(other_user.post("/events/tickets", json={f"{kind}_id": UNKNOWN_ID}), 404) == message
    assert error_detail(other_user.post("/events/tickets", json={f"{kind}_id": _object_id(team, kind)}), 404) == message


def test_a_member_of_another_workspace_does_not_see_this_ones_events(team, other_user, follow, make_team):
    """The 404 is not only an answer: another team's member follows their own workspace and sees nothing
    of this one's saves, only their own."""
    elsewhere = make_team(other_user, name="Elsewhere")
    stream = follow(other_user, workspace_path(elsewhere["id"]))
    assert team.owner.put(f"/diagrams/{team.diagram['id']}", json={"title": "Private"}).status_code == 200
    created = other_user.post("/projects", json={"name": "Theirs", "workspace_id": elsewhere["id"]})
    assert created.status_code == 201
    event = stream.next()
    assert (event.name, event.data["name"]) == ("project.created", "Theirs")


@pytest.mark.parametrize("kind", sorted(FEEDS))
def test_a_personal_access_token_is_refused_with_403(team, request_stream, kind):
    viewer = team["viewer"]
    minted = viewer.post("/users/me/tokens", json={"name": "ci", "scopes": ["read", "write"]})
    assert minted.status_code == 201, minted.json
    robot = viewer.signed_in(minted.json["token"])
    assert minted.json["token"].startswith("trz_")
    detail = refused(request_stream(robot, _feed_path(team, kind)), 403)
    assert detail == "Personal access tokens cannot be used on this route: sign in instead."
    assert error_detail(robot.post("/events/tickets", json={f"{kind}_id": _object_id(team, kind)}), 403) == detail


@pytest.mark.parametrize("body", [{}, {"diagram_id": "a", "workspace_id": "b"},
                                  {"diagram_id": ""}, {"workspace_id": "x" * 65}, {"project_id": "p"}])
def test_a_ticket_names_exactly_one_feed(team, body):
    response = team["viewer"].post("/events/tickets", json=body)
    detail = validation_errors(response)
    assert detail[0]["loc"][0] == "body", detail


def test_a_ticket_without_a_token_is_401(team, client):
    assert error_detail(client.post("/events/tickets", json={"diagram_id": team.diagram["id"]}), 401)


def test_a_resume_id_longer_than_an_id_can_be_is_422(team, request_stream):
    response = request_stream(team["viewer"], diagram_path(team.diagram["id"]), last_event_id="1" * 65)
    refused(response, 422, field="Last-Event-ID", where="header")
