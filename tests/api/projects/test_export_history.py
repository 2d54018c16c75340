"""Export and import with history: `include_history` writes each diagram's revisions into the ZIP
(`.history/<diagram path>/`), and importing such an archive restores them; every imported diagram has a
history, and hostile or malformed histories are refused or ignored (docs/export-format.md, "History")."""
import hashlib
import io
import json
import random
import struct
import zipfile

import pytest

from ...helpers import create_diagram, create_folder, create_project, error_detail, save_diagram
from ...zips import make_zip
from .test_import import upload

FLOW = "graph TD\n  A --> B"
PAGE = {"page_size": 100}


@pytest.fixture
def every_save_is_a_revision(app, monkeypatch):
    """No autosave coalescing: each save records its own revision."""
    monkeypatch.setitem(app.config, "REVISION_COALESCE_SECONDS", 0)


def _export(web, project_id, **query):
    response = web.get(f"/projects/{project_id}/export", query_string=query)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return response


def _zip(response):
    return zipfile.ZipFile(io.BytesIO(response.data))


def _revisions(web, diagram_id):
    """A diagram's revisions, oldest first, without contents."""
    response = web.get(f"/diagrams/{diagram_id}/revisions", query_string=PAGE)
    assert response.status_code == 200, response.json
    return response.json["items"][::-1]


def _contents(web, diagram_id):
    return [web.get(f"/diagrams/{diagram_id}/revisions/{revision['number']}").json["content"]
            for revision in _revisions(web, diagram_id)]


def _usage(web):
    return web.get("/subscriptions/usage").json["storage"]["current"]


def _free_plan(web):
    return next(plan for plan in web.get("/plans").json if plan["code"] == "FREE")


@pytest.fixture
def history(user, every_save_is_a_revision):
    """A project whose diagram "Login" has four revisions (a type change, a label) and whose diagram
    "Cobro", in a folder, has one."""
    project = create_project(user, name="Plataforma")
    payments = create_folder(user, project["id"], name="Pagos")
    login = create_diagram(user, project["id"], title="Login", content=FLOW, description="Entrada")
    save_diagram(user, login["id"], content=FLOW + "\n  B --> C")
    assert user.post(f"/diagrams/{login['id']}/revisions", json={"label": "Primera versión"}).status_code == 201
    save_diagram(user, login["id"], title="Acceso", diagram_type="plantuml", content="@startuml\nA -> B\n@enduml")
    save_diagram(user, login["id"], content="@startuml\nA -> B\nB -> C\n@enduml")
    cobro = create_diagram(user, project["id"], title="Cobro", folder_id=payments["id"], diagram_type="d2",
                           content="a -> b")
    return {"project": project, "login": login, "cobro": cobro}


def test_an_export_without_the_flag_holds_no_history(user, history):
    archive = _zip(_export(user, history["project"]["id"]))
    assert not any("/.history/" in name for name in archive.namelist())
    manifest = json.loads(archive.read("Plataforma/manifest.json"))
    assert all("history_path" not in entry for entry in manifest["diagrams"])
    explicit = _zip(_export(user, history["project"]["id"], include_history="false"))
    assert explicit.namelist() == archive.namelist()


