"""The files API: diagrams addressed by path inside a project (docs/files-api.md)."""
import hashlib
from urllib.parse import quote

import pytest

from ...helpers import create_diagram, create_folder, error_detail, validation_errors

SKETCH = '{"version": 1, "elements": [], "background": "#ffffff"}'
C4 = "@startuml\n!include <C4/C4_Container>\nPerson(user, \"User\")\n@enduml\n"
EVERY_EXTENSION = [
    ("architecture/backend.mmd", "graph TD\n  A --> B\n", None, "mermaid"),
    ("architecture/sequence.puml", "@startuml\nA -> B\n@enduml\n", None, "plantuml"),
    ("architecture/context.puml", C4, None, "c4plantuml"),
    ("docs/diagrams/network.d2", "a -> b\n", None, "d2"),
    ("docs/diagrams/schema.dbml", "Table users {\n  id int\n}\n", None, "dbml"),
    ("graphs/deps.dot", "digraph { a -> b }\n", None, "graphviz"),
    ("sketches/whiteboard.freehand.json", SKETCH, None, "freehand"),
    ("notes/bytes.txt", "{reg: [{bits: 8}]}\n", "wavedrom", "wavedrom"),
    ("root.mmd", "graph LR\n  X --> Y\n", None, "mermaid"),
]


def _url(project, path):
    return f"/projects/{project['id']}/files/{path}"


def _put(web, project, path, content, diagram_type=None, **kwargs):
    if diagram_type is None:
        return web.put(_url(project, path), data=content.encode(), content_type="text/plain", **kwargs)
    return web.put(_url(project, path), json={"content": content, "type": diagram_type}, **kwargs)


def _sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def test_every_extension_round_trips_through_nested_paths(user, project, files_of):
    for path, content, diagram_type, expected in EVERY_EXTENSION:
        created = _put(user, project, path, content, diagram_type)
        assert created.status_code == 201, (path, created.json)
        assert created.json["type"] == expected and created.json["created"] is True and created.json["path"] == path
        assert created.headers["ETag"] == '"1"'
    for path, content, *_rest in EVERY_EXTENSION:
        read = user.get(_url(project, path))
        assert read.status_code == 200 and read.get_data(as_text=True) == content, path
        media = "application/json" if path.endswith(".freehand.json") else "text/plain"
        assert read.mimetype == media and read.mimetype_params["charset"] == "utf-8"
        assert read.headers["ETag"] == '"1"'
    listed = files_of(project["id"])
    assert sorted(listed) == sorted(path for path, *_rest in EVERY_EXTENSION)
    for path, content, _type, expected in EVERY_EXTENSION:
        assert listed[path]["type"] == expected and listed[path]["sha256"] == _sha(content)
        assert listed[path]["size"] == len(content.encode()) and listed[path]["version"] == 1


def test_the_directory_part_is_one_folder_and_the_name_the_title(user, project):
    _put(user, project, "docs/diagrams/api.mmd", "graph TD\n")
    tree = user.get(f"/projects/{project['id']}").json
    folders = {folder["name"]: folder for folder in tree["folders"]}
    assert list(folders) == ["docs/diagrams"]
    assert [diagram["title"] for diagram in folders["docs/diagrams"]["diagrams"]] == ["api"]


def test_an_existing_folder_is_matched_without_regard_to_case(user, project, files_of):
    folder = create_folder(user, project["id"], name="Architecture")
    assert _put(user, project, "architecture/new.mmd", "graph TD\n").status_code == 201
    assert list(files_of(project["id"])) == ["Architecture/new.mmd"]
    assert user.get(f"/folders/{folder['id']}").json["diagrams"][0]["title"] == "new"


def test_the_listing_shows_path_type_size_hash_and_version(user, project):
    diagram = create_diagram(user, project["id"], title="Flow", content="graph TD\nA-->B")
    response = user.get(f"/projects/{project['id']}/files")
    assert response.status_code == 200
    [item] = response.json["files"]
    assert set(item) == {"path", "type", "size", "sha256", "version", "diagram_id", "updated_at"}
    assert item["path"] == "Flow.mmd" and item["type"] == "mermaid" and item["size"] == 14
    assert item["sha256"] == _sha("graph TD\nA-->B") and item["version"] == 1 and item["diagram_id"] == diagram["id"]
    assert response.json["unaddressable"] == []


