"""Diagrams: create, read, update (the recent-order rule), delete, move, duplicate, recent."""
import time

import pytest

from ...helpers import UNKNOWN_ID, create_diagram, create_folder, create_project, error_detail, validation_errors
from ..projects.test_projects import DIAGRAM_FIELDS


def test_create_diagram_answers_201_with_defaults(user, project):
    response = user.post(f"/projects/{project['id']}/diagrams", json={"title": "Minimal"})
    assert response.status_code == 201
    body = response.json
    assert set(body) == DIAGRAM_FIELDS
    assert body["content"] == "" and body["description"] == "" and body["diagram_type"] == "flowchart"
    assert body["config"] == {"background_color": "#ffffff", "background_pattern": "plain"}
    assert body["user_preferences"] == {"description_pinned": False, "description_font_size": None,
                                        "description_panel_width": None, "chat_panel_width": None,
                                        "preferred_provider": None, "preferred_model": None}
    assert body["viewport_zoom"] == 1.0 and body["viewport_x"] == body["viewport_y"] == 0.0
    assert body["folder_id"] is None and body["project_id"] == project["id"]
    assert body["created_at"] == body["updated_at"]


def test_create_diagram_in_a_folder(user, project, folder):
    body = create_diagram(user, project["id"], folder_id=folder["id"], diagram_type="PlantUML",
                          config={"background_color": "#000000", "background_pattern": "grid"})
    assert body["folder_id"] == folder["id"] and body["diagram_type"] == "plantuml"
    assert body["config"] == {"background_color": "#000000", "background_pattern": "grid"}
    assert user.get(f"/diagrams/{body['id']}").json == body


def test_create_diagram_refuses_a_folder_of_another_project(user, other_user, project):
    sibling = create_project(user, name="Sibling")
    foreign = create_folder(user, sibling["id"])
    response = user.post(f"/projects/{project['id']}/diagrams", json={"title": "x", "folder_id": foreign["id"]})
    assert error_detail(response, 404) == "Folder not found"
    theirs = create_folder(other_user, create_project(other_user)["id"])
    response = user.post(f"/projects/{project['id']}/diagrams", json={"title": "x", "folder_id": theirs["id"]})
    assert error_detail(response, 404) == "Folder not found"


@pytest.mark.parametrize("body, field", [
    ({}, "title"), ({"title": " "}, "title"), ({"title": "t" * 101}, "title"),
    ({"title": "x", "diagram_type": "visio"}, "diagram_type"),
    ({"title": "x", "description": "d" * 50_001}, "description"),
    ({"title": "x", "config": {"background_pattern": "stripes"}}, "config"),
    ({"title": "x", "content": None}, "content"),
])
def test_create_diagram_rejects_bad_input(user, project, body, field):
    validation_errors(user.post(f"/projects/{project['id']}/diagrams", json=body), field)


def test_unknown_type_message_lists_the_types_in_spanish(user, project):
    response = user.post(f"/projects/{project['id']}/diagrams", json={"title": "x", "diagram_type": "visio"},
                         lang="es")
    detail = validation_errors(response, "diagram_type")
    assert detail[0]["msg"].startswith("Tipo de diagrama desconocido") and "mermaid" in detail[0]["msg"]


def test_update_diagram_writes_only_the_keys_sent(user, project, folder, diagram):
    response = user.put(f"/diagrams/{diagram['id']}", json={"title": "Renamed", "folder_id": folder["id"],
                                                            "description": None})
    assert response.status_code == 200
    body = response.json
    assert body["title"] == "Renamed" and body["folder_id"] == folder["id"] and body["description"] is None
    assert body["content"] == diagram["content"]
    assert body["updated_at"] > diagram["updated_at"]
    assert user.put(f"/diagrams/{diagram['id']}", json={"folder_id": None}).json["folder_id"] is None
    user.put(f"/diagrams/{diagram['id']}", json={"folder_id": folder["id"]})
    assert user.put(f"/diagrams/{diagram['id']}", json={"folder_id": ""}).json["folder_id"] is None


