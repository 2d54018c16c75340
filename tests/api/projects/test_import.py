"""Import: loose files, Markdown, Excalidraw, archives, dry runs, titles, folders, limits, failures."""
import io
import json

from ...helpers import UNKNOWN_ID, create_diagram, create_folder, create_project, error_detail, validation_errors
from ...zips import make_zip

RESULT_FIELDS = {"diagram_count", "folder_count", "folders", "diagrams", "skipped", "current_usage", "limit",
                 "allowed", "target_folder"}


def upload(client, project_id, files, dry_run=False, folder_id=None, **kwargs):
    """POST the multipart import: `files` is [(name, bytes | str)]."""
    data = {"files": [(io.BytesIO(body.encode() if isinstance(body, str) else body), name) for name, body in files]}
    if folder_id is not None:
        data["folder_id"] = folder_id
    query = {"dry_run": "true"} if dry_run else {}
    return client.post(f"/projects/{project_id}/import", data=data, query_string=query,
                       content_type="multipart/form-data", **kwargs)


def tree(client, project_id):
    return client.get(f"/projects/{project_id}").json


EXCALIDRAW = json.dumps({
    "type": "excalidraw", "version": 2, "appState": {"viewBackgroundColor": "#fafafa"},
    "elements": [
        {"id": "box", "type": "rectangle", "x": 0, "y": 0, "width": 100, "height": 50, "roundness": {"type": 3},
         "strokeStyle": "dashed", "opacity": 50, "groupIds": ["g1"]},
        {"id": "label", "type": "text", "text": "Server", "containerId": "box", "fontSize": 20},
        {"id": "other", "type": "ellipse", "x": 300, "y": 0, "width": 40, "height": 40},
        {"id": "arrow", "type": "arrow", "x": 100, "y": 25, "points": [[0, 0], [200, -5]],
         "startBinding": {"elementId": "box"}, "endBinding": {"elementId": "other"}},
        {"id": "pic", "type": "image"}, {"id": "gone", "type": "rectangle", "isDeleted": True},
        {"id": "pen", "type": "freedraw", "x": 5, "y": 5, "points": [[0, 0], [3, 4], ["NaN_PLACEHOLDER", 1]]},
    ]}).replace('"NaN_PLACEHOLDER"', "NaN").replace("NaN_PLACEHOLDER", "NaN")


def test_loose_files_are_detected_and_created(user, project):
    files = [("login_flow.mmd", "\n\ngraph TD\n  A --> B\n\n"), ("Classes.PUML", "@startuml\nclass A\n@enduml"),
             ("net.d2", "a -> b"), ("schema.dbml", "Table users {\n id int\n}"), ("deps.dot", "digraph { a -> b }"),
             ("guess.txt", "sequenceDiagram\n A->>B: hi"), ("noext", "erDiagram\n A ||--o{ B : has"),
             ("Latin.mmd", b"graph TD\n A[Espa\xf1a] --> B"), ("image.png", b"\x89PNG\r\n"), ("blank.mmd", "  \n"),
             ("random.txt", "just some words")]
    response = upload(user, project["id"], files)
    assert response.status_code == 200, response.json
    body = response.json
    assert set(body) == RESULT_FIELDS | {"created_diagram_ids", "created_folder_ids"}
    assert body["diagram_count"] == 8 and len(body["created_diagram_ids"]) == 8 and body["created_folder_ids"] == []
    assert [(d["title"], d["diagram_type"]) for d in body["diagrams"]] == [
        ("login flow", "mermaid"), ("Classes", "plantuml"), ("net", "d2"), ("schema", "dbml"), ("deps", "graphviz"),
        ("guess", "mermaid"), ("noext", "mermaid"), ("Latin", "mermaid")]
    assert body["diagrams"][-1]["warnings"] == ["replaced_characters"]
    assert body["skipped"] == [{"source": "image.png", "reason": "unsupported_type"},
                               {"source": "blank.mmd", "reason": "empty"},
                               {"source": "random.txt", "reason": "unsupported_type"}]
    assert body["current_usage"] == 8 and body["allowed"] is True and body["target_folder"] is None
    stored = {d["title"]: d for d in tree(user, project["id"])["diagrams"]}
    assert stored["login flow"]["content"] == "graph TD\n  A --> B"
    assert stored["Latin"]["content"] == "graph TD\n A[Espa\ufffda] --> B"


def test_markdown_file_takes_the_first_diagram_fence(user, project):
    text = ("# Checkout\n\nIntro *text*.\n\n```python\nprint('```mermaid')\n```\n\n\n\n"
            "```puml\r\n@startuml\r\nA -> B\r\n@enduml\r\n```\n\nAfter.\n")
    body = upload(user, project["id"], [("notes.md", text), ("plain.markdown", "# Only text")]).json
    assert [(d["title"], d["diagram_type"], d["has_description"]) for d in body["diagrams"]] == [
        ("Checkout", "plantuml", True)]
    assert body["skipped"] == [{"source": "plain.markdown", "reason": "no_diagram_block"}]
    stored = tree(user, project["id"])["diagrams"][0]
    assert stored["content"] == "@startuml\nA -> B\n@enduml"
    assert stored["description"] == "Intro *text*.\n\n```python\nprint('```mermaid')\n```\n\nAfter."


