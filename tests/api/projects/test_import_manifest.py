"""Archives with a manifest: entries without a `folder` are placed by their path in the archive, and
exports that name each diagram's folder import exactly as before."""
import io
import json
import zipfile

import pytest

from ...helpers import create_diagram, create_folder, create_project
from ...zips import make_zip
from .test_import import tree, upload
from .test_import_archives import _content

PAYMENTS = "@startuml\nA -> B\n@enduml"
FOLDERS = [{"id": "f1", "name": "Arquitectura: v2", "color": "#10B981", "path": "Arquitectura v2"},
           {"id": "f2", "name": 'Spec "v1"?', "color": "#ABCDEF", "path": "Spec v1"}]


def _manifest(diagrams, folders=FOLDERS):
    return json.dumps({"format": "diagramahub-export", "format_version": 1, "exported_at": "2024-05-01T10:00:00",
                       "project": {"id": "p1", "name": "Plataforma", "emoji": "📊", "description": None},
                       "scope": {"folder": None}, "folders": folders, "diagrams": diagrams})


def _archive(diagrams, files, folders=FOLDERS):
    """An export wrapped in one directory, the way exports are laid out."""
    entries = {"Plataforma/README.md": "# Plataforma\n", "Plataforma/manifest.json": _manifest(diagrams, folders)}
    entries.update({f"Plataforma/{folder['path']}/": "" for folder in folders})
    entries.update({f"Plataforma/{path}": text for path, text in files.items()})
    return make_zip(entries)


FILES = {"Arquitectura v2/Pagos.puml": PAYMENTS, "Arquitectura v2/Pagos.md": "# Pagos\n\nCobro con **tarjeta**",
         "Spec v1/Modelo.dbml": "Table a {\n id int\n}", "Inicio.mmd": "graph TD\n  A --> B",
         "Inicio.md": "# Inicio\n\nLa entrada"}
WITHOUT_FOLDER = [{"id": "d1", "title": "Pagos", "type": "plantuml", "path": "Arquitectura v2/Pagos.puml"},
                  {"id": "d2", "title": "Modelo", "type": "dbml", "path": "Spec v1/Modelo.dbml"},
                  {"id": "d3", "title": "Inicio", "type": "mermaid", "path": "Inicio.mmd"}]
EXPECTED = ([("Arquitectura: v2", "#10B981"), ('Spec "v1"?', "#ABCDEF")], sorted([
    ("Arquitectura: v2", "Pagos", "plantuml", PAYMENTS, "Cobro con **tarjeta**"),
    ('Spec "v1"?', "Modelo", "dbml", "Table a {\n id int\n}", ""),
    (None, "Inicio", "mermaid", "graph TD\n  A --> B", "La entrada")], key=repr))


def test_manifest_entries_without_folder_go_to_the_folder_of_their_path_with_their_descriptions(user):
    project = create_project(user, name="Copia")
    response = upload(user, project["id"], [("export.zip", _archive(WITHOUT_FOLDER, FILES))])
    assert response.status_code == 200, response.json
    body = response.json
    assert body["skipped"] == []
    assert body["folder_count"] == 2 and body["folders"] == ["Arquitectura: v2", 'Spec "v1"?']
    assert [(d["title"], d["folder"], d["source"], d["has_description"]) for d in body["diagrams"]] == [
        ("Pagos", "Arquitectura: v2", "Arquitectura v2/Pagos.puml", True),
        ("Modelo", 'Spec "v1"?', "Spec v1/Modelo.dbml", False),
        ("Inicio", None, "Inicio.mmd", True)]
    assert len(body["created_folder_ids"]) == 2
    assert _content(user, project["id"]) == EXPECTED


def test_a_dry_run_of_entries_without_folder_previews_the_same_places(user):
    project = create_project(user, name="Copia")
    response = upload(user, project["id"], [("export.zip", _archive(WITHOUT_FOLDER, FILES))], dry_run=True)
    assert response.status_code == 200, response.json
    assert response.json["skipped"] == [] and response.json["folders"] == ["Arquitectura: v2", 'Spec "v1"?']
    assert [(d["folder"], d["has_description"]) for d in response.json["diagrams"]] == [
        ("Arquitectura: v2", True), ('Spec "v1"?', False), (None, True)]
    assert tree(user, project["id"])["folders"] == []


def test_entries_without_folder_join_an_existing_folder_of_the_manifest_name(user):
    project = create_project(user, name="Copia")
    existing = create_folder(user, project["id"], name="arquitectura: V2", color="#000000")
    response = upload(user, project["id"], [("export.zip", _archive(WITHOUT_FOLDER[:1], {
        "Arquitectura v2/Pagos.puml": PAYMENTS, "Arquitectura v2/Pagos.md": "# Pagos\n\nCobro"}, FOLDERS[:1]))])
    assert response.status_code == 200, response.json
    assert response.json["skipped"] == [] and response.json["diagrams"][0]["folder"] == "arquitectura: V2"
    folders = tree(user, project["id"])["folders"]
    assert [(f["id"], f["name"]) for f in folders] == [(existing["id"], "arquitectura: V2")]
    assert [(d["title"], d["description"]) for d in folders[0]["diagrams"]] == [("Pagos", "Cobro")]


