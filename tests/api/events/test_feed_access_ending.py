"""Open streams end when their caller loses access (docs/events.md, "Access ends, streams end"): removed,
left, password changed, deactivated, token expired, the diagram gone or moved out of their workspaces. The
worker's check runs every SSE_ACCESS_CHECK_SECONDS (1 here), and the stream's last event is `error`
`access_ended`; a workspace stream ends right after its caller's own `member.left`."""
import time

import pytest

from trazo.core.accounts.session_tokens import issue_session_token
from trazo.extensions import db
from trazo.models import User

from ...helpers import NEW_PASSWORD, PASSWORD, create_project
from .conftest import diagram_path, person, refused, workspace_path

ENDED = {"message": "You no longer have access to this feed.", "error_code": "access_ended"}
WITHIN = 5.0  # seconds: a check runs every second, and the hub's thread wakes at least once a second


@pytest.fixture(autouse=True)
def checked_every_second(configure):
    configure(SSE_ACCESS_CHECK_SECONDS=1)


def _ends_with_access_ended(stream):
    """The stream's one remaining event is the `error`, and then it is closed."""
    started = time.monotonic()
    events = stream.rest(timeout=WITHIN)
    assert stream.ended and time.monotonic() - started < WITHIN
    assert [(event.name, event.data, event.id) for event in events] == [("error", ENDED, None)], events


def _ends_after_own_departure(stream, member):
    """A workspace stream's end when its caller leaves or is removed: right after their own member.left (or,
    when the access check ran between the departure's commit and its delivery, with the error instead)."""
    events = stream.rest(timeout=WITHIN)
    assert stream.ended and len(events) == 1, events
    (last,) = events
    if last.name == "member.left":
        assert last.data["user"] == person(member) and last.data["workspace_id"]
    else:
        assert (last.name, last.data) == ("error", ENDED), events


def test_a_removed_viewers_streams_end_and_the_others_go_on(team, feeds, follow, request_stream):
    on_diagram, on_workspace = feeds(team["viewer"])
    editors = follow(team["editor"], diagram_path(team.diagram["id"]))
    removed = team["admin"].delete(f"/workspaces/{team.id}/members/{team['viewer'].id}")
    assert removed.status_code == 200
    _ends_with_access_ended(on_diagram)
    _ends_after_own_departure(on_workspace, team["viewer"])
    saved = team.owner.put(f"/diagrams/{team.diagram['id']}", json={"title": "After the check"})
    assert saved.status_code == 200
    event = editors.next()  # the editor's stream lived through the same checks
    assert (event.name, event.data["title"]) == ("diagram.updated", "After the check")
    assert refused(request_stream(team["viewer"], diagram_path(team.diagram["id"])), 404) == "Diagram not found"


def test_the_ending_event_speaks_the_language_of_the_request(team, follow):
    stream = follow(team["viewer"], diagram_path(team.diagram["id"]), lang="es")
    assert team.owner.delete(f"/workspaces/{team.id}/members/{team['viewer'].id}").status_code == 200
    (event,) = stream.rest(timeout=WITHIN)
    assert event.data == {"message": "Ya no tiene acceso a este flujo de cambios.", "error_code": "access_ended"}


def test_a_member_who_leaves_sees_their_own_departure_last(team, feeds):
    on_diagram, on_workspace = feeds(team["commenter"])
    assert team["commenter"].post(f"/workspaces/{team.id}/leave").status_code == 200
    _ends_after_own_departure(on_workspace, team["commenter"])
    _ends_with_access_ended(on_diagram)


def test_a_departure_ends_the_workspace_stream_at_once_not_at_the_next_check(team, follow, configure):
    configure(SSE_ACCESS_CHECK_SECONDS=60)
    stream = follow(team["commenter"], workspace_path(team.id))
    assert team["commenter"].post(f"/workspaces/{team.id}/leave").status_code == 200
    events = stream.rest(timeout=3)
    assert [(event.name, event.data["user"], event.data["role"]) for event in events] == [
        ("member.left", person(team["commenter"]), "commenter")]
    assert events[0].author == person(team["commenter"])


