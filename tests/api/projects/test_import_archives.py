"""Archives: our exports round-trip exactly; hostile archives are refused or skipped, writing nothing."""
import json
import os
import tracemalloc

import pytest
from sqlalchemy import text

from trazo.extensions import db

from ...helpers import create_diagram, create_folder, create_project, error_detail
from ...zips import bomb, crowded_directory, lying_sizes, make_zip
from .test_import import tree, upload

SKETCH = json.dumps({"version": 1, "elements": [{"id": "r", "type": "rectangle", "x": 1, "y": 2}],
                     "viewport": {"zoom": 1}, "background": "#fff"}, indent=1)


def _content(client, project_id):
    """Folders (name, color) and diagrams (folder, title, type, content, description) of a project."""
    project = tree(client, project_id)
    places = [(None, project["diagrams"])] + [(folder["name"], folder["diagrams"]) for folder in project["folders"]]
    diagrams = {(place, d["title"], d["diagram_type"], d["content"], d["description"] or "")
                for place, listed in places for d in listed}
    return sorted((f["name"], f["color"]) for f in project["folders"]), sorted(diagrams, key=repr)


@pytest.fixture
def rich(user):
    project = create_project(user, name="Round/trip: proyecto")
    odd = create_folder(user, project["id"], name='Spec: "v1"? <draft>', color="#ABCDEF")
    create_folder(user, project["id"], name="Vacía", color="#000")
    same = create_folder(user, project["id"], name="same")
    create_diagram(user, project["id"], title="Flow", content="graph TD\n  A --> B\n",
                   description="  Line 1\n\nLine 2  ")
    create_diagram(user, project["id"], title="flow", diagram_type="flowchart", content="flowchart LR\n  X --> Y")
    create_diagram(user, project["id"], title="Empty", diagram_type="plantuml", content="")
    create_diagram(user, project["id"], title="Graph  two  spaces", diagram_type="graphviz", content="digraph { a }")
    create_diagram(user, project["id"], title="README", diagram_type="c4plantuml", content="@startuml\n@enduml")
    create_diagram(user, project["id"], title="Sketch", diagram_type="freehand", content=SKETCH, folder_id=odd["id"])
    create_diagram(user, project["id"], title="DB", diagram_type="dbml", content="Table a {\r\n id int\r\n}",
                   folder_id=odd["id"], description="# Not a heading of ours\nbody")
    create_diagram(user, project["id"], title="../../etc/passwd", diagram_type="d2", content="a -> b",
                   folder_id=same["id"])
    create_diagram(user, project["id"], title="ditaa", diagram_type="ditaa", content="+--+\n|  |\n+--+",
                   folder_id=same["id"])
    return project


def test_export_then_import_round_trips_exactly(user, rich):
    archive = user.get(f"/projects/{rich['id']}/export")
    assert archive.status_code == 200
    copy = create_project(user, name="Copy")
    result = upload(user, copy["id"], [("export.zip", archive.data)])
    assert result.status_code == 200, result.json
    assert result.json["skipped"] == [] and result.json["diagram_count"] == 9
    assert len(result.json["created_folder_ids"]) == 3
    assert _content(user, copy["id"]) == _content(user, rich["id"])


def test_folder_export_round_trips_into_a_folder_of_that_name(user, rich):
    odd = next(f for f in tree(user, rich["id"])["folders"] if f["name"].startswith("Spec"))
    archive = user.get(f"/projects/{rich['id']}/export", query_string={"folder_id": odd["id"]}).data
    copy = create_project(user, name="Copy")
    assert upload(user, copy["id"], [("folder.zip", archive)]).status_code == 200
    folders, diagrams = _content(user, copy["id"])
    assert folders == [('Spec: "v1"? <draft>', "#ABCDEF")]
    assert {d[1] for d in diagrams} == {"Sketch", "DB"} and {d[0] for d in diagrams} == {'Spec: "v1"? <draft>'}


def test_markdown_description_siblings_and_nested_levels_in_plain_archives(user, project):
    archive = make_zip({"top/": "", "top/a.mmd": "graph TD", "top/a.md": "# a\n\nThe *a* diagram",
                        "top/deeper/b.d2": "x -> y", "README.md": "# Read me\n```mermaid\ngraph TD\n```",
                        "manifest.json": "{}"})
    body = upload(user, project["id"], [("plain.zip", archive)]).json
    assert [(d["title"], d["folder"], d["has_description"]) for d in body["diagrams"]] == [
        ("a", "top", True), ("b", "top", False)]
    folder = tree(user, project["id"])["folders"][0]
    assert folder["name"] == "top" and [d["description"] for d in folder["diagrams"]] == ["The *a* diagram", ""]


def _nothing_written(client, project_id):
    project = tree(client, project_id)
    return project["diagram_count"] == 0 and project["folders"] == []


