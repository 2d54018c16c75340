"""Export: ZIP and Markdown downloads, folder scope, the size summary, limits."""
import io
import json
import os
import zipfile
from urllib.parse import unquote

import pytest

from ...helpers import UNKNOWN_ID, create_diagram, create_folder, create_project, error_detail, validation_errors

SKETCH = json.dumps({"version": 1, "elements": [{"id": "a", "type": "rectangle", "text": "Caja"},
                                                {"id": "b", "type": "text", "text": "Nota"}]})


@pytest.fixture
def filled(user):
    project = create_project(user, name="Diseño: Plataforma", description="Everything")
    payments = create_folder(user, project["id"], name="Pagos", color="#10B981")
    empty = create_folder(user, project["id"], name="Vacía")
    create_diagram(user, project["id"], title="Login", description="How we **log in**")
    create_diagram(user, project["id"], title="login", diagram_type="d2", content="a -> b")
    create_diagram(user, project["id"], title="Cobro", folder_id=payments["id"], diagram_type="plantuml",
                   content="@startuml\nA -> B\n@enduml")
    create_diagram(user, project["id"], title="Boceto", folder_id=payments["id"], diagram_type="freehand",
                   content=SKETCH)
    create_diagram(user, project["id"], title="README", diagram_type="graphviz", content="digraph { a -> b }")
    return {"project": project, "payments": payments, "empty": empty}


def _archive(response):
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return zipfile.ZipFile(io.BytesIO(response.data))


def test_zip_export_layout_and_manifest(user, filled):
    project = filled["project"]
    response = user.get(f"/projects/{project['id']}/export")
    assert response.headers["Content-Type"] == "application/zip"
    disposition = response.headers["Content-Disposition"]
    assert disposition.startswith('attachment; filename="Diseno Plataforma-') and disposition.endswith(".zip")
    assert unquote(disposition.split("filename*=UTF-8''")[1]).startswith("Diseño Plataforma-")
    archive = _archive(response)
    names = archive.namelist()
    root = "Diseño Plataforma/"
    assert [names[0], names[-1]] == [root + "README.md", root + "manifest.json"]
    assert set(names) == {root + n for n in (
        "README.md", "manifest.json", "Pagos/", "Vacía/", "Login.mmd", "Login.md", "login (2).d2",
        "Pagos/Cobro.puml", "Pagos/Boceto.freehand.json", "README (2).dot")}
    assert archive.read(root + "Login.md").decode() == "# Login\n\nHow we **log in**"
    assert archive.read(root + "Pagos/Cobro.puml").decode() == "@startuml\nA -> B\n@enduml"
    manifest = json.loads(archive.read(root + "manifest.json"))
    assert manifest["format"] == "diagramahub-export" and manifest["format_version"] == 1
    assert manifest["project"] == {"id": project["id"], "name": "Diseño: Plataforma", "emoji": "📊",
                                   "description": "Everything"}
    assert manifest["scope"] == {"folder": None}
    assert [(f["name"], f["color"], f["path"]) for f in manifest["folders"]] == [
        ("Pagos", "#10B981", "Pagos"), ("Vacía", "#3B82F6", "Vacía")]
    cobro = next(d for d in manifest["diagrams"] if d["title"] == "Cobro")
    assert cobro["type"] == "plantuml" and cobro["path"] == "Pagos/Cobro.puml" and cobro["folder"] == "Pagos"
    assert cobro["folder_id"] == filled["payments"]["id"] and "description_path" not in cobro
    assert set(cobro) >= {"id", "title", "type", "path", "folder", "folder_id", "created_at", "updated_at"}
    readme = archive.read(root + "README.md").decode()
    assert "| `Pagos/Cobro.puml` | Cobro | PlantUML |" in readme and "2 folder(s), 5 diagram(s)" in readme


def test_zip_export_without_descriptions(user, filled):
    names = _archive(user.get(f"/projects/{filled['project']['id']}/export",
                              query_string={"descriptions": "false"})).namelist()
    assert not [n for n in names if n.endswith(".md") and not n.endswith("README.md")]