def test_a_password_change_ends_the_streams_of_the_old_token(team, feeds, follow):
    viewer = team["viewer"]
    on_diagram, on_workspace = feeds(viewer)
    changed = viewer.put("/users/change-password", json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert changed.status_code == 200
    _ends_with_access_ended(on_diagram)
    _ends_with_access_ended(on_workspace)
    renewed = follow(viewer.signed_in(changed.json["access_token"]), diagram_path(team.diagram["id"]))
    assert team.owner.put(f"/diagrams/{team.diagram['id']}", json={"title": "New token"}).status_code == 200
    assert renewed.next().data["title"] == "New token"


def test_a_deactivated_accounts_streams_end(app, team, feeds):
    on_diagram, on_workspace = feeds(team["editor"])
    with app.app_context():
        db.session.get(User, team["editor"].id).is_active = False
        db.session.commit()
        db.session.remove()
    _ends_with_access_ended(on_diagram)
    _ends_with_access_ended(on_workspace)


def test_a_deleted_accounts_streams_end(team, feeds):
    on_diagram, on_workspace = feeds(team["viewer"])
    deleted = team["viewer"].request("DELETE", "/users/me", json={"confirmation_phrase": "delete me"})
    assert deleted.status_code == 200, deleted.json
    _ends_with_access_ended(on_diagram)
    _ends_after_own_departure(on_workspace, team["viewer"])


def test_a_stream_ends_when_its_token_expires(app, team, follow):
    with app.app_context():
        short = issue_session_token(db.session.get(User, team["viewer"].id), lifetime_seconds=1)
    stream = follow(team["viewer"].signed_in(short), diagram_path(team.diagram["id"]))
    _ends_with_access_ended(stream)


def test_a_diagram_moved_to_a_workspace_the_viewer_is_not_in_ends_its_stream(team, feeds, make_team):
    other = make_team(team.owner, name="Private")
    target = create_project(team.owner, name="Private project", workspace_id=other["id"])
    on_diagram, on_workspace = feeds(team["viewer"])
    moved = team.owner.post(f"/diagrams/{team.diagram['id']}/move", json={"target_project_id": target["id"]})
    assert moved.status_code == 200
    events = on_diagram.rest(timeout=WITHIN)
    assert on_diagram.ended and (events[-1].name, events[-1].data) == ("error", ENDED), events
    # the move itself comes first, unless the check ran between its commit and its delivery
    assert [(event.name, event.data["project_id"]) for event in events[:-1]] in ([], [("diagram.moved",
                                                                                      target["id"])])
    assert on_workspace.next().name == "diagram.moved"  # the source workspace is told it left
    create_project(team.owner, name="Still a member", workspace_id=team.id)
    assert on_workspace.next().data["name"] == "Still a member"


def test_a_diagram_moved_within_the_viewers_workspaces_keeps_its_stream(team, follow, make_team):
    other = make_team(team.owner, name="Shared too", members=[(team["viewer"], "viewer")])
    target = create_project(team.owner, name="Shared project", workspace_id=other["id"])
    stream = follow(team["viewer"], diagram_path(team.diagram["id"]))
    moved = team.owner.post(f"/diagrams/{team.diagram['id']}/move", json={"target_project_id": target["id"]})
    assert moved.status_code == 200
    assert stream.next().name == "diagram.moved"
    assert stream.quiet(1.5) == []  # through a check or two
    assert team.owner.put(f"/diagrams/{team.diagram['id']}", json={"title": "Moved and followed"}).status_code == 200
    assert stream.next().data["title"] == "Moved and followed"


def test_a_deleted_projects_diagram_streams_end(team, feeds):
    on_diagram, on_workspace = feeds(team["viewer"])
    assert team.owner.delete(f"/projects/{team.project['id']}").status_code == 200
    _ends_with_access_ended(on_diagram)
    event = on_workspace.next()
    assert (event.name, event.data["project_id"]) == ("project.deleted", team.project["id"])


def test_a_deleted_workspaces_streams_end(team, feeds):
    on_diagram, on_workspace = feeds(team["editor"])
    deleted = team.owner.request("DELETE", f"/workspaces/{team.id}", json={"confirmation": "Team",
                                                                           "password": PASSWORD})
    assert deleted.status_code == 200, deleted.json
    _ends_with_access_ended(on_diagram)
    _ends_with_access_ended(on_workspace)