def test_an_export_with_history_holds_every_revision_with_its_content(user, history):
    archive = _zip(_export(user, history["project"]["id"], include_history="true"))
    names = archive.namelist()
    login_dir, cobro_dir = "Plataforma/.history/Acceso.puml/", "Plataforma/.history/Pagos/Cobro.d2/"
    assert [name for name in names if "/.history/" in name] == [
        login_dir + "0001.mmd", login_dir + "0002.mmd", login_dir + "0003.puml", login_dir + "0004.puml",
        login_dir + "revisions.json", cobro_dir + "0001.d2", cobro_dir + "revisions.json"]
    manifest = {entry["title"]: entry for entry in json.loads(archive.read("Plataforma/manifest.json"))["diagrams"]}
    assert manifest["Acceso"]["history_path"] == ".history/Acceso.puml/revisions.json"
    assert manifest["Cobro"]["history_path"] == ".history/Pagos/Cobro.d2/revisions.json"
    assert json.loads(archive.read("Plataforma/manifest.json"))["format_version"] == 1
    index = json.loads(archive.read(login_dir + "revisions.json"))
    assert index["path"] == "Acceso.puml"
    stored = _revisions(user, history["login"]["id"])
    assert [(e["number"], e["title"], e["type"], e["source"], e["label"], e["file"]) for e in index["revisions"]] == [
        (1, "Login", "mermaid", "create", None, "0001.mmd"),
        (2, "Login", "mermaid", "edit", "Primera versión", "0002.mmd"),
        (3, "Acceso", "plantuml", "edit", None, "0003.puml"),
        (4, "Acceso", "plantuml", "edit", None, "0004.puml")]
    contents = [archive.read(login_dir + entry["file"]).decode() for entry in index["revisions"]]
    assert contents == _contents(user, history["login"]["id"]) == [
        FLOW, FLOW + "\n  B --> C", "@startuml\nA -> B\n@enduml", "@startuml\nA -> B\nB -> C\n@enduml"]
    for entry, revision, content in zip(index["revisions"], stored, contents, strict=True):
        assert entry["content_hash"] == hashlib.sha256(content.encode()).hexdigest() == revision["content_hash"]
        assert (entry["created_at"], entry["updated_at"]) == (revision["created_at"], revision["updated_at"])
        assert (entry["lines_added"], entry["lines_removed"], entry["content_size"]) == (
            revision["lines_added"], revision["lines_removed"], len(content.encode()))
        assert "author_id" not in entry and "author" not in entry


def test_histories_read_in_small_batches_come_out_whole_and_in_order(user, history, monkeypatch):
    project_id = history["project"]["id"]
    for n in range(3):
        extra = create_diagram(user, project_id, title=f"Extra {n}", content=f"graph TD\n  E{n}")
        for edit in range(n):
            save_diagram(user, extra["id"], content=f"graph TD\n  E{n} --> F{edit}")
    whole = _zip(_export(user, project_id, include_history="true"))
    bound = user.get(f"/projects/{project_id}/export/summary", query_string={"include_history": "true"}).json
    for name, value in (("BATCH_ROWS", 2), ("METADATA_ROWS", 3), ("BATCH_BYTES", 60)):
        monkeypatch.setattr(f"trazo.core.history.batches.{name}", value)
    batched = _zip(_export(user, project_id, include_history="true"))
    assert batched.namelist() == whole.namelist()
    dated = ("Plataforma/README.md", "Plataforma/manifest.json")  # they show the time of the export
    assert all(batched.read(name) == whole.read(name) for name in whole.namelist() if name not in dated)
    assert json.loads(batched.read(dated[1]))["diagrams"] == json.loads(whole.read(dated[1]))["diagrams"]
    small = user.get(f"/projects/{project_id}/export/summary", query_string={"include_history": "true"}).json
    assert small["size_bytes"] == bound["size_bytes"]
    assert len([name for name in whole.namelist() if name.endswith(".mmd") and "/.history/Extra" in name]) == 6


def test_a_folder_export_with_history_holds_that_folder_s_histories(user, history):
    folder_id = history["cobro"]["folder_id"]
    archive = _zip(_export(user, history["project"]["id"], folder_id=folder_id, include_history="true"))
    assert [name for name in archive.namelist() if "/.history/" in name] == [
        "Pagos/.history/Pagos/Cobro.d2/0001.d2", "Pagos/.history/Pagos/Cobro.d2/revisions.json"]


def test_a_root_diagram_named_like_a_folder_gets_a_history_directory_of_its_own(user, every_save_is_a_revision):
    project = create_project(user, name="Mapas")
    folder = create_folder(user, project["id"], name="Mapa.mmd")
    create_diagram(user, project["id"], title="Mapa")
    create_diagram(user, project["id"], title="0001", folder_id=folder["id"])
    names = _zip(_export(user, project["id"], include_history="true")).namelist()
    assert "Mapas/.history/Mapa.mmd (2)/0001.mmd" in names and "Mapas/.history/Mapa.mmd/0001.mmd/0001.mmd" in names


