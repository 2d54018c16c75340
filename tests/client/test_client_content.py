"""The client's content calls, replayed: projects, folders, diagrams (editor autosave and the unload
save), recent diagrams, preview render, export and import dialogs, AI fix and convert, prompt history
and shared links (owner side and the public viewer)."""
import io
import json
import re
import zipfile
from urllib.parse import unquote

import pytest

from ..helpers import add_provider
from .browser import reads, shown_detail

PROJECT = ("id", "name", "description", "emoji", "user_id", "diagram_count", "diagram_type_counts", "created_at",
           "updated_at")
FOLDER = ("id", "name", "color", "project_id", "created_at", "updated_at")
DIAGRAM = ("id", "title", "content", "description", "diagram_type", "config.background_color",
           "config.background_pattern", "user_preferences.description_pinned",
           "user_preferences.description_font_size", "user_preferences.description_panel_width",
           "user_preferences.chat_panel_width", "user_preferences.preferred_provider",
           "user_preferences.preferred_model", "project_id", "folder_id", "viewport_zoom", "viewport_x", "viewport_y",
           "created_at", "updated_at")
RECENT = ("id", "title", "diagram_type", "project_id", "project_name", "project_emoji", "updated_at")
SHARED_LINK = ("id", "diagram_id", "token", "share_url", "access_type", "access_code", "allow_copy_code",
               "expires_at", "is_active", "created_at", "updated_at")
SHARED_DIAGRAM = ("title", "description", "content", "diagram_type", "rendered_content", "config", "allow_copy_code",
                  "owner_name")
SUMMARY = ("diagram_count", "folder_count", "size_bytes", "size_is_upper_bound", "estimated_tokens", "filename")
PREVIEW = ("diagram_count", "folder_count", "folders", "diagrams", "skipped", "current_usage", "limit", "allowed",
           "target_folder")
MERMAID = "flowchart TD\n  A[Start] --> B[End]"
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>drawn</text></svg>'


def _project(tab, **fields):
    response = tab.api("POST", "/projects", json={"name": "Arquitectura", "description": "Main", "emoji": "🏗️",
                                                  **fields})
    assert response.status_code == 201, response.get_json()
    return reads(response.get_json(), *PROJECT)


def _diagram(tab, project_id, **fields):
    body = {"title": "Login flow", "content": MERMAID, "description": "How we log in", "diagram_type": "mermaid",
            **fields}
    response = tab.api("POST", f"/projects/{project_id}/diagrams", json=body)
    assert response.status_code == 201, response.get_json()
    return reads(response.get_json(), *DIAGRAM)


def _upload(tab, project_id, files, dry_run=False):
    data = {"files": [(io.BytesIO(body.encode() if isinstance(body, str) else body), name) for name, body in files]}
    return tab.api("POST", f"/projects/{project_id}/import", data=data, content_type="multipart/form-data",
                   query_string={"dry_run": "true"} if dry_run else {})


# -- projects, folders, diagrams -----------------------------------------------------------

def test_the_dashboard_creates_lists_edits_and_deletes_projects(ada):
    project = _project(ada)
    assert project["diagram_count"] == 0 and project["diagram_type_counts"] == {}
    _diagram(ada, project["id"])
    listed = ada.api("GET", "/projects")
    assert listed.status_code == 200
    [row] = listed.get_json()
    assert reads(row, *PROJECT)["diagram_count"] == 1 and row["diagram_type_counts"] == {"mermaid": 1}
    updated = ada.api("PUT", f"/projects/{project['id']}", json={"name": "Pagos", "description": "",
                                                                 "emoji": "💳"})
    assert updated.status_code == 200 and reads(updated.get_json(), *PROJECT)["name"] == "Pagos"
    assert ada.api("DELETE", f"/projects/{project['id']}").status_code == 200
    assert shown_detail(ada.api("GET", f"/projects/{project['id']}"), 404)