def test_presentation_only_saves_keep_updated_at(user, diagram):
    time.sleep(0.01)
    same = {key: diagram[key] for key in ("title", "content", "description", "diagram_type", "config")}
    response = user.put(f"/diagrams/{diagram['id']}", json={
        **same, "viewport_zoom": 2.5, "viewport_x": -10, "viewport_y": 4.5,
        "user_preferences": {"description_pinned": True, "chat_panel_width": 400}})
    body = response.json
    assert response.status_code == 200 and body["updated_at"] == diagram["updated_at"]
    assert body["viewport_zoom"] == 2.5 and body["viewport_x"] == -10.0
    assert body["user_preferences"]["description_pinned"] is True
    second = user.put(f"/diagrams/{diagram['id']}", json={"user_preferences": {"preferred_model": "m1"}}).json
    preferences = second["user_preferences"]
    assert preferences["chat_panel_width"] == 400 and preferences["preferred_model"] == "m1"
    edited = user.put(f"/diagrams/{diagram['id']}", json={**same, "content": "graph LR\n A-->C"}).json
    assert edited["updated_at"] > diagram["updated_at"]


@pytest.mark.parametrize("body, field", [
    ({"title": None}, "title"), ({"content": None}, "content"), ({"diagram_type": None}, "diagram_type"),
    ({"config": None}, "config"), ({"user_preferences": None}, "user_preferences"),
    ({"viewport_zoom": 0.05}, "viewport_zoom"), ({"viewport_zoom": None}, "viewport_zoom"),
    ({"user_preferences": {"description_font_size": 99}}, "user_preferences"),
    ({"diagram_type": "uml"}, "diagram_type"), ({"viewport_x": "left"}, "viewport_x"),
])
def test_update_diagram_rejects_bad_input(user, diagram, body, field):
    validation_errors(user.put(f"/diagrams/{diagram['id']}", json=body), field)


def test_update_into_a_foreign_folder_is_404_and_changes_nothing(user, other_user, diagram):
    theirs = create_folder(other_user, create_project(other_user)["id"])
    response = user.put(f"/diagrams/{diagram['id']}", json={"title": "Changed", "folder_id": theirs["id"]})
    assert error_detail(response, 404) == "Folder not found"
    assert user.get(f"/diagrams/{diagram['id']}").json["title"] == diagram["title"]


def test_delete_diagram(user, diagram):
    response = user.delete(f"/diagrams/{diagram['id']}", lang="es")
    assert response.status_code == 200 and response.json == {"message": "Diagrama eliminado correctamente"}
    assert error_detail(user.get(f"/diagrams/{diagram['id']}", lang="es"), 404) == "Diagrama no encontrado"


def test_move_diagram_to_the_root_of_another_project(user, project, folder):
    inside = create_diagram(user, project["id"], folder_id=folder["id"])
    target = create_project(user, name="Target")
    response = user.post(f"/diagrams/{inside['id']}/move", json={"target_project_id": target["id"]})
    assert response.status_code == 200
    assert response.json["project_id"] == target["id"] and response.json["folder_id"] is None
    assert set(response.json) == DIAGRAM_FIELDS
    assert user.get(f"/projects/{target['id']}").json["diagram_count"] == 1
    same = user.post(f"/diagrams/{inside['id']}/move", json={"target_project_id": target["id"]})
    assert same.status_code == 200


def test_move_into_another_users_project_is_404(user, other_user, diagram):
    theirs = create_project(other_user)
    response = user.post(f"/diagrams/{diagram['id']}/move", json={"target_project_id": theirs["id"]})
    assert error_detail(response, 404) == "Target project not found"
    response = other_user.post(f"/diagrams/{diagram['id']}/move", json={"target_project_id": theirs["id"]})
    assert error_detail(response, 404) == "Diagram not found"
    assert user.get(f"/diagrams/{diagram['id']}").json["project_id"] == diagram["project_id"]
    validation_errors(user.post(f"/diagrams/{diagram['id']}/move", json={"target_project_id": ""}), "target_project_id")


