"""Resuming a feed (docs/events.md, "Resuming: Last-Event-ID"): the events missed since the id come first,
in order and once; when they are gone (an id older than the window, not an id, or more than 500 missed) a
`reset` naming the newest id comes instead, and the stream goes on from there."""
import time

import pytest

from trazo.core.events.streams import feed

from ...helpers import create_project
from .conftest import diagram_path, id_key, person, workspace_path

RESET = {"reason": "events_gone"}


def _save(client, diagram_id, **fields):
    response = client.put(f"/diagrams/{diagram_id}", json=fields)
    assert response.status_code == 200, response.json
    return response.json


def _newest(follow, client, path):
    """The id of the newest event of a feed, read by replaying the whole feed."""
    events = follow(client, path, last_event_id="0-0").replayed()
    assert events, "the feed has no event"
    return events[-1].id


def test_a_reconnect_gets_exactly_the_missed_events_in_order_then_live_ones(team, follow):
    editor, path = team["editor"], diagram_path(team.diagram["id"])
    first = follow(team["viewer"], path)
    _save(editor, team.diagram["id"], title="Seen")
    seen = first.next()
    assert seen.data["title"] == "Seen"
    first.close()  # the connection drops; three changes happen meanwhile
    for title in ("Missed 1", "Missed 2"):
        _save(editor, team.diagram["id"], title=title)
    comment = editor.post(f"/diagrams/{team.diagram['id']}/comments", json={"body": "Missed 3"})
    assert comment.status_code == 201
    again = follow(team["viewer"], path, last_event_id=seen.id)
    missed = [again.next(), again.next(), again.next()]
    assert [(event.name, event.data.get("title") or event.data["comment"]["body"]) for event in missed] == [
        ("diagram.updated", "Missed 1"), ("diagram.updated", "Missed 2"), ("comment.created", "Missed 3")]
    assert [event.data.get("version") for event in missed] == [3, 4, None]
    assert id_key(seen.id) < id_key(missed[0].id) < id_key(missed[1].id) < id_key(missed[2].id)
    _save(team.owner, team.diagram["id"], title="Live")
    live = again.next()  # no replayed event twice, no reset
    assert (live.name, live.data["title"], live.author) == ("diagram.updated", "Live", person(team.owner))
    assert id_key(live.id) > id_key(missed[-1].id)


def test_a_workspace_feed_resumes_with_its_members_projects_and_diagrams(team, follow):
    path = workspace_path(team.id)
    first = follow(team["viewer"], path)
    create_project(team.owner, name="Before", workspace_id=team.id)
    seen = first.next()
    first.close()
    project = create_project(team.owner, name="Missed", workspace_id=team.id)
    _save(team["editor"], team.diagram["id"], title="Missed save")
    role = team["admin"].put(f"/workspaces/{team.id}/members/{team['commenter'].id}", json={"role": "editor"})
    assert role.status_code == 200
    again = follow(team["viewer"], path, last_event_id=seen.id)
    missed = [again.next(), again.next(), again.next()]
    assert [event.name for event in missed] == ["project.created", "diagram.updated", "member.role_changed"]
    assert missed[0].data["project_id"] == project["id"] and missed[1].data["title"] == "Missed save"
    assert missed[2].data["user"] == person(team["commenter"])


def test_resuming_from_the_newest_id_replays_nothing(team, follow):
    path = diagram_path(team.diagram["id"])
    newest = _newest(follow, team["viewer"], path)
    stream = follow(team["viewer"], path, last_event_id=newest)
    _save(team["editor"], team.diagram["id"], title="Only this")
    event = stream.next()
    assert (event.name, event.data["title"]) == ("diagram.updated", "Only this")


def test_without_the_header_a_stream_starts_from_now(team, follow):
    _save(team["editor"], team.diagram["id"], title="Before the stream")
    stream = follow(team["viewer"], diagram_path(team.diagram["id"]))
    _save(team["editor"], team.diagram["id"], title="After")
    assert stream.next().data["title"] == "After"


@pytest.mark.parametrize("last_event_id", ["1000-0", "yesterday", "12-ab", "-1", "9" * 41,
                                           f"{int(time.time() * 1000) + 3_600_000}-0"],
                         ids=["older_than_the_window", "not_an_id", "bad_sequence", "negative", "too_long", "future"])
def test_an_id_whose_events_are_gone_gets_a_reset_naming_the_newest_id(team, follow, last_event_id):
    path = diagram_path(team.diagram["id"])
    newest = _newest(follow, team["viewer"], path)
    stream = follow(team["viewer"], path, last_event_id=last_event_id)
    reset = stream.next()
    assert (reset.name, reset.data, reset.id) == ("reset", RESET, newest)
    _save(team["editor"], team.diagram["id"], title="After the reset")
    event = stream.next()
    assert (event.name, event.data["title"]) == ("diagram.updated", "After the reset")
    assert id_key(event.id) > id_key(reset.id)