def test_the_project_page_reads_root_diagrams_and_folders_with_theirs(ada):
    project = _project(ada)
    folder = ada.api("POST", f"/projects/{project['id']}/folders", json={"name": "Pagos", "color": "#10B981"})
    assert folder.status_code == 201
    folder = reads(folder.get_json(), *FOLDER)
    _diagram(ada, project["id"], title="Root one")
    _diagram(ada, project["id"], title="In folder", folder_id=folder["id"])
    page = ada.api("GET", f"/projects/{project['id']}")
    assert page.status_code == 200
    body = reads(page.get_json(), *PROJECT, "diagrams", "folders")
    assert [reads(d, *DIAGRAM)["title"] for d in body["diagrams"]] == ["Root one"]
    [shown] = body["folders"]
    assert reads(shown, *FOLDER, "diagrams")["diagrams"][0]["title"] == "In folder"
    reads(shown["diagrams"][0], *DIAGRAM)
    opened = ada.api("GET", f"/folders/{folder['id']}")
    assert opened.status_code == 200 and len(reads(opened.get_json(), *FOLDER, "diagrams")["diagrams"]) == 1
    renamed = ada.api("PUT", f"/folders/{folder['id']}", json={"name": "Cobros", "color": "#F59E0B"})
    assert renamed.status_code == 200 and reads(renamed.get_json(), *FOLDER)["name"] == "Cobros"
    # The client always sends delete_diagrams; false moves the diagrams to the root.
    kept = ada.api("DELETE", f"/folders/{folder['id']}", query_string={"delete_diagrams": "false"})
    assert kept.status_code == 200
    assert len(ada.api("GET", f"/projects/{project['id']}").get_json()["diagrams"]) == 2


def test_deleting_a_folder_with_its_diagrams(ada):
    project = _project(ada)
    folder = ada.api("POST", f"/projects/{project['id']}/folders", json={"name": "Old"}).get_json()
    _diagram(ada, project["id"], folder_id=folder["id"])
    gone = ada.api("DELETE", f"/folders/{folder['id']}", query_string={"delete_diagrams": "true"})
    assert gone.status_code == 200
    body = ada.api("GET", f"/projects/{project['id']}").get_json()
    assert body["folders"] == [] and body["diagrams"] == []


def test_the_editor_autosaves_the_whole_payload_and_on_unload(ada):
    project = _project(ada)
    diagram = _diagram(ada, project["id"])
    opened = ada.api("GET", f"/diagrams/{diagram['id']}")
    assert opened.status_code == 200 and reads(opened.get_json(), *DIAGRAM)["content"] == MERMAID
    autosave = {"title": "Login flow", "content": MERMAID + "\n  B --> C", "description": "How we log in",
                "diagram_type": "mermaid", "config": {"background_color": "#f8fafc", "background_pattern": "dots"},
                "user_preferences": {"description_pinned": True, "description_font_size": 14,
                                     "description_panel_width": 320, "chat_panel_width": 400,
                                     "preferred_provider": "openai", "preferred_model": "gpt-test"},
                "folder_id": None, "viewport_zoom": 1.5, "viewport_x": -20.0, "viewport_y": 35.5}
    saved = ada.api("PUT", f"/diagrams/{diagram['id']}", json=autosave)
    assert saved.status_code == 200, saved.get_json()
    body = reads(saved.get_json(), *DIAGRAM)
    assert body["content"].endswith("B --> C") and body["config"]["background_pattern"] == "dots"
    assert body["user_preferences"]["preferred_model"] == "gpt-test" and body["viewport_zoom"] == 1.5
    # The unload save is a keepalive fetch: only `response.ok` is read.
    unload = ada.api("PUT", f"/diagrams/{diagram['id']}", data=json.dumps({**autosave, "viewport_x": 0.0}),
                     content_type="application/json")
    assert 200 <= unload.status_code < 300


def test_move_duplicate_recent_and_delete_a_diagram(ada):
    source, target = _project(ada, name="Source"), _project(ada, name="Target")
    diagram = _diagram(ada, source["id"])
    copy = ada.api("POST", f"/diagrams/{diagram['id']}/duplicate", json={"title": "Login flow-copy"})
    assert copy.status_code in (200, 201) and reads(copy.get_json(), *DIAGRAM)["title"] == "Login flow-copy"
    moved = ada.api("POST", f"/diagrams/{diagram['id']}/move", json={"target_project_id": target["id"]})
    assert moved.status_code == 200
    assert reads(moved.get_json(), *DIAGRAM)["project_id"] == target["id"] and moved.get_json()["folder_id"] is None
    recent = ada.api("GET", "/diagrams/recent")
    assert recent.status_code == 200
    assert {reads(row, *RECENT)["title"] for row in recent.get_json()} == {"Login flow", "Login flow-copy"}
    assert ada.api("DELETE", f"/diagrams/{diagram['id']}").status_code == 200
    assert shown_detail(ada.api("GET", f"/diagrams/{diagram['id']}"), 404)