def test_duplicate_diagram(user, project, folder):
    source = create_diagram(user, project["id"], folder_id=folder["id"], description="D", diagram_type="d2",
                            content="a -> b")
    user.put(f"/diagrams/{source['id']}", json={"viewport_zoom": 3, "user_preferences": {"chat_panel_width": 500}})
    response = user.post(f"/diagrams/{source['id']}/duplicate", json={"title": "Copy"})
    assert response.status_code == 200
    copy = response.json
    assert copy["id"] != source["id"] and copy["title"] == "Copy"
    assert (copy["content"], copy["description"], copy["diagram_type"], copy["folder_id"]) == \
        ("a -> b", "D", "d2", folder["id"])
    assert copy["user_preferences"]["chat_panel_width"] == 500 and copy["viewport_zoom"] == 1.0
    validation_errors(user.post(f"/diagrams/{source['id']}/duplicate", json={}), "title")


def test_recent_lists_four_newest_with_their_project(user, other_user, project):
    second = create_project(user, name="Second", emoji="🧪")
    made = [create_diagram(user, (project, second)[i % 2]["id"], title=f"D{i}") for i in range(5)]
    create_diagram(other_user, create_project(other_user)["id"], title="Theirs")
    user.put(f"/diagrams/{made[0]['id']}", json={"content": "graph TD\n X-->Y"})
    response = user.get("/diagrams/recent")
    assert response.status_code == 200
    assert [d["title"] for d in response.json] == ["D0", "D4", "D3", "D2"]
    assert set(response.json[0]) == {"id", "title", "diagram_type", "project_id", "project_name", "project_emoji",
                                     "updated_at"}
    assert response.json[0]["project_name"] == "Arquitectura" and response.json[1]["project_emoji"] == "🏗️"
    assert response.json[2]["project_emoji"] == "🧪"
    assert other_user.get("/diagrams/recent").json[0]["title"] == "Theirs"


def test_another_users_diagram_is_not_found(user, other_user, diagram):
    for response in (other_user.get(f"/diagrams/{diagram['id']}"),
                     other_user.put(f"/diagrams/{diagram['id']}", json={"title": "x"}),
                     other_user.delete(f"/diagrams/{diagram['id']}"),
                     other_user.post(f"/diagrams/{diagram['id']}/duplicate", json={"title": "x"}),
                     other_user.get(f"/diagrams/{UNKNOWN_ID}")):
        assert error_detail(response, 404) == "Diagram not found"
    assert user.get(f"/diagrams/{diagram['id']}").status_code == 200


def test_diagram_routes_need_a_token(client):
    for method, path in (("GET", "/diagrams/recent"), ("GET", f"/diagrams/{UNKNOWN_ID}"),
                         ("PUT", f"/diagrams/{UNKNOWN_ID}"), ("DELETE", f"/diagrams/{UNKNOWN_ID}"),
                         ("POST", f"/diagrams/{UNKNOWN_ID}/move"), ("POST", f"/diagrams/{UNKNOWN_ID}/duplicate")):
        assert error_detail(client.request(method, path, json={}), 401) == "Not authenticated", (method, path)


def test_deleting_a_diagram_or_its_project_revokes_its_shared_links(user, client, project, diagram):
    other = create_diagram(user, project["id"], title="Other")
    tokens = []
    for shared in (diagram, other):
        created = user.post("/shared-links", json={"diagram_id": shared["id"]})
        assert created.status_code == 201, created.json
        tokens.append(created.json["token"])
        assert client.get(f"/shared/{tokens[-1]}/info").status_code == 200
    assert user.delete(f"/diagrams/{diagram['id']}").status_code == 200
    assert client.get(f"/shared/{tokens[0]}/info").status_code == 404
    assert client.get(f"/shared/{tokens[1]}/info").status_code == 200
    assert user.delete(f"/projects/{project['id']}").status_code == 200
    assert client.get(f"/shared/{tokens[1]}/info").status_code == 404
