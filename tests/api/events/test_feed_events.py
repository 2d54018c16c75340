"""Every write path publishes its event on the diagram's feed and its workspace's (docs/events.md,
"Events"), with the author and the version it wrote, once it commits: a refused or overtaken write
publishes nothing."""
import io
from datetime import datetime

from sqlalchemy import update

from trazo.core.history import changes
from trazo.extensions import db
from trazo.models.content import Diagram

from ...helpers import create_diagram, create_folder, create_project
from ..invitations.conftest import invitation_token
from .conftest import diagram_path, id_key, person, workspace_path

DIAGRAM_FIELDS = {"diagram_id", "project_id", "folder_id", "version", "title", "author", "at"}


def _when(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _ok(response, status=200):
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:300])
    return response.json


def _same_event(one, other):
    """One event seen on two feeds: the same name and data (each feed numbers its own ids)."""
    assert (one.name, one.data) == (other.name, other.data)
    assert id_key(one.id) and id_key(other.id)


def _new_diagram_feed(follow, client, diagram_id):
    """The feed of a diagram created after the streams opened, from its start: its first event replayed."""
    return follow(client, diagram_path(diagram_id), last_event_id="0-0")


# -- diagrams ------------------------------------------------------------------------------------

def test_a_created_diagram_is_announced_on_the_workspace_feed_and_starts_its_own(team, feeds, follow):
    _on_diagram, on_workspace = feeds()
    editor = team["editor"]
    body = {"title": "Checkout", "diagram_type": "plantuml", "content": "@startuml\nA -> B\n@enduml"}
    created = _ok(editor.post(f"/projects/{team.project['id']}/diagrams", json=body), 201)
    event = on_workspace.next()
    assert event.name == "diagram.created"
    assert event.data == {"diagram_id": created["id"], "project_id": team.project["id"], "folder_id": None,
                          "version": 1, "title": "Checkout", "diagram_type": "plantuml",
                          "author": person(editor), "at": event.data["at"]}
    assert abs((_when(event.data["at"]) - _when(created["created_at"])).total_seconds()) < 2
    _same_event(_new_diagram_feed(follow, team["viewer"], created["id"]).next(), event)


def test_a_viewer_sees_an_editors_save_on_the_diagram_feed_and_the_workspace_feed(team, feeds):
    on_diagram, on_workspace = feeds()
    saved = _ok(team["editor"].put(f"/diagrams/{team.diagram['id']}",
                                   json={"title": "Login flow", "content": "graph TD\n  A --> C"}))
    event = on_diagram.next()
    assert event.name == "diagram.updated" and set(event.data) == DIAGRAM_FIELDS
    assert event.data["diagram_id"] == team.diagram["id"] and event.data["project_id"] == team.project["id"]
    assert event.data["version"] == saved["version"] == 2 and event.data["title"] == "Login flow"
    assert event.author == person(team["editor"]) and event.data["folder_id"] is None
    assert _when(event.data["at"]) == _when(saved["updated_at"])
    _same_event(on_workspace.next(), event)
    again = _ok(team.owner.put(f"/diagrams/{team.diagram['id']}", json={"content": "graph TD\n  A --> D"}))
    second = on_diagram.next()
    assert (second.data["version"], second.author) == (again["version"], person(team.owner)) == (3, person(team.owner))
    assert id_key(second.id) > id_key(event.id)


def test_a_change_of_the_view_alone_publishes_nothing(team, feeds):
    on_diagram, on_workspace = feeds()
    _ok(team["editor"].put(f"/diagrams/{team.diagram['id']}", json={"viewport_zoom": 2.5, "viewport_x": 10}))
    _ok(team["editor"].put(f"/diagrams/{team.diagram['id']}", json={"title": "Real change"}))
    for stream in (on_diagram, on_workspace):
        event = stream.next()
        assert (event.name, event.data["title"], event.data["version"]) == ("diagram.updated", "Real change", 2)


def test_a_save_into_another_folder_is_a_move(team, feeds):
    folder = create_folder(team.owner, team.project["id"], name="Payments")
    on_diagram, on_workspace = feeds()
    _ok(team["editor"].put(f"/diagrams/{team.diagram['id']}", json={"folder_id": folder["id"]}))
    event = on_diagram.next()
    assert event.name == "diagram.moved" and event.data["folder_id"] == folder["id"] and event.data["version"] == 2
    assert event.author == person(team["editor"])
    _same_event(on_workspace.next(), event)