def test_excalidraw_becomes_a_freehand_sketch(user, project):
    body = upload(user, project["id"], [("board.excalidraw", EXCALIDRAW)]).json
    assert body["diagrams"][0]["diagram_type"] == "freehand"
    assert body["diagrams"][0]["warnings"] == ["skipped_image:1"]
    sketch = json.loads(tree(user, project["id"])["diagrams"][0]["content"])
    assert sketch["version"] == 1 and sketch["background"] == "#fafafa"
    elements = {e["id"]: e for e in sketch["elements"]}
    assert set(elements) == {"box", "other", "arrow", "pen"}
    box = elements["box"]
    assert (box["text"], box["fontSize"], box["borderRadius"], box["dashed"], box["opacity"], box["groupId"]) == \
        ("Server", 20, 8, True, 0.5, "g1")
    assert elements["arrow"]["startBinding"] == {"elementId": "box", "anchorSide": "right"}
    assert elements["arrow"]["endBinding"] == {"elementId": "other", "anchorSide": "left"}
    assert elements["pen"]["type"] == "freehand" and elements["pen"]["points"][2] == {"x": 5.0, "y": 6.0}


def test_sketch_files_are_checked(user, project):
    sketch = json.dumps({"elements": [{"type": "rectangle", "x": "1", "opacity": 7}, {"type": "video"}]})
    body = upload(user, project["id"], [("ok.freehand.json", sketch), ("broken.freehand.json", "{nope"),
                                        ("list.freehand.json", "[1, 2]"), ("fake.excalidraw", '{"type": "other"}'),
                                        ("drawing.json", EXCALIDRAW)], dry_run=True).json
    assert [d["source"] for d in body["diagrams"]] == ["ok.freehand.json", "drawing.json"]
    assert body["skipped"] == [{"source": "broken.freehand.json", "reason": "invalid_json"},
                               {"source": "list.freehand.json", "reason": "not_a_sketch"},
                               {"source": "fake.excalidraw", "reason": "not_excalidraw"}]
    upload(user, project["id"], [("ok.freehand.json", sketch)])
    stored = json.loads(tree(user, project["id"])["diagrams"][0]["content"])
    assert stored["elements"] == [{"type": "rectangle", "x": 1.0, "opacity": 1.0, "id": stored["elements"][0]["id"],
                                   "y": 0.0, "width": 0.0, "height": 0.0, "strokeColor": "#1e1e1e",
                                   "fillColor": "transparent", "strokeWidth": 2.0}]


def test_dry_run_previews_without_writing(user, project, folder):
    create_diagram(user, project["id"], title="Flow")
    archive = make_zip({"pagos/Flow.mmd": "graph TD\n A-->B", "Flow.mmd": "graph LR\n A-->B", "New/x.d2": "a -> b"})
    response = upload(user, project["id"], [("bundle.zip", archive)], dry_run=True)
    assert response.status_code == 200
    body = response.json
    assert set(body) == RESULT_FIELDS
    assert body["folders"] == ["Pagos", "New"] and body["folder_count"] == 2
    assert [(d["title"], d["folder"], d["source"]) for d in body["diagrams"]] == [
        ("Flow", "Pagos", "pagos/Flow.mmd"), ("Flow (2)", None, "Flow.mmd"), ("x", "New", "New/x.d2")]
    assert (body["current_usage"], body["limit"], body["allowed"]) == (1, None, True)
    assert tree(user, project["id"])["diagram_count"] == 1 and len(tree(user, project["id"])["folders"]) == 1
    empty = upload(user, project["id"], [("a.png", b"x")], dry_run=True)
    assert empty.status_code == 200 and empty.json["diagram_count"] == 0


def test_folders_are_reused_by_name_and_titles_deduplicated(user, project, folder):
    create_diagram(user, project["id"], title="Cobro", folder_id=folder["id"])
    archive = make_zip({"PAGOS/Cobro.mmd": "graph TD\n A-->B", "pagos/deep/er/Cobro.puml": "@startuml\n@enduml",
                        "Docs/a.d2": "a -> b", "docs/b.d2": "b -> c", "x" * 100 + ".mmd": "graph TD\n A-->B",
                        "y/" + "x" * 100 + ".mmd": "graph TD\n A-->B"})
    body = upload(user, project["id"], [("one.zip", archive), ("second.mmd", "graph TD\n C-->D"),
                                        ("x" * 100 + ".mmd", "graph TD\n A-->B")]).json
    assert body["folders"] == ["Pagos", "Docs", "y"] and len(body["created_folder_ids"]) == 2
    titles = [(d["title"], d["folder"]) for d in body["diagrams"]]
    assert titles[:4] == [("Cobro (2)", "Pagos"), ("Cobro (3)", "Pagos"), ("a", "Docs"), ("b", "Docs")]
    assert titles[4] == ("x" * 100, None) and titles[5] == ("x" * 100, "y")
    assert titles[7] == ("x" * 96 + " (2)", None)
    listed = tree(user, project["id"])
    assert [f["name"] for f in listed["folders"]] == ["Docs", "Pagos", "y"]
    assert {d["title"] for d in listed["folders"][1]["diagrams"]} == {"Cobro", "Cobro (2)", "Cobro (3)"}