def test_an_update_records_a_revision_with_source_api_and_identical_content_records_none(user, project, configure):
    configure(REVISION_COALESCE_SECONDS=0)  # else the second save amends the first revision (docs/history.md)
    created = _put(user, project, "flow.mmd", "graph TD\nA-->B\n")
    diagram_id = created.json["diagram_id"]
    updated = _put(user, project, "flow.mmd", "graph TD\nA-->C\n")
    assert updated.status_code == 200 and updated.json["created"] is False and updated.headers["ETag"] == '"2"'
    revisions = user.get(f"/diagrams/{diagram_id}/revisions").json
    assert [item["source"] for item in revisions["items"]] == ["api", "api"]
    again = _put(user, project, "flow.mmd", "graph TD\nA-->C\n")
    assert again.status_code == 200 and again.headers["ETag"] == '"2"' and again.json["version"] == 2
    assert user.get(f"/diagrams/{diagram_id}/revisions").json["total"] == 2
    assert user.get(_url(project, "flow.mmd")).get_data(as_text=True) == "graph TD\nA-->C\n"


def test_a_json_body_sets_type_and_description(user, project):
    response = user.put(_url(project, "flows/login.mmd"), json={"content": "graph TD\n", "description": "Login"})
    assert response.status_code == 201
    assert user.get(f"/diagrams/{response.json['diagram_id']}").json["description"] == "Login"
    refused = user.put(_url(project, "flows/other.mmd"), json={"content": "x", "type": "plantuml"})
    assert "written as .puml" in validation_errors(refused, "type")[0]["msg"]


def test_a_sketch_sent_as_json_is_the_file_itself(user, project):
    response = user.put(_url(project, "board.freehand.json"), data=SKETCH, content_type="application/json")
    assert response.status_code == 201 and response.json["type"] == "freehand"
    assert user.get(_url(project, "board.freehand.json")).get_data(as_text=True) == SKETCH


def test_a_txt_file_needs_its_type(user, project):
    refused = _put(user, project, "notes/bytes.txt", "{reg: []}")
    assert "needs its diagram type" in validation_errors(refused, "type")[0]["msg"]


def test_if_none_match_answers_304_for_the_current_version(user, project):
    _put(user, project, "flow.mmd", "graph TD\n")
    cached = user.get(_url(project, "flow.mmd"), headers={"If-None-Match": '"1"'})
    assert cached.status_code == 304 and cached.headers["ETag"] == '"1"' and cached.get_data() == b""
    _put(user, project, "flow.mmd", "graph LR\n")
    assert user.get(_url(project, "flow.mmd"), headers={"If-None-Match": '"1"'}).status_code == 200


def test_a_stale_if_match_answers_412_and_writes_nothing(user, project):
    _put(user, project, "flow.mmd", "graph TD\n")
    assert _put(user, project, "flow.mmd", "graph LR\n", headers={"If-Match": '"1"'}).status_code == 200
    refused = _put(user, project, "flow.mmd", "graph BT\n", headers={"If-Match": '"1"'})
    assert refused.status_code == 412 and refused.json["error_code"] == "version_conflict"
    assert refused.json["current_version"] == 2 and refused.headers["ETag"] == '"2"'
    spanish = _put(user, project, "flow.mmd", "graph BT\n", headers={"If-Match": '"1"'}, lang="es")
    assert spanish.json["detail"].startswith("Este diagrama se modificó")
    assert user.get(_url(project, "flow.mmd")).get_data(as_text=True) == "graph LR\n"
    assert _put(user, project, "flow.mmd", "graph BT\n", headers={"If-Match": "*"}).status_code == 200


def test_if_match_on_a_missing_file_and_if_none_match_on_an_existing_one_answer_412(user, project, files_of):
    missing = _put(user, project, "new.mmd", "graph TD\n", headers={"If-Match": "*"})
    assert missing.status_code == 412 and missing.json["error_code"] == "file_missing"
    assert _put(user, project, "new.mmd", "graph TD\n", headers={"If-None-Match": "*"}).status_code == 201
    again = _put(user, project, "new.mmd", "graph LR\n", headers={"If-None-Match": "*"})
    assert again.status_code == 412 and again.json["error_code"] == "file_exists"
    assert list(files_of(project["id"])) == ["new.mmd"]


