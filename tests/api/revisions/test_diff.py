"""Comparing revisions: a unified diff with counts, and for freehand sketches the elements added, removed
and changed."""
import json

import pytest

from ...helpers import create_diagram, validation_errors


def _diff(web, diagram_id, number, **query):
    response = web.get(f"/diagrams/{diagram_id}/revisions/{number}/diff", query_string=query)
    assert response.status_code == 200, response.json
    return response.json


@pytest.fixture
def edited(user, diagram, configure):
    """Revisions 1 (A-->B), 2 (B-->C added), 3 (A-->B changed to A-->X); the diagram then at X-->Y."""
    configure(REVISION_COALESCE_SECONDS=0)
    path = f"/diagrams/{diagram['id']}"
    user.put(path, json={"content": "graph TD\nA-->B\nB-->C\n"})
    user.put(path, json={"content": "graph TD\nA-->X\nB-->C\n", "title": "Flow 3"})
    return diagram


def test_a_revision_is_compared_with_the_one_before_by_default(user, edited):
    body = _diff(user, edited["id"], 2)
    assert body["from"] == {"number": 1, "title": "Flow", "diagram_type": "mermaid", "label": None}
    assert body["to"]["number"] == 2 and (body["lines_added"], body["lines_removed"]) == (1, 0)
    assert body["diff"].startswith("--- revision 1\n+++ revision 2\n")
    assert "\n+B-->C\n" in body["diff"] and body["sketch"] is None


def test_the_first_revision_is_compared_with_nothing(user, edited):
    body = _diff(user, edited["id"], 1)
    assert body["from"]["number"] is None and (body["lines_added"], body["lines_removed"]) == (2, 0)


def test_any_two_revisions_are_compared_oldest_first(user, edited):
    forward, backward = _diff(user, edited["id"], 3, against="1"), _diff(user, edited["id"], 1, against="3")
    assert forward == backward
    assert (forward["from"]["number"], forward["to"]["number"]) == (1, 3)
    assert forward["to"]["title"] == "Flow 3" and (forward["lines_added"], forward["lines_removed"]) == (2, 1)
    assert "-A-->B\n+A-->X\n+B-->C\n" in forward["diff"]


def test_a_revision_is_compared_with_the_current_diagram(user, edited):
    user.put(f"/diagrams/{edited['id']}", json={"content": "graph TD\nX-->Y\n", "title": "Now"})
    body = _diff(user, edited["id"], 1, against="current")
    assert body["to"] == {"number": None, "title": "Now", "diagram_type": "mermaid", "label": None}
    assert (body["lines_added"], body["lines_removed"]) == (1, 1) and body["diff"].endswith("+X-->Y\n")


def test_a_revision_compared_with_itself_is_empty(user, edited):
    body = _diff(user, edited["id"], 2, against="2")
    assert body["diff"] == "" and body["lines_added"] == body["lines_removed"] == 0


@pytest.mark.parametrize("against", ["latest", "-1", "0x1", "1" * 10, "²"])
def test_a_bad_against_is_refused(user, edited, against):
    validation_errors(user.get(f"/diagrams/{edited['id']}/revisions/2/diff", query_string={"against": against}),
                      "against", where="query")


def test_an_unknown_against_revision_is_not_found(user, edited):
    response = user.get(f"/diagrams/{edited['id']}/revisions/2/diff", query_string={"against": "77"})
    assert response.status_code == 404 and response.json == {"detail": "Revision not found"}


def _sketch(*elements):
    return json.dumps({"type": "excalidraw", "version": 2, "elements": list(elements), "appState": {}})


def test_freehand_revisions_get_a_structural_summary(user, project, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    box = {"id": "box", "type": "rectangle", "x": 0, "y": 0, "width": 10, "height": 10}
    arrow = {"id": "arrow", "type": "arrow", "x": 5, "y": 5}
    text = {"id": "note", "type": "text", "text": "hi", "x": 1, "y": 1}
    sketch = create_diagram(user, project["id"], diagram_type="freehand", content=_sketch(box, arrow, text))
    user.put(f"/diagrams/{sketch['id']}", json={
        "content": _sketch({**box, "width": 20}, {**text, "isDeleted": True}, {"id": "circle", "type": "ellipse"})})
    summary = _diff(user, sketch["id"], 2)["sketch"]
    assert summary["elements_added"] == ["circle"] and summary["elements_removed"] == ["arrow", "note"]
    assert summary["elements_changed"] == ["box"] and summary["truncated"] is False
    assert (summary["added_count"], summary["removed_count"], summary["changed_count"]) == (1, 2, 1)


def test_a_freehand_revision_that_is_not_a_sketch_has_no_summary(user, project):
    sketch = create_diagram(user, project["id"], diagram_type="freehand", content="not json")
    body = _diff(user, sketch["id"], 1)
    assert body["sketch"] is None and body["lines_added"] == 1


def test_the_diff_of_the_largest_diagrams_answers(user, project, configure):
    """Two unrelated 1 MiB texts of short lines: the diff falls back to a bounded comparison."""
    configure(REVISION_COALESCE_SECONDS=0)
    first = "".join(f"{n}\n" for n in range(200_000))[:1_000_000]
    second = "".join(f"{n * 7}\n" for n in range(200_000))[:1_000_000]
    diagram = create_diagram(user, project["id"], diagram_type="mermaid", content=first.rpartition("\n")[0] + "\n")
    user.put(f"/diagrams/{diagram['id']}", json={"content": second.rpartition("\n")[0] + "\n"})
    body = _diff(user, diagram["id"], 2)
    assert body["lines_added"] > 100_000 and body["lines_removed"] > 100_000


def test_the_diff_route_is_rate_limited(user, edited, app, monkeypatch):
    monkeypatch.setitem(app.config, "RATE_LIMIT_REVISION_DIFF", "2/minute")
    path = f"/diagrams/{edited['id']}/revisions/2/diff"
    assert [user.get(path).status_code for _ in range(3)] == [200, 200, 429]