def test_path_traversal_entries_are_skipped(user, project, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    archive = make_zip({"../evil.mmd": "graph TD", "/etc/cron.d/evil.mmd": "graph TD", "a/../../b.mmd": "graph TD",
                        "C:/win.mmd": "graph TD", "..\\back.mmd": "graph TD", ".hidden/x.mmd": "graph TD",
                        "__MACOSX/._a.mmd": "graph TD"})
    preview = upload(user, project["id"], [("evil.zip", archive)], dry_run=True).json
    assert [s["reason"] for s in preview["skipped"]] == ["unsafe_path"] * 5 and preview["diagram_count"] == 0
    detail = error_detail(upload(user, project["id"], [("evil.zip", archive)]), 400)
    assert detail["error"] == "nothing_to_import"
    assert _nothing_written(user, project["id"]) and os.listdir(tmp_path) == []


def test_zip_bomb_is_refused_before_expanding(user, project):
    detail = error_detail(upload(user, project["id"], [("ok.mmd", "graph TD"), ("bomb.zip", bomb(51 * 1024 * 1024))]),
                          400)
    assert detail == {"error": "invalid_upload", "file": "bomb.zip", "reason": "too_large_uncompressed",
                      "message": detail["message"]}
    assert _nothing_written(user, project["id"])


def test_lying_sizes_and_oversized_entries_are_skipped(user, project):
    archive = lying_sizes("liar.mmd", "graph TD\n" + "A-->B\n" * 5000, 12)
    big = make_zip({"big.mmd": "graph TD\n" + "%%\n" * (2 * 1024 * 1024), "fine.mmd": "graph TD"})
    body = upload(user, project["id"], [("liar.zip", archive), ("big.zip", big)]).json
    assert body["skipped"] == [{"source": "liar.mmd", "reason": "unreadable"},
                               {"source": "big.mmd", "reason": "too_large"}]
    assert [d["title"] for d in body["diagrams"]] == ["fine"]


def test_nested_zip_is_skipped_and_the_rest_imported(user, project):
    inner = make_zip({"inside.mmd": "graph TD"})
    body = upload(user, project["id"], [("outer.zip", make_zip({"inner.zip": inner, "disguised.mmd": inner,
                                                               "real.mmd": "graph TD"}))]).json
    assert body["skipped"] == [{"source": "inner.zip", "reason": "nested_zip"},
                               {"source": "disguised.mmd", "reason": "nested_zip"}]
    assert [d["title"] for d in body["diagrams"]] == ["real"]


def test_too_many_entries_and_broken_archives_are_invalid(user, project):
    crowded = make_zip({f"d{n}.mmd": "graph TD" for n in range(501)})
    detail = error_detail(upload(user, project["id"], [("crowded.zip", crowded)], dry_run=True), 400)
    assert (detail["error"], detail["file"], detail["reason"]) == ("invalid_upload", "crowded.zip", "too_many_files")
    more = make_zip({f"m{n}.mmd": "x" for n in range(101)})
    files = [(f"f{n}.mmd", "graph TD") for n in range(400)] + [("more.zip", more)]
    assert error_detail(upload(user, project["id"], files), 400)["reason"] == "too_many_files"
    detail = error_detail(upload(user, project["id"], [("broken.zip", b"PK\x03\x04 not really")], lang="es"), 400)
    assert (detail["reason"], detail["message"]) == (
        "invalid_zip", "El archivo broken.zip no se puede importar (invalid_zip).")
    assert _nothing_written(user, project["id"])


@pytest.mark.parametrize("declared", [200_000, 100], ids=["declared", "hidden"])
def test_a_directory_of_200k_entries_is_refused_before_zipfile_reads_it(user, project, declared):
    crowded = crowded_directory(200_000, declared)
    tracemalloc.start()
    try:
        response = upload(user, project["id"], [("crowded.zip", crowded)], dry_run=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    detail = error_detail(response, 400)
    assert (detail["error"], detail["file"], detail["reason"]) == ("invalid_upload", "crowded.zip", "too_many_files")
    # About the upload's own size once refused early; zipfile's 200k entry objects would add ~70 MB.
    assert peak < 6 * len(crowded), peak


@pytest.fixture
def refuse_title(app):
    """A database trigger that refuses to insert a diagram titled "Boom" (a real failure mid-import)."""
    with app.app_context():
        with db.engine.begin() as connection:
            if connection.dialect.name == "sqlite":
                connection.execute(text("CREATE TRIGGER refuse_boom BEFORE INSERT ON diagrams "
                                        "WHEN NEW.title = 'Boom' BEGIN SELECT RAISE(ABORT, 'refused'); END"))
            else:
                connection.execute(text("CREATE FUNCTION refuse_boom() RETURNS trigger AS $$ BEGIN "
                                        "IF NEW.title = 'Boom' THEN RAISE EXCEPTION 'refused'; END IF; "
                                        "RETURN NEW; END $$ LANGUAGE plpgsql"))
                connection.execute(text("CREATE TRIGGER refuse_boom BEFORE INSERT ON diagrams FOR EACH ROW "
                                        "EXECUTE FUNCTION refuse_boom()"))
    yield
    with app.app_context():
        with db.engine.begin() as connection:
            connection.execute(text("DROP TRIGGER refuse_boom" if connection.dialect.name == "sqlite"
                                    else "DROP TRIGGER refuse_boom ON diagrams"))
            if connection.dialect.name != "sqlite":
                connection.execute(text("DROP FUNCTION refuse_boom()"))


def test_a_failed_import_leaves_nothing_behind(user, project, refuse_title):
    archive = make_zip({"New/a.mmd": "graph TD", "b.mmd": "graph TD", "New/Boom.mmd": "graph TD"})
    detail = error_detail(upload(user, project["id"], [("x.zip", archive)]), 500)
    assert detail["error"] == "import_failed" and detail["rolled_back"] is True
    assert _nothing_written(user, project["id"])
    assert upload(user, project["id"], [("ok.zip", make_zip({"New/a.mmd": "graph TD"}))]).status_code == 200