def test_delete_removes_the_diagram_and_a_second_delete_answers_404(user, project, files_of):
    created = _put(user, project, "dir/flow.mmd", "graph TD\n")
    response = user.delete(_url(project, "dir/flow.mmd"))
    assert response.status_code == 204 and response.get_data() == b""
    assert files_of(project["id"]) == {}
    assert user.get(f"/diagrams/{created.json['diagram_id']}").status_code == 404
    assert error_detail(user.delete(_url(project, "dir/flow.mmd")), 404) == "File not found"
    assert error_detail(user.get(_url(project, "dir/flow.mmd")), 404) == "File not found"


def test_a_stale_if_match_keeps_the_file_on_delete(user, project):
    _put(user, project, "flow.mmd", "graph TD\n")
    _put(user, project, "flow.mmd", "graph LR\n")
    assert user.delete(_url(project, "flow.mmd"), headers={"If-Match": '"1"'}).status_code == 412
    assert user.get(_url(project, "flow.mmd")).status_code == 200


def test_paths_are_matched_without_regard_to_case(user, project, files_of):
    _put(user, project, "Docs/Flow.mmd", "graph TD\n")
    assert _put(user, project, "docs/flow.mmd", "graph LR\n").status_code == 200
    assert user.get(_url(project, "DOCS/FLOW.mmd")).get_data(as_text=True) == "graph LR\n"
    assert list(files_of(project["id"])) == ["Docs/Flow.mmd"]


def test_diagrams_without_a_path_are_listed_apart_and_never_written(user, project, files_of):
    slashed = create_diagram(user, project["id"], title="in/out")
    create_diagram(user, project["id"], title="Twin")
    create_diagram(user, project["id"], title="twin")
    response = user.get(f"/projects/{project['id']}/files")
    assert response.json["files"] == []
    reasons = {(item["title"], item["reason"]) for item in response.json["unaddressable"]}
    assert reasons == {("in/out", "invalid_name"), ("Twin", "same_path"), ("twin", "same_path")}
    refused = _put(user, project, "twin.mmd", "graph LR\n")
    assert refused.status_code == 409 and refused.json["error_code"] == "ambiguous_path"
    assert refused.json["paths"] == ["twin.mmd"]
    assert user.get(_url(project, "Twin.mmd")).status_code == 409
    assert user.delete(_url(project, "twin.mmd")).status_code == 409
    assert user.get(f"/diagrams/{slashed['id']}").json["content"] == "graph TD\n  A --> B"


@pytest.mark.parametrize(("path", "words"), [
    ("flow.svg", "Unknown file extension"),
    ("flow", "Unknown file extension"),
    ("flow.MMD", "Unknown file extension"),
    (".mmd", "must not be empty"),
    ("a/../b.mmd", '".."'),
    ("a/./b.mmd", '".."'),
    ("a//b.mmd", "empty segments"),
    ("dir/", "empty segments"),
    ("a\\b.mmd", "backslashes"),
    ("a%01b.mmd", "control characters"),
    ("%20a.mmd", "space"),
    ("a/b .mmd", "must not be empty or end with a space"),
    ("x" * 1025 + ".mmd", "longer than 1024"),
    ("d" * 101 + "/x.mmd", "at most 100 characters"),
])
def test_a_bad_path_answers_422_with_a_clear_message(user, project, path, words):
    for method in ("get", "put", "delete"):
        response = getattr(user, method)(_url(project, path), data=b"graph TD")
        detail = validation_errors(response, "file_path", where="path")
        assert words in detail[0]["msg"], (method, detail)


# Paths a checkout would misplace or a reviewer would misread (issue 24 item 11): invisible format
# characters (Unicode category Cf), a git directory, a Windows drive.
HIDDEN_PATHS = [
    ("flow\u200b.mmd", "U+200B"),  # zero-width space
    ("docs/\u202egpj.mmd", "U+202E"),  # right-to-left override: shows as "docs/jpg.mmd"
    ("\ufeffflow.mmd", "U+FEFF"),  # byte order mark
    ("a\u2066b/x.mmd", "U+2066"),  # left-to-right isolate
    (".git/hooks.mmd", '".git"'),
    ("docs/.GIT/config.mmd", '".GIT"'),
    (".Git./x.mmd", '".Git."'),
    ("git~1/x.mmd", '"git~1"'),
    ("c:/x.mmd", '"c:"'),
    ("C:flow.mmd", '"C:flow.mmd"'),
    ("docs/d:/x.mmd", '"d:"'),
]


