"""The ZIP export with images: each diagram's SVG beside its source, drawn by this host's engines (or
Kroki) within a budget of time and drawings, no database connection held while drawing, the reason for
every missing image in the manifest, a per-user limit, and an import that leaves the images out."""
import io
import json
import zipfile

import pytest

from trazo.extensions import db

from ...helpers import create_diagram, create_folder, create_project, error_detail
from ..shares.test_image_links import GRAPH
from .test_import import upload

# Written in the sharing area: the render caches emptied after each test, and that area's project.
pytestmark = pytest.mark.usefixtures("empty_render_cache")


@pytest.fixture
def project(user):
    return create_project(user, name="Arquitectura")


D2 = "api -> database: reads\n"
BROKEN_GRAPH = "digraph G {\n  a -> \n"


def _export(web, project_id, lang=None, **query):
    return web.get(f"/projects/{project_id}/export", query_string={"include_images": "true", **query}, lang=lang)


def _archive(response):
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    archive = zipfile.ZipFile(io.BytesIO(response.data))
    root = archive.namelist()[0].split("/")[0]
    manifest = json.loads(archive.read(f"{root}/manifest.json"))
    return archive, root, {entry["title"]: entry for entry in manifest["diagrams"]}


@pytest.fixture
def graphs(user, project):
    folder = create_folder(user, project["id"], name="Servicios")
    return [create_diagram(user, project["id"], title="Graph", diagram_type="graphviz", content=GRAPH),
            create_diagram(user, project["id"], title="Backend", diagram_type="d2", content=D2,
                           folder_id=folder["id"])]


@pytest.mark.usefixtures("local_backend", "graphs")
def test_an_export_with_images_holds_each_diagram_s_svg_beside_its_source(user, project):
    archive, root, entries = _archive(_export(user, project["id"]))
    assert entries["Graph"]["image_path"] == "Graph.dot.svg"
    assert entries["Backend"]["image_path"] == "Servicios/Backend.d2.svg"
    graph = archive.read(f"{root}/Graph.dot.svg").decode()
    assert "<svg" in graph and "login" in graph and "dashboard" in graph
    assert "database" in archive.read(f"{root}/Servicios/Backend.d2.svg").decode()
    assert archive.namelist()[0] == f"{root}/README.md" and archive.namelist()[-1] == f"{root}/manifest.json"
    assert ".svg file" in archive.read(f"{root}/README.md").decode()
    assert not any("image_skipped" in entry for entry in entries.values())


@pytest.mark.usefixtures("local_backend", "graphs")
def test_an_export_without_the_flag_or_as_markdown_draws_nothing(user, project):
    archive, _root, entries = _archive(user.get(f"/projects/{project['id']}/export"))
    assert not any(name.endswith(".svg") for name in archive.namelist())
    assert not any("image_path" in entry for entry in entries.values())
    markdown = _export(user, project["id"], format="markdown")
    assert markdown.status_code == 200 and "<svg" not in markdown.get_data(as_text=True)


@pytest.mark.usefixtures("local_backend")
def test_a_diagram_that_does_not_draw_keeps_its_source_and_the_manifest_says_why(user, project):
    create_diagram(user, project["id"], title="Broken", diagram_type="graphviz", content=BROKEN_GRAPH)
    create_diagram(user, project["id"], title="Blank", diagram_type="graphviz", content="  \n")
    create_diagram(user, project["id"], title="Sketch", diagram_type="freehand",
                   content=json.dumps({"version": 1, "elements": []}))
    archive, root, entries = _archive(_export(user, project["id"], lang="es"))
    broken = entries["Broken"]
    assert "image_path" not in broken and broken["image_skipped"]["reason"] == "render_error"
    assert "línea 3" in broken["image_skipped"]["detail"]
    assert archive.read(f"{root}/Broken.dot").decode() == BROKEN_GRAPH
    assert entries["Blank"]["image_skipped"] == {"reason": "empty"}
    assert entries["Sketch"]["image_skipped"]["reason"] == "render_error"  # no engine here, no Kroki
    assert not any(name.endswith(".svg") for name in archive.namelist())


