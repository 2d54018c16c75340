"""Anchors follow the source (docs/comments.md): a lines anchor moves with the diff of every save, or turns
outdated keeping its quote, through the diagrams PUT, the files API PUT, a sync and a restore; an element
anchor turns outdated once its element is gone."""
import json

from ...helpers import create_diagram, save_diagram
from .conftest import SOURCE, comment, threads

LINES_2_3 = {"type": "lines", "start_line": 2, "end_line": 3}


def _anchor(web, diagram_id):
    return threads(web, diagram_id, status="all")["items"][0]["anchor"]


def test_a_lines_anchor_records_its_revision_and_quote_and_starts_where_made(user, diagram):
    made = comment(user, diagram["id"], anchor=LINES_2_3)["anchor"]
    assert made == {"type": "lines", "start_line": 2, "end_line": 3, "revision": 1,
                    "quote": "  A --> B\n  B --> C\n", "current_start_line": 2, "current_end_line": 3,
                    "outdated": False}


def test_lines_inserted_above_shift_the_range_and_unchanged_lines_keep_it(user, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    comment(user, diagram["id"], anchor=LINES_2_3)
    save_diagram(user, diagram["id"], content="%% title\n%% more\n" + SOURCE)
    anchor = _anchor(user, diagram["id"])
    assert (anchor["current_start_line"], anchor["current_end_line"], anchor["outdated"]) == (4, 5, False)
    assert (anchor["start_line"], anchor["end_line"]) == (2, 3)
    save_diagram(user, diagram["id"], content="%% title\n%% more\n" + SOURCE + "  F --> G\n")  # below: no move
    assert (_anchor(user, diagram["id"])["current_start_line"], _anchor(user, diagram["id"])["outdated"]) == (4, False)
    save_diagram(user, diagram["id"], content="%% more\n" + SOURCE + "  F --> G\n")  # one removed above
    assert _anchor(user, diagram["id"])["current_start_line"] == 3


def test_a_changed_anchored_line_makes_the_anchor_outdated_keeping_its_quote_and_last_range(user, diagram):
    comment(user, diagram["id"], anchor=LINES_2_3)
    save_diagram(user, diagram["id"], content="%% x\n" + SOURCE)
    save_diagram(user, diagram["id"], content="%% x\n" + SOURCE.replace("B --> C", "B --> Z"))
    anchor = _anchor(user, diagram["id"])
    assert anchor["outdated"] is True and anchor["quote"] == "  A --> B\n  B --> C\n"
    assert (anchor["current_start_line"], anchor["current_end_line"]) == (3, 4)
    save_diagram(user, diagram["id"], content="graph TD\n")  # outdated stays, the range no longer moves
    assert _anchor(user, diagram["id"])["current_start_line"] == 3


def test_lines_inserted_inside_the_range_or_the_range_removed_make_it_outdated(user, diagram, project):
    comment(user, diagram["id"], anchor=LINES_2_3)
    save_diagram(user, diagram["id"], content=SOURCE.replace("  A --> B\n", "  A --> B\n  A --> Q\n"))
    assert _anchor(user, diagram["id"])["outdated"] is True
    other = comment(user, diagram["id"], anchor={"type": "lines", "start_line": 5, "end_line": 6})
    save_diagram(user, diagram["id"], content="graph TD\n")
    listed = threads(user, diagram["id"])["items"]
    assert next(item for item in listed if item["id"] == other["id"])["anchor"]["outdated"] is True


def test_an_element_anchor_is_outdated_once_its_identifier_is_gone(user, diagram):
    kept = comment(user, diagram["id"], anchor={"type": "element", "element_id": "C"})
    gone = comment(user, diagram["id"], anchor={"type": "element", "element_id": "E"})
    assert kept["anchor"] == {"type": "element", "element_id": "C", "outdated": False}
    save_diagram(user, diagram["id"], content="graph TD\n  A --> B\n  B --> C\n  C --> EE\n")
    anchors = {item["id"]: item["anchor"]["outdated"] for item in threads(user, diagram["id"])["items"]}
    assert anchors == {kept["id"]: False, gone["id"]: True}


def test_a_sketch_element_anchor_is_outdated_once_the_element_is_deleted(user, project):
    def sketch(*ids, deleted=()):
        return json.dumps({"type": "excalidraw", "elements": [
            {"id": key, "type": "rectangle", "isDeleted": key in deleted} for key in ids]})
    drawn = create_diagram(user, project["id"], diagram_type="freehand", content=sketch("box1", "box2"))
    made = comment(user, drawn["id"], anchor={"type": "element", "element_id": "box1"})
    assert made["anchor"]["outdated"] is False
    save_diagram(user, drawn["id"], content=sketch("box1", "box2", deleted=("box1",)))
    assert _anchor(user, drawn["id"])["outdated"] is True


def test_anchors_follow_a_files_api_put(user, project):
    url = f"/projects/{project['id']}/files/flow.mmd"
    created = user.put(url, data=SOURCE, content_type="text/plain")
    assert created.status_code == 201, created.json
    diagram_id = created.json["diagram_id"]
    comment(user, diagram_id, anchor=LINES_2_3)
    assert user.put(url, data="%% top\n" + SOURCE, content_type="text/plain").status_code == 200
    assert _anchor(user, diagram_id)["current_start_line"] == 3


def test_anchors_follow_a_sync(user, project):
    sync = f"/projects/{project['id']}/sync"
    assert user.post(sync, json={"files": [{"path": "flow.mmd", "content": SOURCE}]}).status_code == 200
    diagram_id = user.get(f"/projects/{project['id']}/files").json["files"][0]["diagram_id"]
    comment(user, diagram_id, anchor=LINES_2_3)
    synced = user.post(sync, json={"files": [{"path": "flow.mmd", "content": SOURCE.replace("A --> B", "A --> X")}]})
    assert synced.status_code == 200, synced.json
    assert _anchor(user, diagram_id)["outdated"] is True


def test_anchors_follow_a_restore(user, diagram, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    save_diagram(user, diagram["id"], content="%% a\n%% b\n" + SOURCE)
    comment(user, diagram["id"], anchor={"type": "lines", "start_line": 4, "end_line": 5})
    restored = user.post(f"/diagrams/{diagram['id']}/revisions/1/restore")
    assert restored.status_code == 200, restored.json
    anchor = _anchor(user, diagram["id"])
    assert (anchor["revision"], anchor["current_start_line"], anchor["current_end_line"]) == (2, 2, 3)
    assert anchor["outdated"] is False


def test_a_save_looks_for_anchors_to_move_only_on_a_diagram_with_comments(user, diagram, count_queries):
    def comment_reads(content):
        with count_queries() as counted:
            assert user.put(f"/diagrams/{diagram['id']}", json={"content": content}).status_code == 200
        return [statement for statement in counted.statements
                if statement.lstrip().startswith("SELECT comments.")]  # the save's own statement only counts them

    assert comment_reads(SOURCE + "  F --> G\n") == []
    comment(user, diagram["id"], "on line 2", anchor={"type": "lines", "start_line": 2, "end_line": 2})
    assert len(comment_reads(SOURCE + "  F --> H\n")) == 1