def test_the_summary_with_history_bounds_the_download(user, history):
    project_id = history["project"]["id"]
    without = user.get(f"/projects/{project_id}/export/summary").json
    summary = user.get(f"/projects/{project_id}/export/summary", query_string={"include_history": "true"})
    assert summary.status_code == 200, summary.json
    download = _export(user, project_id, include_history="true")
    assert summary.json["size_is_upper_bound"] is True
    assert len(download.data) <= summary.json["size_bytes"] <= len(download.data) + 4096
    assert summary.json["size_bytes"] > without["size_bytes"]


def test_a_markdown_export_ignores_the_history_flag(user, history):
    plain = _export(user, history["project"]["id"], format="markdown")
    flagged = _export(user, history["project"]["id"], format="markdown", include_history="true")
    assert flagged.data == plain.data


def test_export_then_import_restores_every_revision_for_the_importing_user(user, other_user, history):
    archive = _export(user, history["project"]["id"], include_history="true").data
    destination = create_project(other_user, name="Copia")
    response = upload(other_user, destination["id"], [("export.zip", archive)])
    assert response.status_code == 200, response.json
    assert response.json["skipped"] == []
    assert [(d["title"], d["revision_count"], d["warnings"]) for d in response.json["diagrams"]] == [
        ("Acceso", 4, []), ("Cobro", 1, [])]
    login_copy, cobro_copy = response.json["created_diagram_ids"]
    fields = ("number", "title", "diagram_type", "source", "label", "created_at", "updated_at", "content_hash",
              "size", "lines_added", "lines_removed")
    for original, copy in ((history["login"]["id"], login_copy), (history["cobro"]["id"], cobro_copy)):
        restored = _revisions(other_user, copy)
        assert [[r[key] for key in fields] for r in restored] == [
            [r[key] for key in fields] for r in _revisions(user, original)]
        assert {r["author_id"] for r in restored} == {other_user.id}
        assert _contents(other_user, copy) == _contents(user, original)
    assert [r["label"] for r in _revisions(other_user, login_copy)] == [None, "Primera versión", None, None]
    assert other_user.get(f"/diagrams/{login_copy}/revisions/2/diff", query_string={"against": "4"}).status_code == 200


def test_an_imported_history_goes_on_with_the_next_edit(user, history, every_save_is_a_revision):
    archive = _export(user, history["project"]["id"], include_history="true").data
    destination = create_project(user, name="Copia")
    login_copy = upload(user, destination["id"], [("export.zip", archive)]).json["created_diagram_ids"][0]
    save_diagram(user, login_copy, content="@startuml\nC -> D\n@enduml")
    assert [(r["number"], r["source"]) for r in _revisions(user, login_copy)][-2:] == [(4, "edit"), (5, "edit")]


def test_an_import_without_history_records_revision_one_of_source_import(user, project):
    response = upload(user, project["id"], [("flow.mmd", FLOW), ("plain.zip", make_zip({"Otra/seq.mmd": FLOW}))])
    assert response.status_code == 200, response.json
    assert [d["revision_count"] for d in response.json["diagrams"]] == [1, 1]
    for diagram_id in response.json["created_diagram_ids"]:
        revisions = _revisions(user, diagram_id)
        assert [(r["number"], r["source"], r["author_id"], r["label"]) for r in revisions] == [
            (1, "import", user.id, None)]
        assert _contents(user, diagram_id) == [FLOW]


def test_an_archive_whose_newest_revision_is_not_its_file_gets_one_more_revision(user, history):
    exported = _zip(_export(user, history["project"]["id"], include_history="true"))
    entries = {info.filename: exported.read(info) for info in exported.infolist()}
    entries["Plataforma/Acceso.puml"] = b"@startuml\nedited -> by_hand\n@enduml"
    destination = create_project(user, name="Copia")
    response = upload(user, destination["id"], [("export.zip", make_zip(entries))])
    assert response.status_code == 200, response.json
    assert response.json["diagrams"][0]["revision_count"] == 5
    login_copy = response.json["created_diagram_ids"][0]
    assert [(r["number"], r["source"]) for r in _revisions(user, login_copy)] == [
        (1, "create"), (2, "edit"), (3, "edit"), (4, "edit"), (5, "import")]
    assert _contents(user, login_copy)[-1] == "@startuml\nedited -> by_hand\n@enduml"


