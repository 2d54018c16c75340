"""The size cap of one diagram's content (UTF-8 bytes): text languages and freehand sketches apart,
on every path that writes content: create, update, duplicate and import."""
import io
import json

from ...helpers import create_diagram, validation_errors

MIB = 1024 * 1024


def _sketch(size):
    """A freehand sketch of about `size` bytes (an embedded image, as the editor stores them)."""
    body = {"version": 1, "elements": [{"id": "a", "type": "image", "text": "Logo"}], "files": {"f": ""}}
    padding = size - len(json.dumps(body))
    body["files"]["f"] = "A" * padding
    return json.dumps(body)


def _refused_as_too_large(response):
    (error,) = validation_errors(response, "content")
    assert error["loc"] == ["body", "content"] and error["type"] == "string_too_long", error
    return error["msg"]


def test_a_text_diagram_over_one_mebibyte_is_refused_and_one_at_the_cap_is_stored(user, project):
    path = f"/projects/{project['id']}/diagrams"
    at_cap = user.post(path, json={"title": "Big", "diagram_type": "mermaid", "content": "a" * MIB})
    assert at_cap.status_code == 201 and len(at_cap.json["content"]) == MIB
    message = _refused_as_too_large(user.post(path, json={"title": "Bigger", "diagram_type": "mermaid",
                                                          "content": "a" * (MIB + 1)}))
    assert message == "The content is too large: 1048577 bytes, at most 1048576 bytes for this diagram type."
    spanish = _refused_as_too_large(user.post(path, json={"title": "Bigger", "content": "a" * (MIB + 1)},
                                              lang="es"))
    assert spanish.startswith("El contenido es demasiado grande: 1048577 bytes")
    assert [d["title"] for d in user.get(f"/projects/{project['id']}").json["diagrams"]] == ["Big"]


def test_the_cap_counts_utf8_bytes_not_characters(user, project, app, monkeypatch):
    monkeypatch.setitem(app.config, "MAX_DIAGRAM_CONTENT_BYTES", 1000)
    path = f"/projects/{project['id']}/diagrams"
    assert user.post(path, json={"title": "Ascii", "content": "a" * 1000}).status_code == 201
    _refused_as_too_large(user.post(path, json={"title": "Accents", "content": "ñ" * 501}))  # 1002 bytes


def test_a_freehand_sketch_has_its_own_larger_cap(user, project):
    path = f"/projects/{project['id']}/diagrams"
    sketch = _sketch(3 * MIB)
    stored = user.post(path, json={"title": "Sketch", "diagram_type": "freehand", "content": sketch})
    assert stored.status_code == 201 and stored.json["content"] == sketch
    _refused_as_too_large(user.post(path, json={"title": "As text", "diagram_type": "mermaid", "content": sketch}))


def test_a_sketch_over_its_cap_is_refused(user, project, app, monkeypatch):
    monkeypatch.setitem(app.config, "MAX_SKETCH_CONTENT_BYTES", 2 * MIB)
    response = user.post(f"/projects/{project['id']}/diagrams",
                         json={"title": "Sketch", "diagram_type": "freehand", "content": _sketch(2 * MIB + 10)})
    assert _refused_as_too_large(response).endswith("at most 2097152 bytes for this diagram type.")


def test_an_autosave_over_the_cap_is_refused_and_keeps_the_stored_content(user, diagram):
    path = f"/diagrams/{diagram['id']}"
    _refused_as_too_large(user.put(path, json={"content": "b" * (MIB + 1)}))
    assert user.get(path).json["content"] == diagram["content"]
    assert user.put(path, json={"content": "graph TD; x-->y"}).json["content"] == "graph TD; x-->y"


def test_turning_a_large_sketch_into_a_text_diagram_is_refused(user, project):
    sketch = create_diagram(user, project["id"], title="Sketch", diagram_type="freehand", content=_sketch(2 * MIB))
    _refused_as_too_large(user.put(f"/diagrams/{sketch['id']}", json={"diagram_type": "mermaid"}))
    assert user.get(f"/diagrams/{sketch['id']}").json["diagram_type"] == "freehand"
    # Other fields of an oversized diagram can still be saved.
    assert user.put(f"/diagrams/{sketch['id']}", json={"title": "Renamed"}).status_code == 200


def test_duplicating_a_diagram_over_the_current_cap_is_refused(user, diagram, app, monkeypatch):
    path = f"/diagrams/{diagram['id']}"
    user.put(path, json={"content": "c" * 5000})
    monkeypatch.setitem(app.config, "MAX_DIAGRAM_CONTENT_BYTES", 4000)
    _refused_as_too_large(user.post(f"{path}/duplicate", json={"title": "Copy"}))
    assert len(user.get(f"/projects/{diagram['project_id']}").json["diagrams"]) == 1


def test_an_imported_file_over_the_cap_is_skipped_as_too_large(user, project, app, monkeypatch):
    monkeypatch.setitem(app.config, "MAX_DIAGRAM_CONTENT_BYTES", 2000)
    files = [(io.BytesIO(b"graph TD\n" + b"  A --> B\n" * 300), "big.mmd"),
             (io.BytesIO(b"graph TD\n  A --> B\n"), "small.mmd")]
    response = user.post(f"/projects/{project['id']}/import", data={"files": files},
                         content_type="multipart/form-data")
    assert response.status_code == 200, response.json
    assert response.json["skipped"] == [{"source": "big.mmd", "reason": "too_large"}]
    assert [d["title"] for d in response.json["diagrams"]] == ["small"]
    assert len(response.json["created_diagram_ids"]) == 1