@pytest.mark.usefixtures("local_backend")
def test_past_the_drawing_budget_images_come_only_from_the_cache(user, project, settings):
    settings(EXPORT_IMAGE_RENDERS=1)
    for number in range(3):
        create_diagram(user, project["id"], title=f"G{number}", diagram_type="graphviz",
                       content=GRAPH.replace("login", f"step{number}"))
    _archive_, _root, first = _archive(_export(user, project["id"]))
    assert [("image_path" in first[f"G{n}"], first[f"G{n}"].get("image_skipped")) for n in range(3)] == [
        (True, None), (False, {"reason": "render_budget"}), (False, {"reason": "render_budget"})]
    _archive_, _root, second = _archive(_export(user, project["id"]))
    assert ["image_path" in second[f"G{n}"] for n in range(3)] == [True, True, False]


@pytest.mark.usefixtures("local_backend", "graphs")
def test_past_the_deadline_no_image_is_drawn(user, project, settings):
    settings(EXPORT_IMAGES_SECONDS=0)
    archive, _root, entries = _archive(_export(user, project["id"]))
    assert [entry["image_skipped"] for entry in entries.values()] == [{"reason": "time_budget"}] * 2
    assert not any(name.endswith(".svg") for name in archive.namelist())


@pytest.mark.usefixtures("local_backend", "graphs")
def test_exports_with_images_are_limited_per_user_and_plain_exports_go_on(user, other_user, project):
    for _attempt in range(2):
        assert _export(user, project["id"]).status_code == 200
    refused = _export(user, project["id"], lang="es")
    assert "Demasiadas solicitudes" in error_detail(refused, 429) and int(refused.headers["Retry-After"]) > 0
    assert user.get(f"/projects/{project['id']}/export").status_code == 200
    assert _export(other_user, project["id"]).status_code == 404  # not theirs: nothing spent either


@pytest.mark.usefixtures("local_backend")
def test_a_root_image_never_takes_a_folder_s_directory_name(user, project):
    create_folder(user, project["id"], name="G.dot.svg")
    create_diagram(user, project["id"], title="G", diagram_type="graphviz", content=GRAPH)
    archive, root, entries = _archive(_export(user, project["id"]))
    assert entries["G"]["image_path"] == "G.dot (2).svg"
    assert b"<svg" in archive.read(f"{root}/G.dot (2).svg")


def test_no_database_connection_is_held_while_kroki_draws(app, user, project, kroki):
    create_diagram(user, project["id"], title="Graph", diagram_type="graphviz", content=GRAPH)
    create_diagram(user, project["id"], title="Flow", content="graph TD\n  A --> B")

    def connections_held():
        with app.app_context():
            return db.engine.pool.checkedout()

    kroki.probe = connections_held
    _archive_, _root, entries = _archive(_export(user, project["id"]))
    assert all("image_path" in entry for entry in entries.values())
    assert kroki.probed == [0, 0]


@pytest.mark.usefixtures("local_backend", "graphs")
def test_an_archive_with_images_imports_back_without_them(user, project):
    exported = _export(user, project["id"])
    imported = upload(user, project["id"], [("export.zip", exported.data)])
    assert imported.status_code == 200, imported.json
    assert imported.json["skipped"] == []
    assert sorted(diagram["title"] for diagram in imported.json["diagrams"]) == ["Backend (2)", "Graph (2)"]


@pytest.mark.usefixtures("local_backend", "graphs")
def test_the_summary_with_images_leaves_them_out_and_is_no_bound(user, project):
    plain = user.get(f"/projects/{project['id']}/export/summary").json
    with_images = user.get(f"/projects/{project['id']}/export/summary",
                           query_string={"include_images": "true"}).json
    assert plain["size_is_upper_bound"] is True and with_images["size_is_upper_bound"] is False
    assert with_images["size_bytes"] == plain["size_bytes"]


@pytest.mark.usefixtures("local_backend", "graphs")
def test_the_archive_s_readme_names_the_images_in_the_caller_s_language(user, project):
    archive, root, _entries = _archive(_export(user, project["id"], lang="es"))
    assert "Cada archivo .svg junto al código de un diagrama es su imagen" in archive.read(f"{root}/README.md").decode()