def test_moving_a_diagram_to_another_project_is_a_move_on_both_feeds(team, feeds):
    target = create_project(team.owner, name="Target", workspace_id=team.id)
    on_diagram, on_workspace = feeds()
    moved = _ok(team["editor"].post(f"/diagrams/{team.diagram['id']}/move",
                                    json={"target_project_id": target["id"]}))
    event = on_diagram.next()
    assert event.name == "diagram.moved"
    assert (event.data["project_id"], event.data["folder_id"], event.data["version"]) == (target["id"], None,
                                                                                          moved["version"])
    assert moved["version"] == 2 and event.author == person(team["editor"])
    _same_event(on_workspace.next(), event)


def test_moving_a_diagram_to_another_workspace_is_announced_on_both_workspaces(team, follow, make_team):
    other = make_team(team.owner, name="Other team")
    target = create_project(team.owner, name="Elsewhere", workspace_id=other["id"])
    source_feed = follow(team.owner, workspace_path(team.id))
    target_feed = follow(team.owner, workspace_path(other["id"]))
    _ok(team.owner.post(f"/diagrams/{team.diagram['id']}/move", json={"target_project_id": target["id"]}))
    on_source, on_target = source_feed.next(), target_feed.next()
    assert on_source.name == "diagram.moved" and on_source.data["project_id"] == target["id"]
    _same_event(on_source, on_target)


def test_a_deleted_diagram_ends_its_own_stream_and_is_announced_on_the_workspace(team, feeds):
    on_diagram, on_workspace = feeds()
    _ok(team["editor"].delete(f"/diagrams/{team.diagram['id']}"))
    (event,) = on_diagram.rest()
    assert on_diagram.ended
    assert event.name == "diagram.deleted" and set(event.data) == {"diagram_id", "author", "at"}
    assert event.data["diagram_id"] == team.diagram["id"] and event.author == person(team["editor"])
    _same_event(on_workspace.next(), event)
    create_project(team.owner, name="Later", workspace_id=team.id)
    assert on_workspace.next().name == "project.created"  # the workspace's stream goes on


def test_a_duplicate_is_a_created_diagram_of_its_own(team, feeds, follow):
    on_diagram, on_workspace = feeds()
    copy = _ok(team["editor"].post(f"/diagrams/{team.diagram['id']}/duplicate", json={"title": "Copy"}))
    event = on_workspace.next()
    assert event.name == "diagram.created" and event.data["diagram_id"] == copy["id"] != team.diagram["id"]
    assert (event.data["title"], event.data["version"], event.author) == ("Copy", 1, person(team["editor"]))
    _same_event(_new_diagram_feed(follow, team["viewer"], copy["id"]).next(), event)
    _ok(team.owner.put(f"/diagrams/{team.diagram['id']}", json={"title": "Original"}))
    after = on_diagram.next()  # the original's feed had nothing about the copy
    assert (after.name, after.data["title"]) == ("diagram.updated", "Original")


# -- the files API ------------------------------------------------------------------------------

def test_a_file_put_creates_then_updates_a_diagram_on_both_feeds(team, feeds, follow):
    _on_diagram, on_workspace = feeds()
    editor, files = team["editor"], f"/projects/{team.project['id']}/files"
    created = _ok(editor.put(f"{files}/api/gateway.mmd", data=b"graph TD\n  X --> Y", content_type="text/plain"),
                  201)
    event = on_workspace.next()
    assert event.name == "diagram.created"
    assert (event.data["title"], event.data["version"], event.data["diagram_type"]) == ("gateway", 1, "mermaid")
    assert event.data["folder_id"] is not None and event.author == person(editor)
    on_file = _new_diagram_feed(follow, team["viewer"], event.data["diagram_id"])
    _same_event(on_file.next(), event)
    assert created["created"] is True
    _ok(editor.put(f"{files}/api/gateway.mmd", data=b"graph TD\n  X --> Z", content_type="text/plain"))
    updated = on_file.next()
    assert (updated.name, updated.data["version"], updated.data["diagram_id"]) == ("diagram.updated", 2,
                                                                                   event.data["diagram_id"])
    _same_event(on_workspace.next(), updated)