def test_a_plan_limit_reaches_the_client_as_an_object(ada, owner):
    free = next(plan for plan in owner.api("GET", "/admin/plans").get_json() if plan["code"] == "FREE")
    assert owner.api("PUT", f"/admin/plans/{free['id']}", json={"max_projects": 1}).status_code == 200
    _project(ada)
    refused = ada.api("POST", "/projects", json={"name": "Second"})
    assert refused.status_code == 403
    detail = reads(refused.get_json(), "detail")["detail"]
    assert reads(detail, "error", "resource_type", "current_usage", "limit", "message")["error"] == \
        "resource_limit_exceeded"


# -- preview render ------------------------------------------------------------------------

@pytest.mark.parametrize("diagram_type", ["plantuml", "d2", "dbml"])
def test_the_preview_renders_through_the_public_instance_as_svg_text(browser, kroki, diagram_type):
    kroki.svg = SVG
    response = browser().public("POST", "/diagrams/render", json={"source": "A -> B", "diagram_type": diagram_type},
                                headers={"Accept": "image/svg+xml"})
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert "<svg" in response.get_data(as_text=True) and "drawn" in response.get_data(as_text=True)
    assert kroki.requests[-1]["type"] == diagram_type


def test_the_client_s_uml_preview_renders_as_plantuml(browser, kroki):
    kroki.svg = SVG
    response = browser().public("POST", "/diagrams/render", json={"source": "@startuml\nA -> B\n@enduml",
                                                                  "diagram_type": "uml"},
                                headers={"Accept": "image/svg+xml"})
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert kroki.requests[-1]["type"] == "plantuml"


@pytest.mark.parametrize("diagram_type", ["vega", "vegalite", "excalidraw", "structurizr", "symbolator", "umlet",
                                          "wireviz"])
def test_every_kroki_type_of_the_reference_renders_through_kroki(browser, kroki, diagram_type):
    kroki.svg = SVG
    response = browser().public("POST", "/diagrams/render", json={"source": "{}", "diagram_type": diagram_type},
                                headers={"Accept": "image/svg+xml"})
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "image/svg+xml" and kroki.requests[-1]["type"] == diagram_type


def test_preview_errors_are_text_the_client_shows(browser, kroki):
    tab = browser()
    broken = tab.public("POST", "/diagrams/render", json={"source": "digraph G {\n  a -> -> \n}",
                                                          "diagram_type": "graphviz"},
                        headers={"Accept": "image/svg+xml"})
    assert "line" in shown_detail(broken, 400).lower()
    unknown = tab.public("POST", "/diagrams/render", json={"source": "A -> B", "diagram_type": "visio"},
                         headers={"Accept": "image/svg+xml"})
    assert "plantuml" in shown_detail(unknown, 400)
    kroki.mode = "down"
    assert shown_detail(tab.public("POST", "/diagrams/render", json={"source": "A -> B", "diagram_type": "d2"},
                                   headers={"Accept": "image/svg+xml"}), 502)


# -- export and import ---------------------------------------------------------------------

def test_the_export_dialog_reads_the_summary_then_downloads_with_the_file_name(ada):
    project = _project(ada, name="Arquitectura Pagos")
    _diagram(ada, project["id"])
    for fmt, variant in (("zip", "ai"), ("markdown", "ai"), ("markdown", "standard")):
        params = {"format": fmt, "variant": variant, "descriptions": "true"}
        summary = ada.api("GET", f"/projects/{project['id']}/export/summary", query_string=params)
        assert summary.status_code == 200
        body = reads(summary.get_json(), *SUMMARY)
        assert body["diagram_count"] == 1 and body["filename"].endswith(".zip" if fmt == "zip" else ".md")
        download = ada.api("GET", f"/projects/{project['id']}/export", query_string=params)
        assert download.status_code == 200
        disposition = download.headers["Content-Disposition"]
        encoded = re.search(r"filename\*=UTF-8''(\S+)", disposition)
        assert unquote(encoded.group(1)) == body["filename"]
        if fmt == "zip":
            assert zipfile.ZipFile(io.BytesIO(download.data)).namelist()
        else:
            assert MERMAID in download.get_data(as_text=True)