def test_folder_scoped_export(user, filled):
    project, payments = filled["project"], filled["payments"]
    archive = _archive(user.get(f"/projects/{project['id']}/export", query_string={"folder_id": payments["id"]}))
    assert sorted(archive.namelist()) == ["Pagos/Pagos/", "Pagos/Pagos/Boceto.freehand.json",
                                          "Pagos/Pagos/Cobro.puml", "Pagos/README.md", "Pagos/manifest.json"]
    manifest = json.loads(archive.read("Pagos/manifest.json"))
    assert manifest["scope"] == {"folder": "Pagos"} and len(manifest["diagrams"]) == 2
    assert 'Folder "Pagos" of project "Diseño: Plataforma".' in archive.read("Pagos/README.md").decode()


def test_markdown_export_for_ai(user, filled):
    response = user.get(f"/projects/{filled['project']['id']}/export", query_string={"format": "markdown"})
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert response.headers["Content-Disposition"].endswith(".md")
    text = response.get_data(as_text=True)
    assert text.startswith("# Project: Diseño: Plataforma\n\n> Exported on ")
    for part in ("## Index", "- Cobro (PlantUML) `Pagos/Cobro.puml`", "## Root", "## Folder: Pagos",
                 "## Folder: Vacía\n\n_This folder is empty._", "**Description**\n\nHow we **log in**",
                 "```plantuml\n@startuml\nA -> B\n@enduml\n```", "```d2\na -> b\n```", "- Caja\n- Nota",
                 "```graphviz\ndigraph { a -> b }\n```", "Project description: Everything",
                 "Type: PlantUML · Path: `Pagos/Cobro.puml` · Updated: "):
        assert part in text, part
    assert text.rstrip().endswith("tokens.")


def test_markdown_export_standard_and_in_spanish(user, filled):
    response = user.get(f"/projects/{filled['project']['id']}/export", lang="es",
                        query_string={"format": "markdown", "variant": "standard", "descriptions": "false"})
    text = response.get_data(as_text=True)
    assert text.startswith("# Proyecto: Diseño: Plataforma\n\n## Raíz")
    assert "## Índice" not in text and "Tipo:" not in text and "**Descripción**" not in text
    assert "## Carpeta: Vacía\n\n_Esta carpeta está vacía._" in text and "tokens" not in text


def test_markdown_fence_outlasts_backticks_in_the_code(user, project):
    create_diagram(user, project["id"], title="Fenced", content="graph TD\n  A[\"```\"] --> B")
    text = user.get(f"/projects/{project['id']}/export", query_string={"format": "markdown"}).get_data(as_text=True)
    assert "````mermaid\ngraph TD\n  A[\"```\"] --> B\n````" in text


def test_summary_matches_the_download(user, filled):
    """Markdown sizes are exact; a ZIP's is a close upper bound (it is not compressed to be measured)."""
    project_id = filled["project"]["id"]
    for query in ({}, {"folder_id": filled["payments"]["id"]}, {"format": "markdown"},
                  {"format": "markdown", "variant": "standard"}):
        summary = user.get(f"/projects/{project_id}/export/summary", query_string=query)
        download = user.get(f"/projects/{project_id}/export", query_string=query)
        assert summary.status_code == 200
        body = summary.json
        assert set(body) == {"diagram_count", "folder_count", "size_bytes", "size_is_upper_bound",
                             "estimated_tokens", "filename", "history_omitted"}
        assert body["history_omitted"] == 0
        if query.get("format") == "markdown":
            assert body["size_bytes"] == len(download.data) and body["size_is_upper_bound"] is False
        else:
            assert len(download.data) <= body["size_bytes"] <= len(download.data) + 1024
            assert body["size_is_upper_bound"] is True
        assert int(download.headers["Content-Length"]) == len(download.data)
        assert body["filename"] in unquote(download.headers["Content-Disposition"])
        if query.get("format") == "markdown" and "variant" not in query:
            assert body["estimated_tokens"] == len(download.get_data(as_text=True)) // 4
        else:
            assert body["estimated_tokens"] is None
    scoped = user.get(f"/projects/{project_id}/export/summary", query_string={"folder_id": filled["payments"]["id"]})
    assert (scoped.json["diagram_count"], scoped.json["folder_count"]) == (2, 1)