def test_a_file_put_and_delete_of_an_existing_diagram_reach_its_feed(team, feeds):
    on_diagram, on_workspace = feeds()
    files = f"/projects/{team.project['id']}/files"
    (path,) = [item["path"] for item in _ok(team.owner.get(files))["files"]]
    _ok(team["editor"].put(f"{files}/{path}", data=b"graph LR\n  A --> B", content_type="text/plain"))
    event = on_diagram.next()
    assert (event.name, event.data["version"], event.author) == ("diagram.updated", 2, person(team["editor"]))
    _same_event(on_workspace.next(), event)
    assert team["editor"].delete(f"{files}/{path}").status_code == 204
    (deleted,) = on_diagram.rest()
    assert deleted.name == "diagram.deleted" and deleted.data["diagram_id"] == team.diagram["id"]
    _same_event(on_workspace.next(), deleted)


def test_a_sync_publishes_its_creations_updates_and_deletions(team, feeds, follow):
    on_diagram, on_workspace = feeds()
    sync, files = f"/projects/{team.project['id']}/sync", f"/projects/{team.project['id']}/files"
    (path,) = [item["path"] for item in _ok(team.owner.get(files))["files"]]
    tree = [{"path": path, "content": "graph TD\n  A --> Synced"}, {"path": "new/one.mmd", "content": "graph TD\n  N"}]
    answer = _ok(team["editor"].post(sync, json={"files": tree}))
    assert answer["created"] == ["new/one.mmd"] and answer["updated"] == [path]
    updated = on_diagram.next()
    assert (updated.name, updated.data["version"], updated.author) == ("diagram.updated", 2, person(team["editor"]))
    seen = {event.name: event for event in (on_workspace.next(), on_workspace.next())}
    assert set(seen) == {"diagram.created", "diagram.updated"}
    _same_event(seen["diagram.updated"], updated)
    assert seen["diagram.created"].data["title"] == "one" and seen["diagram.created"].data["version"] == 1
    on_new = _new_diagram_feed(follow, team["viewer"], seen["diagram.created"].data["diagram_id"])
    _same_event(on_new.next(), seen["diagram.created"])
    answer = _ok(team["editor"].post(sync, json={"files": tree[1:], "delete_missing": True}))
    assert answer["deleted"] == [path]
    (deleted,) = on_diagram.rest()
    assert deleted.name == "diagram.deleted" and deleted.data["diagram_id"] == team.diagram["id"]
    _same_event(on_workspace.next(), deleted)


def test_a_dry_run_sync_publishes_nothing(team, feeds):
    on_diagram, on_workspace = feeds()
    sync, files = f"/projects/{team.project['id']}/sync", f"/projects/{team.project['id']}/files"
    (path,) = [item["path"] for item in _ok(team.owner.get(files))["files"]]
    _ok(team["editor"].post(sync, json={"files": [{"path": path, "content": "graph TD\n  Dry"},
                                                  {"path": "dry.mmd", "content": "graph TD\n  D"}], "dry_run": True}))
    _ok(team["editor"].put(f"/diagrams/{team.diagram['id']}", json={"title": "After the dry run"}))
    for stream in (on_diagram, on_workspace):
        event = stream.next()
        assert (event.name, event.data["title"], event.data["version"]) == ("diagram.updated", "After the dry run", 2)


def test_an_import_announces_each_created_diagram(team, feeds, follow):
    _on_diagram, on_workspace = feeds()
    files = [(io.BytesIO(b"graph TD\n  I --> J"), "imported.mmd"),
             (io.BytesIO(b"@startuml\nA -> B\n@enduml"), "seq.puml")]
    answer = _ok(team["editor"].post(f"/projects/{team.project['id']}/import", data={"files": files},
                                     content_type="multipart/form-data"))
    events = [on_workspace.next(), on_workspace.next()]
    assert [event.name for event in events] == ["diagram.created", "diagram.created"]
    assert sorted(event.data["diagram_id"] for event in events) == sorted(answer["created_diagram_ids"])
    assert sorted((event.data["title"], event.data["diagram_type"]) for event in events) == [("imported", "mermaid"),
                                                                                            ("seq", "plantuml")]
    assert {event.author["id"] for event in events} == {team["editor"].id}
    _same_event(_new_diagram_feed(follow, team["viewer"], events[0].data["diagram_id"]).next(), events[0])


# -- revisions ------------------------------------------------------------------------------------

def test_a_restore_is_an_update_to_the_restored_state(team, feeds):
    diagram = f"/diagrams/{team.diagram['id']}"
    _ok(team["editor"].put(diagram, json={"title": "Renamed", "content": "graph TD\n  A --> Z"}))
    on_diagram, on_workspace = feeds()
    restored = _ok(team["editor"].post(f"{diagram}/revisions/1/restore"))
    event = on_diagram.next()
    assert (event.name, event.data["title"], event.data["version"]) == ("diagram.updated", "Flow", 3)
    assert restored["version"] == 3 and event.author == person(team["editor"])
    _same_event(on_workspace.next(), event)