def test_the_import_dialog_previews_then_imports(ada):
    project = _project(ada)
    files = [("flow.mmd", MERMAID), ("notes.md", "# Notes\n\n```plantuml\n@startuml\nA -> B\n@enduml\n```\n"),
             ("logo.png", b"\x89PNG")]
    preview = _upload(ada, project["id"], files, dry_run=True)
    assert preview.status_code == 200, preview.get_json()
    body = reads(preview.get_json(), *PREVIEW)
    assert body["diagram_count"] == 2 and body["allowed"] is True
    assert [reads(row, "source", "reason")["reason"] for row in body["skipped"]] == ["unsupported_type"]
    for row in body["diagrams"]:
        reads(row, "title", "diagram_type", "folder", "source", "has_description", "warnings")
    done = _upload(ada, project["id"], files)
    assert done.status_code == 200, done.get_json()
    result = reads(done.get_json(), *PREVIEW, "created_diagram_ids", "created_folder_ids")
    assert len(result["created_diagram_ids"]) == 2


def test_import_errors_reach_the_client_as_coded_objects(ada):
    project = _project(ada)
    nothing = _upload(ada, project["id"], [("logo.png", b"\x89PNG")])
    assert nothing.status_code == 400
    assert reads(nothing.get_json()["detail"], "error")["error"] == "nothing_to_import"
    broken = _upload(ada, project["id"], [("bundle.zip", b"PK\x03\x04 broken")])
    assert broken.status_code == 400
    assert reads(broken.get_json()["detail"], "error")["error"] == "invalid_upload"


def test_an_export_whose_manifest_has_no_folder_keeps_the_archive_folders(ada):
    project = _project(ada)
    manifest = {"format": "diagramahub-export", "format_version": 1, "project": {"name": "Old"},
                "folders": [{"name": "Pagos", "path": "Pagos"}],
                "diagrams": [{"title": "Checkout", "type": "mermaid", "path": "Pagos/Checkout.mmd"},
                             {"title": "Home", "type": "mermaid", "path": "Home.mmd"}]}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("Old/manifest.json", json.dumps(manifest))
        archive.writestr("Old/Pagos/Checkout.mmd", MERMAID)
        archive.writestr("Old/Home.mmd", MERMAID)
    done = _upload(ada, project["id"], [("Old.zip", buffer.getvalue())])
    assert done.status_code == 200, done.get_json()
    page = ada.api("GET", f"/projects/{project['id']}").get_json()
    assert [d["title"] for d in page["diagrams"]] == ["Home"]
    assert [(f["name"], [d["title"] for d in f["diagrams"]]) for f in page["folders"]] == [("Pagos", ["Checkout"])]


# -- AI fix and convert ----------------------------------------------------------------------

@pytest.fixture
def ada_ai(ada, fake_providers):
    add_provider(ada.web.signed_in(ada.token), "openai", model="gpt-test")
    fake_providers.reset()
    return fake_providers


def test_fix_sends_the_error_context_and_reads_the_repair(ada, ada_ai):
    project = _project(ada)
    diagram = _diagram(ada, project["id"], content="flowchart TD\n  A --> B\n  end")
    ada_ai.openai.reply(text=json.dumps({"corrected_code": MERMAID, "explanation": "Removed a stray end",
                                         "changes_summary": "one line"}))
    response = ada.api("POST", f"/diagrams/{diagram['id']}/fix",
                       json={"error_context": "Parse error on line 3", "provider": "openai", "language": "en"})
    assert response.status_code == 200, response.get_json()
    body = reads(response.get_json(), "original_code", "corrected_code", "explanation", "changes_summary", "diff",
                 "provider_used", "model_used", "generation_time", "validation_passed")
    assert body["corrected_code"] == MERMAID and body["validation_passed"] is True


def test_convert_sends_the_chat_model_and_reads_the_conversion(ada, ada_ai):
    ada_ai.openai.reply(text="```plantuml\n@startuml\nStart -> End\n@enduml\n```")
    response = ada.api("POST", "/diagrams/convert", json={"diagram_code": MERMAID, "source_type": "mermaid",
                                                          "target_type": "plantuml", "provider": "openai",
                                                          "model": "gpt-other", "language": "en"})
    assert response.status_code == 200, response.get_json()
    body = reads(response.get_json(), "original_code", "converted_code", "source_type", "target_type",
                 "provider_used", "model_used", "generation_time", "warning")
    assert body["converted_code"].startswith("@startuml") and body["model_used"] == "gpt-other"