def test_export_of_a_foreign_project_or_folder_is_404(user, other_user, filled):
    project_id = filled["project"]["id"]
    sibling_folder = create_folder(user, create_project(user, name="Sibling")["id"])
    for path in (f"/projects/{project_id}/export", f"/projects/{project_id}/export/summary"):
        assert error_detail(other_user.get(path), 404) == "Project not found"
        assert error_detail(user.get(path, query_string={"folder_id": sibling_folder["id"]}), 404) == "Folder not found"
        assert error_detail(user.get(path, query_string={"folder_id": UNKNOWN_ID}, lang="es"), 404) == \
            "Carpeta no encontrada"


@pytest.mark.parametrize("query, field", [({"format": "pdf"}, "format"), ({"variant": "fancy"}, "variant"),
                                          ({"descriptions": "perhaps"}, "descriptions"),
                                          ({"include_images": "maybe"}, "include_images")])
def test_export_rejects_bad_parameters(user, project, query, field):
    for path in (f"/projects/{project['id']}/export", f"/projects/{project['id']}/export/summary"):
        validation_errors(user.get(path, query_string=query), field, where="query")


def test_export_needs_a_token(client, project):
    for path in (f"/projects/{project['id']}/export", f"/projects/{project['id']}/export/summary"):
        assert error_detail(client.get(path), 401) == "Not authenticated"


def test_export_limits_are_per_user_and_separate(user, other_user, project, tight_limit):
    tight_limit("EXPORT", "2/minute")
    tight_limit("EXPORT_SUMMARY", "3/minute")
    path = f"/projects/{project['id']}/export"
    assert user.get(f"/projects/{UNKNOWN_ID}/export").status_code == 404  # a failed export costs nothing
    assert [user.get(path).status_code for _ in range(2)] == [200, 200]
    refused = user.get(path, lang="es")
    assert error_detail(refused, 429).startswith("Demasiadas solicitudes")
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert [user.get(path + "/summary").status_code for _ in range(3)] == [200, 200, 200]
    assert int(user.get(path + "/summary").headers["Retry-After"]) >= 1
    other = create_project(other_user)
    assert other_user.get(f"/projects/{other['id']}/export").status_code == 200


def test_an_export_of_many_large_diagrams_holds_every_one_exactly(user, project, folder):
    """Texts are read a few diagrams at a time: 40 diagrams of 120 kB span several batches."""
    expected = {}
    for index in range(40):
        content = f"graph TD\n%% {index}\n" + os.urandom(60_000).hex()
        description = ("Notes " * 10 + str(index)) if index % 3 == 0 else (" \n " if index % 3 == 1 else "")
        diagram = create_diagram(user, project["id"], title=f"D{index:02d}", content=content,
                                 description=description, folder_id=folder["id"] if index % 2 else None)
        expected[diagram["title"]] = (content, description)
    download = user.get(f"/projects/{project['id']}/export")
    summary = user.get(f"/projects/{project['id']}/export/summary").json
    stored = sum(len(content) + len(description) for content, description in expected.values())
    assert len(download.data) <= summary["size_bytes"] <= stored * 1.01 + 64 * 1024  # a bound, not compressed
    archive = _archive(download)
    manifest = json.loads(archive.read("Arquitectura/manifest.json"))
    assert len(manifest["diagrams"]) == 40
    for entry in manifest["diagrams"]:
        content, description = expected[entry["title"]]
        assert archive.read(f"Arquitectura/{entry['path']}").decode() == content
        if description.strip():
            assert archive.read(f"Arquitectura/{entry['description_path']}").decode() == \
                f"# {entry['title']}\n\n{description}"
        else:
            assert "description_path" not in entry
    markdown = user.get(f"/projects/{project['id']}/export", query_string={"format": "markdown"})
    text = markdown.get_data(as_text=True)
    assert all(f"```mermaid\n{content}\n```" in text for content, _ in expected.values())
    assert text.index("### D00") < text.index("### D38") < text.index("## Folder: Pagos") < text.index("### D01")
    measured = user.get(f"/projects/{project['id']}/export/summary", query_string={"format": "markdown"}).json
    assert measured["size_bytes"] == len(markdown.data) and measured["estimated_tokens"] == len(text) // 4