def test_import_into_a_folder_flattens_everything(user, project, folder):
    archive = make_zip({"A/one.mmd": "graph TD\n A-->B", "B/two.mmd": "graph TD\n A-->B", "three.mmd": "graph TD"})
    body = upload(user, project["id"], [("x.zip", archive)], folder_id=folder["id"]).json
    assert body["target_folder"] == "Pagos" and body["folders"] == [] and body["created_folder_ids"] == []
    stored = user.get(f"/folders/{folder['id']}").json["diagrams"]
    assert sorted(d["title"] for d in stored) == ["one", "three", "two"]


def test_import_refuses_foreign_projects_and_folders(user, other_user, project):
    files = [("a.mmd", "graph TD")]
    assert error_detail(upload(other_user, project["id"], files), 404) == "Project not found"
    sibling_folder = create_folder(user, create_project(user, name="Sibling")["id"])
    assert error_detail(upload(user, project["id"], files, folder_id=sibling_folder["id"]), 404) == "Folder not found"
    assert error_detail(upload(user, project["id"], files, folder_id=UNKNOWN_ID, lang="es"), 404) == \
        "Carpeta no encontrada"
    assert error_detail(upload(user, UNKNOWN_ID, files, dry_run=True), 404) == "Project not found"


def test_nothing_to_import_and_no_files(user, project):
    detail = error_detail(upload(user, project["id"], [("a.png", b"x"), ("b.md", "text only")]), 400)
    assert detail["error"] == "nothing_to_import" and detail["message"]
    assert detail["skipped"] == [{"source": "a.png", "reason": "unsupported_type"},
                                 {"source": "b.md", "reason": "no_diagram_block"}]
    response = user.post(f"/projects/{project['id']}/import", data={}, content_type="multipart/form-data", lang="es")
    assert error_detail(response, 400) == "No se subió ningún archivo"


def test_bad_dry_run_flag_is_422(user, project):
    response = user.post(f"/projects/{project['id']}/import", query_string={"dry_run": "maybe"},
                         data={"files": [(io.BytesIO(b"graph TD"), "a.mmd")]}, content_type="multipart/form-data")
    validation_errors(response, "dry_run", where="query")


def test_import_needs_a_token(client, project):
    assert error_detail(upload(client, project["id"], [("a.mmd", "graph TD")]), 401) == "Not authenticated"


def test_upload_over_20_mib_is_413(user, project):
    response = upload(user, project["id"], [("big.mmd", b"a" * (20 * 1024 * 1024 + 1))])
    assert error_detail(response, 413) == "Request body too large"
    assert tree(user, project["id"])["diagram_count"] == 0


def test_upload_over_5_mib_passes_the_body_limit(user, project):
    big = "graph TD\n" + "%% filler\n" * (6 * 1024 * 1024 // 10)
    body = upload(user, project["id"], [("big.mmd", big), ("small.mmd", "graph TD")]).json
    assert body["skipped"] == [{"source": "big.mmd", "reason": "too_large"}] and body["diagram_count"] == 1


def test_import_limits_are_separate_for_dry_runs(user, project, tight_limit):
    tight_limit("IMPORT", "2/minute")
    tight_limit("IMPORT_PREVIEW", "2/minute")
    files = [("a.mmd", "graph TD")]
    assert [upload(user, project["id"], files).status_code for _ in range(2)] == [200, 200]
    refused = upload(user, project["id"], files, lang="es")
    assert error_detail(refused, 429).startswith("Demasiadas solicitudes") and int(refused.headers["Retry-After"]) >= 1
    assert [upload(user, project["id"], files, dry_run=True).status_code for _ in range(2)] == [200, 200]
    assert int(upload(user, project["id"], files, dry_run=True).headers["Retry-After"]) >= 1
    assert tree(user, project["id"])["diagram_count"] == 2


def test_import_respects_the_plan_limit_as_a_whole(admin, user, project):
    free = next(plan for plan in user.get("/plans").json if plan["code"] == "FREE")
    assert admin.put(f"/admin/plans/{free['id']}", json={"max_diagrams": 2}).status_code == 200
    create_diagram(user, project["id"])
    files = [("a.mmd", "graph TD"), ("b.mmd", "graph TD")]
    preview = upload(user, project["id"], files, dry_run=True).json
    assert (preview["allowed"], preview["current_usage"], preview["limit"]) == (False, 1, 2)
    detail = error_detail(upload(user, project["id"], files), 403)
    assert (detail["error"], detail["resource_type"], detail["limit"]) == ("resource_limit_exceeded", "diagrams", 2)
    assert tree(user, project["id"])["diagram_count"] == 1
    assert upload(user, project["id"], files[:1]).json["current_usage"] == 2