def test_naming_renaming_and_clearing_a_revision_label(team, feeds):
    diagram = f"/diagrams/{team.diagram['id']}"
    on_diagram, on_workspace = feeds()
    _ok(team["editor"].post(f"{diagram}/revisions", json={"label": "v1"}), 201)
    _ok(team.owner.put(f"{diagram}/revisions/1", json={"label": "Release"}))
    _ok(team["editor"].put(f"{diagram}/revisions/1", json={"label": None}))
    expected = [("v1", team["editor"]), ("Release", team.owner), (None, team["editor"])]
    for label, author in expected:
        event = on_diagram.next()
        assert event.name == "revision.labelled"
        assert event.data == {"diagram_id": team.diagram["id"], "revision_number": 1, "label": label,
                              "author": person(author), "at": event.data["at"]}
        _same_event(on_workspace.next(), event)


# -- comments ---------------------------------------------------------------------------------------

def _comment(client, diagram_id, body="Why B?"):
    return _ok(client.post(f"/diagrams/{diagram_id}/comments", json={"body": body}), 201)


def _comment_event(on_diagram, on_workspace, name, comment=None):
    event = on_diagram.next()
    assert event.name == name, event
    if comment is not None:
        assert event.data["comment"] == comment
    _same_event(on_workspace.next(), event)
    return event


def test_a_new_comment_is_published_as_the_comments_api_answers_it(team, feeds):
    on_diagram, on_workspace = feeds()
    created = _comment(team["commenter"], team.diagram["id"])
    event = _comment_event(on_diagram, on_workspace, "comment.created", created)
    assert created["body"] == "Why B?" and event.author == person(team["commenter"])


def test_a_reply_is_a_created_comment_with_its_parent(team, feeds):
    root = _comment(team["commenter"], team.diagram["id"])
    on_diagram, on_workspace = feeds()
    reply = _ok(team.owner.post(f"/comments/{root['id']}/replies", json={"body": "Because"}), 201)
    event = _comment_event(on_diagram, on_workspace, "comment.created", reply)
    assert event.data["comment"]["parent_id"] == root["id"] and event.author == person(team.owner)


def test_an_edited_comment_is_published_with_its_new_body(team, feeds):
    root = _comment(team["commenter"], team.diagram["id"])
    on_diagram, on_workspace = feeds()
    edited = _ok(team["commenter"].put(f"/comments/{root['id']}", json={"body": "Why not C?"}))
    event = _comment_event(on_diagram, on_workspace, "comment.updated", edited)
    assert event.data["comment"]["body"] == "Why not C?"


def test_resolving_and_reopening_a_thread(team, feeds):
    root = _comment(team["commenter"], team.diagram["id"])
    on_diagram, on_workspace = feeds()
    resolved = _ok(team["editor"].post(f"/comments/{root['id']}/resolve"))
    event = _comment_event(on_diagram, on_workspace, "comment.resolved", resolved)
    assert event.data["comment"]["resolved"] is True and event.data["comment"]["resolved_by"] == person(team["editor"])
    reopened = _ok(team["commenter"].post(f"/comments/{root['id']}/reopen"))
    event = _comment_event(on_diagram, on_workspace, "comment.reopened", reopened)
    assert event.data["comment"]["resolved"] is False and event.author == person(team["commenter"])


def test_a_deleted_comment_is_published_by_its_ids(team, feeds):
    root = _comment(team["commenter"], team.diagram["id"])
    reply = _ok(team.owner.post(f"/comments/{root['id']}/replies", json={"body": "Because"}), 201)
    on_diagram, on_workspace = feeds()
    assert team.owner.delete(f"/comments/{reply['id']}").status_code == 204
    event = _comment_event(on_diagram, on_workspace, "comment.deleted",
                           {"id": reply["id"], "diagram_id": team.diagram["id"], "parent_id": root["id"]})
    assert event.author == person(team.owner)


# -- folders ----------------------------------------------------------------------------------------