# -- prompt history --------------------------------------------------------------------------

def test_prompt_history_saves_pages_searches_and_deletes(ada):
    project = _project(ada)
    diagram = _diagram(ada, project["id"])
    saved = ada.api("POST", "/prompt-history", json={"prompt_text": "Add a login step",
                                                     "operation_type": "improvement", "diagram_id": diagram["id"]})
    assert saved.status_code == 201
    entry = reads(saved.get_json(), "id", "diagram_id", "prompt_text", "operation_type", "created_at", "used_at")
    page = ada.api("GET", "/prompt-history", query_string={"page": 1, "page_size": 20, "search": "login",
                                                           "diagram_id": diagram["id"]})
    assert page.status_code == 200
    body = reads(page.get_json(), "items", "total", "page", "page_size", "total_pages")
    assert [item["id"] for item in body["items"]] == [entry["id"]]
    assert ada.api("DELETE", f"/prompt-history/{entry['id']}").status_code == 200
    assert ada.api("GET", "/prompt-history").get_json()["total"] == 0


# -- shared links --------------------------------------------------------------------------

def test_sharing_dialog_finds_no_link_then_creates_a_public_one_and_revokes_it(ada, browser):
    project = _project(ada)
    diagram = _diagram(ada, project["id"])
    none = ada.api("GET", f"/shared-links/diagram/{diagram['id']}")
    assert (none.status_code == 200 and none.get_json() is None) or none.status_code == 404
    created = ada.api("POST", "/shared-links", json={"diagram_id": diagram["id"], "expiration_days": 30,
                                                     "access_type": "public", "allow_copy_code": True})
    assert created.status_code == 201
    link = reads(created.get_json(), *SHARED_LINK)
    assert link["share_url"] == f"http://localhost:5173/shared/{link['token']}" and link["expires_at"]
    found = ada.api("GET", f"/shared-links/diagram/{diagram['id']}")
    assert found.status_code == 200 and reads(found.get_json(), *SHARED_LINK)["id"] == link["id"]
    visitor = browser("es")
    info = visitor.public("GET", f"/shared/{link['token']}/info")
    assert info.status_code == 200
    assert reads(info.get_json(), "requires_code", "is_expired", "diagram_title")["requires_code"] is False
    shared = visitor.public("GET", f"/shared/{link['token']}/diagram")
    assert shared.status_code == 200
    body = reads(shared.get_json(), *SHARED_DIAGRAM)
    assert body["content"] == MERMAID and body["owner_name"] == "Ada Lovelace"
    assert ada.api("DELETE", f"/shared-links/{link['id']}").status_code == 200
    assert shown_detail(visitor.public("GET", f"/shared/{link['token']}/info"), 404)


def test_a_protected_link_never_expiring_is_opened_with_its_code(ada, browser):
    project = _project(ada)
    diagram = _diagram(ada, project["id"])
    created = ada.api("POST", "/shared-links", json={"diagram_id": diagram["id"], "expiration_days": None,
                                                     "access_type": "protected", "access_code": "Ab3xY9",
                                                     "allow_copy_code": False})
    assert created.status_code == 201
    link = reads(created.get_json(), *SHARED_LINK)
    assert link["access_code"] == "Ab3xY9" and link["expires_at"] is None
    visitor = browser("es")
    assert visitor.public("GET", f"/shared/{link['token']}/info").get_json()["requires_code"] is True
    assert shown_detail(visitor.public("GET", f"/shared/{link['token']}/diagram"), 403)
    wrong = visitor.public("POST", f"/shared/{link['token']}/verify", json={"access_code": "nope00"})
    # The viewer parses "Intentos restantes: N" out of the Spanish detail.
    assert re.search(r"Intentos restantes: \d", shown_detail(wrong, 403))
    opened = visitor.public("POST", f"/shared/{link['token']}/verify", json={"access_code": "Ab3xY9"})
    assert opened.status_code == 200
    assert reads(opened.get_json(), *SHARED_DIAGRAM)["content"] is None