def test_an_id_that_left_the_replay_window_gets_a_reset(app, team, follow, monkeypatch):
    monkeypatch.setattr(feed(app).broker, "window_seconds", 1)  # the window is read when the feed is made
    path = diagram_path(team.diagram["id"])
    live = follow(team["owner"], path)
    first = follow(team["viewer"], path)
    _save(team["editor"], team.diagram["id"], title="Old")
    old = first.next()
    first.close()
    assert live.next().id == old.id
    time.sleep(1.1)
    _save(team["editor"], team.diagram["id"], title="New")
    new = live.next()
    stream = follow(team["viewer"], path, last_event_id=old.id)
    reset = stream.next()
    assert (reset.name, reset.data, reset.id) == ("reset", RESET, new.id)


def test_a_reset_on_a_workspace_feed_names_its_newest_event(team, follow):
    path = workspace_path(team.id)
    live = follow(team["owner"], path)
    create_project(team.owner, name="Newest", workspace_id=team.id)
    newest = live.next()
    stream = follow(team["viewer"], path, last_event_id="garbage")
    reset = stream.next()
    assert (reset.name, reset.data, reset.id) == ("reset", RESET, newest.id)


def test_more_than_five_hundred_missed_events_is_a_reset_and_five_hundred_are_replayed(admin, make_team, follow,
                                                                                      configure):
    """One sync creates many diagrams: each is a diagram.created on the workspace's feed."""
    configure(RATE_LIMIT_CREATIONS="10000/hour")
    workspace = make_team(admin, name="Big")["id"]
    project = create_project(admin, name="Bulk", workspace_id=workspace)
    path = workspace_path(workspace)
    start = _newest(follow, admin, path)  # the project's creation

    def sync(prefix, count):
        files = [{"path": f"{prefix}/{index}.mmd", "content": "graph TD\n  A"} for index in range(count)]
        response = admin.post(f"/projects/{project['id']}/sync", json={"files": files})
        assert response.status_code == 200 and len(response.json["created"]) == count, response.json

    sync("a", 500)
    replayed = follow(admin, path, last_event_id=start)
    events = [replayed.next() for _ in range(500)]
    assert [event.name for event in events] == ["diagram.created"] * 500
    assert len({event.data["diagram_id"] for event in events}) == 500
    replayed.close()
    live = follow(admin, path)
    sync("b", 1)
    newest = live.next()
    assert newest.name == "diagram.created" and id_key(newest.id) > id_key(events[-1].id)
    stream = follow(admin, path, last_event_id=start)  # 501 followed it now
    reset = stream.next()
    assert (reset.name, reset.data, reset.id) == ("reset", RESET, newest.id)
    resumed = follow(admin, path, last_event_id=events[-2].id)  # two missed: replayed
    assert [resumed.next().id, resumed.next().id] == [events[-1].id, newest.id]


def _missing_live_deliveries(hub, monkeypatch):
    """The worker's listener misses every live delivery, as while it reconnects to Redis: the streams get
    the events only from the replay that follows (Hub.gap)."""
    monkeypatch.setattr(hub, "deliver", lambda *_args: None)


def test_a_deletion_caught_up_after_a_gap_still_ends_the_diagram_stream(team, follow, hub, monkeypatch):
    stream = follow(team["viewer"], diagram_path(team.diagram["id"]))
    _missing_live_deliveries(hub, monkeypatch)
    _save(team["editor"], team.diagram["id"], title="Missed live")
    assert team["editor"].delete(f"/diagrams/{team.diagram['id']}").status_code == 200
    hub.gap()
    events = stream.rest(timeout=5)  # the access check (every 10 s) would end it much later, with an error
    assert [event.name for event in events] == ["diagram.updated", "diagram.deleted"]
    assert stream.ended


def test_an_own_departure_caught_up_after_a_gap_still_ends_the_workspace_stream(team, follow, hub, monkeypatch):
    stream = follow(team["viewer"], workspace_path(team.id))
    _missing_live_deliveries(hub, monkeypatch)
    assert team["viewer"].post(f"/workspaces/{team.id}/leave").status_code == 200
    create_project(team.owner, name="After they left", workspace_id=team.id)
    hub.gap()
    events = stream.rest(timeout=5)
    assert [(event.name, event.data["user"]) for event in events] == [("member.left", person(team["viewer"]))]
    assert stream.ended