def test_deleting_a_folder_moves_its_diagrams_to_the_project_root(team, feeds):
    folder = create_folder(team.owner, team.project["id"], name="Old")
    inside = create_diagram(team.owner, team.project["id"], title="Inside", folder_id=folder["id"])
    on_inside, on_workspace = feeds(diagram_id=inside["id"])
    _ok(team["editor"].delete(f"/folders/{folder['id']}"))
    event = on_inside.next()
    assert event.name == "diagram.moved"
    assert (event.data["diagram_id"], event.data["folder_id"], event.data["title"]) == (inside["id"], None, "Inside")
    assert event.author == person(team["editor"])
    _same_event(on_workspace.next(), event)
    _ok(team["editor"].put(f"/diagrams/{inside['id']}", json={"title": "Still here"}))
    assert on_inside.next().data["title"] == "Still here"  # the diagram's stream goes on


def test_deleting_a_folder_with_its_diagrams_deletes_each_on_the_feeds(team, feeds, follow):
    folder = create_folder(team.owner, team.project["id"], name="Old")
    first = create_diagram(team.owner, team.project["id"], title="First", folder_id=folder["id"])
    second = create_diagram(team.owner, team.project["id"], title="Second", folder_id=folder["id"])
    on_first, on_workspace = feeds(diagram_id=first["id"])
    on_second = follow(team["viewer"], diagram_path(second["id"]))
    on_team_diagram = follow(team["viewer"], diagram_path(team.diagram["id"]))
    _ok(team["editor"].delete(f"/folders/{folder['id']}", query_string={"delete_diagrams": "true"}))
    for stream, diagram in ((on_first, first), (on_second, second)):
        (event,) = stream.rest()
        assert (event.name, event.data["diagram_id"]) == ("diagram.deleted", diagram["id"])
        assert event.author == person(team["editor"])
    deleted = {on_workspace.next().data["diagram_id"], on_workspace.next().data["diagram_id"]}
    assert deleted == {first["id"], second["id"]}
    _ok(team["editor"].put(f"/diagrams/{team.diagram['id']}", json={"title": "Outside the folder"}))
    assert on_team_diagram.next().data["title"] == "Outside the folder"  # nothing of the folder's


# -- projects ---------------------------------------------------------------------------------------

def test_creating_and_deleting_a_project_are_announced_on_the_workspace(team, follow):
    stream = follow(team["viewer"], workspace_path(team.id))
    created = create_project(team["editor"], name="Roadmap", workspace_id=team.id)
    event = stream.next()
    assert event.data == {"project_id": created["id"], "name": "Roadmap", "author": person(team["editor"]),
                          "at": event.data["at"]}
    assert event.name == "project.created"
    _ok(team.owner.delete(f"/projects/{created['id']}"))
    event = stream.next()
    assert (event.name, event.data["project_id"], event.data["name"], event.author) == (
        "project.deleted", created["id"], "Roadmap", person(team.owner))


def test_a_transferred_project_leaves_one_workspace_feed_and_joins_the_other(team, follow, make_team):
    other = make_team(team.owner, name="Other team")
    source, target = follow(team.owner, workspace_path(team.id)), follow(team.owner, workspace_path(other["id"]))
    _ok(team.owner.post(f"/projects/{team.project['id']}/transfer", json={"workspace_id": other["id"]}))
    left, arrived = source.next(), target.next()
    assert (left.name, arrived.name) == ("project.deleted", "project.created")
    for event in (left, arrived):
        assert (event.data["project_id"], event.data["name"], event.author) == (team.project["id"], "Shared",
                                                                                person(team.owner))


# -- members ----------------------------------------------------------------------------------------

def test_a_member_who_joins_by_invitation_is_announced(team, follow, make_user, smtp_sink):
    stream = follow(team["viewer"], workspace_path(team.id))
    newcomer = make_user(full_name="Newcomer")
    smtp_sink.clear()
    _ok(team["admin"].post(f"/workspaces/{team.id}/invitations", json={"email": newcomer.email, "role": "commenter"}),
        201)
    _ok(newcomer.post(f"/invitations/{invitation_token(smtp_sink, newcomer.email)}/accept"))
    event = stream.next()
    assert event.name == "member.joined"
    assert event.data == {"workspace_id": team.id, "user": person(newcomer), "role": "commenter",
                          "author": person(newcomer), "at": event.data["at"]}


def test_a_member_who_joins_by_invite_link_is_announced(team, follow, make_user):
    stream = follow(team["viewer"], workspace_path(team.id))
    link = _ok(team["admin"].post(f"/workspaces/{team.id}/invite-links", json={"role": "editor"}), 201)
    newcomer = make_user(full_name="Linked")
    _ok(newcomer.post(f"/invite-links/{link['token']}/join"))
    event = stream.next()
    assert (event.name, event.data["user"], event.data["role"]) == ("member.joined", person(newcomer), "editor")