def test_a_dry_run_previews_the_revisions_and_writes_nothing(user, history):
    archive = _export(user, history["project"]["id"], include_history="true").data
    destination = create_project(user, name="Copia")
    before = _usage(user)
    preview = upload(user, destination["id"], [("export.zip", archive)], dry_run=True)
    assert preview.status_code == 200, preview.json
    assert [d["revision_count"] for d in preview.json["diagrams"]] == [4, 1] and preview.json["allowed"] is True
    assert user.get(f"/projects/{destination['id']}").json["diagram_count"] == 0 and _usage(user) == before


# -- archives made by hand -------------------------------------------------------------------------------

def _history_archive(current, revisions, index=None):
    """Our export of one diagram "Flujo" (mermaid, `current`) whose history lists `revisions`:
    [(number, content, {other index fields})]; `index` replaces the whole revisions.json."""
    directory = "Flujo/.history/Flujo.mmd"
    listed = [{"number": number, "title": "Flujo", "type": "mermaid", "source": "edit", "label": None,
               "created_at": "2025-03-01T10:00:00+00:00", "updated_at": "2025-03-01T10:00:00+00:00",
               "file": f"{number:04d}.mmd", **fields} for number, _content, fields in revisions]
    manifest = {"format": "diagramahub-export", "format_version": 1, "project": {"name": "Flujo"}, "folders": [],
                "diagrams": [{"title": "Flujo", "type": "mermaid", "path": "Flujo.mmd", "folder": None,
                              "history_path": ".history/Flujo.mmd/revisions.json"}]}
    entries = {"Flujo/manifest.json": json.dumps(manifest), "Flujo/Flujo.mmd": current,
               f"{directory}/revisions.json": json.dumps({"revisions": listed}) if index is None else index}
    entries.update({f"{directory}/{entry['file']}": content
                    for entry, (_n, content, _f) in zip(listed, revisions, strict=True)
                    if isinstance(entry["file"], str) and "/" not in entry["file"]})
    return make_zip(entries)


def _import_one(web, archive):
    project = create_project(web, name="Destino")
    response = upload(web, project["id"], [("flujo.zip", archive)])
    assert response.status_code == 200, response.json
    (diagram,) = response.json["diagrams"]
    return diagram, response.json["created_diagram_ids"][0]


def test_imported_times_are_read_safely_and_never_after_the_import(user):
    diagram, diagram_id = _import_one(user, _history_archive("graph TD\n  C", [
        (1, "graph TD\n  A", {"created_at": "2020-05-01T10:00:00+02:00", "updated_at": "2020-05-01T11:00:00+02:00"}),
        (2, "graph TD\n  B", {"created_at": "2021-01-01T00:00:00", "updated_at": "2020-01-01T00:00:00Z"}),
        (3, "graph TD\n  C", {"created_at": "ayer", "updated_at": 12})]))
    assert diagram["warnings"] == []
    revisions = _revisions(user, diagram_id)
    assert [(r["created_at"], r["updated_at"]) for r in revisions[:2]] == [
        ("2020-05-01T08:00:00+00:00", "2020-05-01T09:00:00+00:00"),
        ("2021-01-01T00:00:00+00:00", "2021-01-01T00:00:00+00:00")]
    imported_at = user.get(f"/diagrams/{diagram_id}").json["created_at"]
    assert revisions[2]["created_at"] == revisions[2]["updated_at"] == imported_at
    _diagram, later_id = _import_one(user, _history_archive("graph TD\n  A", [
        (1, "graph TD\n  A", {"created_at": "2999-01-01T00:00:00+00:00", "updated_at": "9999-12-31T23:59:59"})]))
    future = _revisions(user, later_id)[0]
    assert future["created_at"] == future["updated_at"] == user.get(f"/diagrams/{later_id}").json["created_at"]