def test_a_folder_without_a_manifest_folder_entry_is_named_after_its_directory(user):
    project = create_project(user, name="Copia")
    diagrams = [{"title": "Pagos", "type": "plantuml", "path": "Otros/Pagos.puml"}]
    response = upload(user, project["id"], [("export.zip", _archive(diagrams, {"Otros/Pagos.puml": PAYMENTS},
                                                                   folders=[]))])
    assert response.status_code == 200, response.json
    assert [(d["title"], d["folder"]) for d in response.json["diagrams"]] == [("Pagos", "Otros")]
    assert response.json["folders"] == ["Otros"]


def test_files_the_manifest_does_not_list_join_the_manifest_folder_of_their_directory(user):
    project = create_project(user, name="Copia")
    files = {**FILES, "Arquitectura v2/Extra.mmd": "graph LR\n  X --> Y", "Arquitectura v2/Extra.md": "# Extra\n\nMás"}
    response = upload(user, project["id"], [("export.zip", _archive(WITHOUT_FOLDER, files))])
    assert response.status_code == 200, response.json
    assert response.json["skipped"] == [] and response.json["folder_count"] == 2
    extra = response.json["diagrams"][-1]
    assert (extra["title"], extra["folder"], extra["has_description"]) == ("Extra", "Arquitectura: v2", True)
    folders = {f["name"]: f for f in tree(user, project["id"])["folders"]}
    assert sorted(folders) == ["Arquitectura: v2", 'Spec "v1"?']
    assert sorted(d["title"] for d in folders["Arquitectura: v2"]["diagrams"]) == ["Extra", "Pagos"]


def test_an_older_export_naming_each_folder_imports_exactly(user):
    diagrams = [{**WITHOUT_FOLDER[0], "folder": "Arquitectura v2", "folder_id": "f1",
                 "description_path": "Arquitectura v2/Pagos.md"},
                {**WITHOUT_FOLDER[1], "folder": "Spec v1", "folder_id": "f2"},
                {**WITHOUT_FOLDER[2], "folder": None, "folder_id": None, "description_path": "Inicio.md"}]
    project = create_project(user, name="Copia")
    response = upload(user, project["id"], [("export.zip", _archive(diagrams, FILES))])
    assert response.status_code == 200, response.json
    assert response.json["skipped"] == [] and response.json["folders"] == ["Arquitectura: v2", 'Spec "v1"?']
    assert _content(user, project["id"]) == EXPECTED


@pytest.fixture
def designed(user):
    project = create_project(user, name="Diseño: plataforma")
    colon = create_folder(user, project["id"], name="Arquitectura: v2", color="#10B981")
    odd = create_folder(user, project["id"], name='Spec: "v1"? <draft>/*', color="#ABCDEF")
    create_folder(user, project["id"], name="Vacía", color="#000000")
    create_diagram(user, project["id"], title="Pagos: cobro", diagram_type="plantuml", content=PAYMENTS,
                   description="Cobro con tarjeta", folder_id=colon["id"])
    create_diagram(user, project["id"], title="pagos  cobro", content="graph TD\n  A --> B", folder_id=colon["id"])
    create_diagram(user, project["id"], title="Modelo", diagram_type="dbml", content="Table a {\n id int\n}",
                   description="# Heading of the author\nbody", folder_id=odd["id"])
    create_diagram(user, project["id"], title="Inicio", content="graph TD\n  S --> E", description="Entrada")
    return project


def _strip(archive, keys):
    """The same archive with `keys` removed from every manifest entry of a diagram."""
    source, target = zipfile.ZipFile(io.BytesIO(archive)), io.BytesIO()
    with zipfile.ZipFile(target, "w") as copy:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith("/manifest.json"):
                manifest = json.loads(data)
                manifest["diagrams"] = [{k: v for k, v in entry.items() if k not in keys}
                                        for entry in manifest["diagrams"]]
                data = json.dumps(manifest).encode()
            copy.writestr(info, data)
    return target.getvalue()


@pytest.mark.parametrize("keys", [(), ("folder",), ("folder", "description_path")])
def test_our_export_imports_exactly_with_or_without_folder_keys(user, designed, keys):
    archive = user.get(f"/projects/{designed['id']}/export")
    assert archive.status_code == 200
    copy = create_project(user, name="Copia")
    response = upload(user, copy["id"], [("export.zip", _strip(archive.data, keys))])
    assert response.status_code == 200, response.json
    assert response.json["skipped"] == [] and response.json["diagram_count"] == 4
    assert len(response.json["created_folder_ids"]) == 3
    assert _content(user, copy["id"]) == _content(user, designed["id"])


def test_a_manifest_with_malformed_lists_imports_the_files_by_their_paths(user):
    project = create_project(user, name="Copia")
    manifest = json.dumps({"format": "diagramahub-export", "folders": 7,
                           "diagrams": [{"path": ["Inicio.mmd"], "folder": 3}, "Inicio.mmd", {"path": 5}]})
    archive = make_zip({"manifest.json": manifest, "Otros/Pagos.puml": PAYMENTS, "Inicio.mmd": "graph TD"})
    response = upload(user, project["id"], [("export.zip", archive)])
    assert response.status_code == 200, response.json
    assert response.json["skipped"] == [] and response.json["folders"] == ["Otros"]
    assert [(d["title"], d["folder"]) for d in response.json["diagrams"]] == [("Pagos", "Otros"), ("Inicio", None)]