def test_a_role_change_is_announced(team, follow):
    stream = follow(team["viewer"], workspace_path(team.id))
    _ok(team["admin"].put(f"/workspaces/{team.id}/members/{team['commenter'].id}", json={"role": "editor"}))
    event = stream.next()
    assert event.data == {"workspace_id": team.id, "user": person(team["commenter"]), "role": "editor",
                          "author": person(team["admin"]), "at": event.data["at"]}
    assert event.name == "member.role_changed"


def test_a_removed_member_is_announced_as_left_to_the_others(team, follow):
    stream = follow(team["viewer"], workspace_path(team.id))
    _ok(team["admin"].delete(f"/workspaces/{team.id}/members/{team['editor'].id}"))
    event = stream.next()
    assert event.data == {"workspace_id": team.id, "user": person(team["editor"]), "role": "editor",
                          "author": person(team["admin"]), "at": event.data["at"]}
    assert event.name == "member.left"
    create_project(team.owner, name="After", workspace_id=team.id)
    assert stream.next().name == "project.created"  # someone else's departure does not end the stream


# -- what publishes nothing -------------------------------------------------------------------------

def test_a_refused_save_publishes_nothing(team, feeds, configure):
    on_diagram, on_workspace = feeds()
    diagram = f"/diagrams/{team.diagram['id']}"
    stale = team["editor"].put(diagram, json={"title": "Stale"}, headers={"If-Match": '"7"'})
    assert stale.status_code == 412 and stale.json["error_code"] == "version_conflict"
    assert team["viewer"].put(diagram, json={"title": "Not allowed"}).status_code == 403
    configure(MAX_DIAGRAM_CONTENT_BYTES=30)
    too_big = team["editor"].put(diagram, json={"title": "Too big", "content": "graph TD\n" + "  A --> B\n" * 5})
    assert too_big.status_code == 422, too_big.json
    _ok(team["editor"].put(diagram, json={"title": "Fresh"}, headers={"If-Match": '"1"'}))
    for stream in (on_diagram, on_workspace):
        event = stream.next()
        assert (event.name, event.data["title"], event.data["version"]) == ("diagram.updated", "Fresh", 2)


def test_an_overtaken_save_publishes_only_what_its_retry_committed(team, feeds, monkeypatch):
    """A save whose UPDATE finds another version than the one it read is rolled back and run again
    (core/history/changes.retrying): the overtaken attempt records no event (a save records its event once
    its UPDATE found the version it read), and only the retry's is published (one diagram.moved, not two)."""
    folder = create_folder(team.owner, team.project["id"], name="Target")
    real_write = changes.write_change
    overtaken, writes = [], []

    def overtake_then_write(diagram, data, history, ignored=frozenset()):
        writes.append(data)
        if not overtaken:  # the row's version moves under this attempt: its UPDATE will find no row
            overtaken.append(diagram.version + 1)
            db.session.execute(update(Diagram).where(Diagram.id == diagram.id).values(version=Diagram.version + 1)
                               .execution_options(synchronize_session=False))
        real_write(diagram, data, history, ignored)

    monkeypatch.setattr(changes, "write_change", overtake_then_write)
    on_diagram, on_workspace = feeds()
    saved = _ok(team["editor"].put(f"/diagrams/{team.diagram['id']}", json={"folder_id": folder["id"]}))
    assert overtaken == [2] and saved["version"] == 2  # the overtaking bump went with the rollback
    assert len(writes) == 2  # written twice: the first attempt failed and was retried
    monkeypatch.undo()
    _ok(team.owner.put(f"/diagrams/{team.diagram['id']}", json={"title": "Next"}))
    for stream in (on_diagram, on_workspace):
        first, second = stream.next(), stream.next()
        assert [(e.name, e.data["folder_id"], e.data["version"]) for e in (first, second)] == [
            ("diagram.moved", folder["id"], 2), ("diagram.updated", folder["id"], 3)]


def test_a_silent_feed_sends_keep_alive_comments(team, follow):
    stream = follow(team["viewer"], diagram_path(team.diagram["id"]))  # SSE_KEEPALIVE_SECONDS is 0.1 here
    assert stream.quiet(0.65) == []
    assert 2 <= stream.keep_alives <= 8  # one after each silent interval, not a burst