@pytest.mark.parametrize(("index", "extra"), [
    ("{not json", None),
    (json.dumps({"revisions": "many"}), None),
    (json.dumps([1, "two", None]), None),
    (json.dumps({"revisions": [{"number": 1, "type": "mermaid", "file": "missing.mmd"}]}), None),
    (None, {"Flujo/.history/Flujo.mmd/revisions.json": None}),
], ids=["not-json", "not-a-list", "no-objects", "missing-file", "missing-index"])
def test_an_unreadable_history_leaves_the_diagram_with_an_import_revision(user, index, extra):
    archive = _history_archive(FLOW, [(1, "graph TD\n  old", {})], index=index)
    if extra:  # no revisions.json at all
        entries = {info.filename: data for info, data in _entries(archive) if info.filename not in extra}
        archive = make_zip(entries)
    diagram, diagram_id = _import_one(user, archive)
    assert (diagram["revision_count"], diagram["warnings"]) == (1, ["history_unreadable"])
    assert [(r["number"], r["source"]) for r in _revisions(user, diagram_id)] == [(1, "import")]


def _entries(archive):
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        return [(info, opened.read(info)) for info in opened.infolist()]


def test_unusable_revision_entries_are_left_out_and_the_rest_taken(user):
    revisions = [(0, "zero", {}), (-1, "negative", {"file": "neg.mmd"}), (2, "text number", {"number": "2"}),
                 (3, "bool", {"number": True, "file": "bool.mmd"}), (10**12, "huge", {"file": "huge.mmd"}),
                 (5, "graph TD\n  five", {"label": "  Hito\n uno  ", "source": "restore"}),
                 (5, "duplicate", {"file": "dup.mmd"}), (6, "escape", {"file": "../../Flujo.mmd"}),
                 (7, "unknown type", {"type": "visio"}), (8, "no file", {"file": "absent.mmd"}),
                 (9, "over the cap", {}), (10, FLOW, {"source": "hacked", "title": "  ", "lines_added": -3})]
    entries = {info.filename: data for info, data in _entries(_history_archive(FLOW, revisions))
               if info.filename != "Flujo/.history/Flujo.mmd/absent.mmd"}
    entries["Flujo/.history/Flujo.mmd/0009.mmd"] = "x" * (1024 * 1024 + 1)
    diagram, diagram_id = _import_one(user, make_zip(entries))
    assert (diagram["revision_count"], diagram["warnings"]) == (2, ["history_partial"])
    restored = _revisions(user, diagram_id)
    assert [(r["number"], r["source"], r["label"], r["title"]) for r in restored] == [
        (5, "restore", "Hito  uno", "Flujo"), (10, "import", None, "Flujo")]
    assert _contents(user, diagram_id) == ["graph TD\n  five", FLOW]
    assert [(r["lines_added"], r["lines_removed"]) for r in restored] == [(2, 0), (1, 1)]


def test_past_the_line_matching_budget_revisions_keep_their_archive_s_counts_when_they_can_be_true(user, monkeypatch):
    monkeypatch.setattr("trazo.api.projects.import_history.DIFF_BUDGET", 0)
    diagram, diagram_id = _import_one(user, _history_archive(FLOW, [
        (1, "graph TD\n  A", {"lines_added": 2, "lines_removed": 0}),
        (2, "graph TD\n  B", {"lines_added": 1, "lines_removed": 1}),
        (3, FLOW, {"lines_added": 7, "lines_removed": 1})]))
    assert diagram["warnings"] == []
    assert [(r["lines_added"], r["lines_removed"]) for r in _revisions(user, diagram_id)] == [(2, 0), (1, 1), (2, 2)]


def test_the_plan_s_revision_limit_keeps_labelled_and_newest_revisions(admin, user):
    assert admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_revisions_per_diagram": 3}).status_code == 200
    revisions = [(n, f"graph TD\n  N{n}", {"label": "Hito"} if n == 2 else {}) for n in range(1, 7)]
    diagram, diagram_id = _import_one(user, _history_archive("graph TD\n  N6", revisions))
    assert diagram["revision_count"] == 3
    assert [(r["number"], r["label"]) for r in _revisions(user, diagram_id)] == [(2, "Hito"), (5, None), (6, None)]