@pytest.mark.parametrize(("path", "named"), HIDDEN_PATHS)
def test_format_characters_git_and_drive_segments_are_refused_on_every_route(user, project, files_of, path, named):
    for method in ("put", "get", "delete"):
        response = getattr(user, method)(_url(project, quote(path)), data=b"graph TD", content_type="text/plain")
        detail = validation_errors(response, "file_path", where="path")
        assert detail[0]["type"] == "value_error.path" and named in detail[0]["msg"], (method, detail)
    assert files_of(project["id"]) == {}


def test_a_refused_segment_is_explained_in_spanish(user, project):
    detail = validation_errors(user.get(_url(project, ".git/x.mmd"), lang="es"), "file_path", where="path")
    assert detail[0]["msg"] == 'La ruta no debe tener un segmento ".git": git lo reserva.'
    detail = validation_errors(user.get(_url(project, quote("x\u200b.mmd")), lang="es"), "file_path", where="path")
    assert detail[0]["msg"] == "La ruta no debe contener caracteres de formato invisibles (U+200B)."
    detail = validation_errors(user.get(_url(project, "c:/x.mmd"), lang="es"), "file_path", where="path")
    assert detail[0]["msg"] == 'Un segmento de la ruta no debe parecer una unidad de disco ("c:").'


def test_a_bad_path_is_explained_in_spanish(user, project):
    response = _put(user, project, "flow.svg", "graph TD", lang="es")
    detail = validation_errors(response, "file_path", where="path")
    assert detail[0]["msg"].startswith("Extensión de archivo desconocida")


def test_a_path_is_normalized_to_nfc(user, project, files_of):
    decomposed = "Cafe\u0301.mmd"
    assert _put(user, project, decomposed, "graph TD\n").status_code == 201
    assert list(files_of(project["id"])) == ["Caf\u00e9.mmd"]
    assert user.get(_url(project, "CAF\u00c9.mmd")).status_code == 200


def test_content_over_the_cap_is_refused_before_the_body_is_read(user, project, configure):
    configure(MAX_DIAGRAM_CONTENT_BYTES=10)
    refused = _put(user, project, "big.mmd", "graph TD\n  A-->B\n")
    assert "too large" in validation_errors(refused, "content")[0]["msg"]
    sketch = _put(user, project, "big.freehand.json", SKETCH)
    assert sketch.status_code == 201


def test_content_that_is_not_utf8_or_not_a_sketch_is_refused(user, project):
    bad = user.put(_url(project, "x.mmd"), data=b"\xff\xfe\x00", content_type="text/plain")
    assert "UTF-8" in validation_errors(bad, "content")[0]["msg"]
    sketch = _put(user, project, "x.freehand.json", "[1, 2]")
    assert "sketch JSON" in validation_errors(sketch, "content")[0]["msg"]


def test_the_plan_limit_refuses_a_new_file_and_writes_nothing(user, admin, project, files_of):
    from .conftest import free_plan

    admin.put(f"/admin/plans/{free_plan(user)['id']}", json={"max_diagrams": 1})
    assert _put(user, project, "one.mmd", "graph TD\n").status_code == 201
    refused = _put(user, project, "two/two.mmd", "graph TD\n")
    assert error_detail(refused, 403)["error"] == "resource_limit_exceeded"
    assert list(files_of(project["id"])) == ["one.mmd"]
    assert user.get(f"/projects/{project['id']}").json["folders"] == []
    assert _put(user, project, "one.mmd", "graph LR\n").status_code == 200


def test_without_a_token_every_route_answers_401(client, project):
    for method, path in (("get", "/files"), ("get", "/files/a.mmd"), ("put", "/files/a.mmd"),
                         ("delete", "/files/a.mmd"), ("post", "/sync")):
        response = getattr(client, method)(f"/projects/{project['id']}{path}")
        assert error_detail(response, 401) == "Not authenticated", (method, path)


def test_another_users_project_answers_404_everywhere(user, other_user, project):
    _put(user, project, "flow.mmd", "graph TD\n")
    for method, path, kwargs in (("get", "/files", {}), ("get", "/files/flow.mmd", {}),
                                 ("put", "/files/flow.mmd", {"data": b"graph LR"}),
                                 ("delete", "/files/flow.mmd", {}),
                                 ("post", "/sync", {"json": {"files": [{"path": "a.mmd", "content": "x"}]}})):
        response = getattr(other_user, method)(f"/projects/{project['id']}{path}", **kwargs)
        assert error_detail(response, 404) == "Project not found", (method, path)
    assert user.get(_url(project, "flow.mmd")).get_data(as_text=True) == "graph TD\n"