def test_the_storage_quota_counts_the_imported_history_at_its_stored_size(admin, user):
    noise = random.Random(3)
    revisions = [(n, "graph TD\n%% " + noise.randbytes(150_000).hex(), {}) for n in range(1, 9)]
    archive = _history_archive(FLOW, revisions)
    assert admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_storage_mb": 1}).status_code == 200
    project = create_project(user, name="Destino")
    preview = upload(user, project["id"], [("flujo.zip", archive)], dry_run=True).json
    assert preview["allowed"] is False
    detail = error_detail(upload(user, project["id"], [("flujo.zip", archive)]), 403)
    assert (detail["error"], detail["resource_type"]) == ("resource_limit_exceeded", "storage")
    assert user.get(f"/projects/{project['id']}").json["diagram_count"] == 0 and _usage(user) == 0
    assert upload(user, project["id"], [("flow.mmd", FLOW)]).status_code == 200  # the diagram alone fits
    assert admin.put(f"/admin/plans/{_free_plan(user)['id']}", json={"max_storage_mb": 10}).status_code == 200
    response = upload(user, project["id"], [("flujo.zip", archive)])
    assert response.status_code == 200, response.json
    diagram_id = response.json["created_diagram_ids"][0]
    stored = sum(r["stored_size"] for r in _revisions(user, diagram_id))
    assert stored > 8 * 150_000  # hex of random bytes compresses to about half
    first = user.get(f"/projects/{project['id']}").json["diagrams"]
    flow_alone = next(d for d in first if d["id"] != diagram_id)
    flow_history = _revisions(user, flow_alone["id"])[0]["stored_size"]
    breakdown = user.get("/subscriptions/usage").json["storage_breakdown"]  # the rows' overhead apart
    assert (breakdown["content_bytes"], breakdown["history_bytes"]) == (2 * len(FLOW), flow_history + stored)


# -- hostile archives ------------------------------------------------------------------------------------

def _history_directory(count):
    """A bare central directory of `count` entries named like revision files (zipfile would build one
    object per entry)."""
    records = []
    for number in range(count):
        name = f"P/.history/D.mmd/{number:06d}.mmd".encode()
        records.append(struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 0, 20, 0, 0, 0, 0, 0, 0, 1, 1,
                                   len(name), 0, 0, 0, 0, 0, 0) + name)
    directory = b"".join(records)
    zip64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(directory), 0)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, len(directory), 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(directory), 0, 0)
    return directory + zip64 + locator + end


def test_an_archive_of_100k_revision_files_is_refused_before_it_is_read(user, project):
    detail = error_detail(upload(user, project["id"], [("history.zip", _history_directory(100_000))],
                                 dry_run=True), 400)
    assert (detail["error"], detail["file"], detail["reason"]) == ("invalid_upload", "history.zip", "too_many_files")


def test_more_revision_files_than_an_import_takes_are_refused(user, project):
    entries = {f"Flujo/.history/Flujo.mmd/{n:05d}.mmd": "x" for n in range(10_001)}
    entries["Flujo/Flujo.mmd"] = FLOW
    archive = make_zip(entries, zipfile.ZIP_STORED)
    detail = error_detail(upload(user, project["id"], [("history.zip", archive)]), 400)
    assert (detail["error"], detail["reason"]) == ("invalid_upload", "too_many_revisions")
    assert user.get(f"/projects/{project['id']}").json["diagram_count"] == 0


def test_a_zip_bomb_of_revisions_is_refused_before_expanding(user, project):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("Flujo/Flujo.mmd", FLOW)
        for number in range(1, 4):
            with archive.open(f"Flujo/.history/Flujo.mmd/{number:04d}.mmd", "w", force_zip64=True) as member:
                for _ in range(20):
                    member.write(b"\0" * (1024 * 1024))
    detail = error_detail(upload(user, project["id"], [("bomb.zip", buffer.getvalue())]), 400)
    assert (detail["error"], detail["reason"]) == ("invalid_upload", "too_large_uncompressed")


def test_history_files_in_an_archive_without_manifest_are_not_diagrams(user, project):
    archive = make_zip({"P/Flujo.mmd": FLOW, "P/.history/Flujo.mmd/0001.mmd": "graph TD\n  old",
                        "P/.history/Flujo.mmd/revisions.json": "[]"})
    response = upload(user, project["id"], [("plain.zip", archive)])
    assert response.status_code == 200, response.json
    assert [(d["title"], d["source"], d["revision_count"]) for d in response.json["diagrams"]] == [
        ("Flujo", "P/Flujo.mmd", 1)]
