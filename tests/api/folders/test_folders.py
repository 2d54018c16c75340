"""Folders: create, read with diagrams, update, delete (moving or deleting the diagrams)."""
import pytest

from ...helpers import UNKNOWN_ID, create_diagram, create_folder, error_detail, validation_errors

FOLDER_FIELDS = {"id", "name", "color", "project_id", "created_at", "updated_at"}


def test_create_folder_answers_201_with_default_color(user, project):
    response = user.post(f"/projects/{project['id']}/folders", json={"name": " Docs "})
    assert response.status_code == 201
    assert set(response.json) == FOLDER_FIELDS
    assert response.json["name"] == "Docs" and response.json["color"] == "#3B82F6"
    assert response.json["project_id"] == project["id"]


def test_read_folder_lists_its_diagrams(user, project, folder):
    inside = create_diagram(user, project["id"], title="Inside", folder_id=folder["id"])
    create_diagram(user, project["id"], title="Outside")
    response = user.get(f"/folders/{folder['id']}")
    assert response.status_code == 200
    assert set(response.json) == FOLDER_FIELDS | {"diagrams"}
    assert [d["id"] for d in response.json["diagrams"]] == [inside["id"]]
    assert response.json["diagrams"][0]["config"]["background_pattern"] == "plain"


def test_update_folder(user, folder):
    response = user.put(f"/folders/{folder['id']}", json={"name": "Cobros", "color": "#ff00aa"})
    assert response.status_code == 200
    assert response.json["name"] == "Cobros" and response.json["color"] == "#ff00aa"
    assert response.json["updated_at"] >= folder["updated_at"]
    assert user.put(f"/folders/{folder['id']}", json={}).json["name"] == "Cobros"


@pytest.mark.parametrize("body, field", [
    ({"name": None}, "name"), ({"name": ""}, "name"), ({"color": None}, "color"), ({"color": "blue"}, "color"),
    ({"color": "#12345"}, "color"), ({"name": "n" * 101}, "name"),
])
def test_update_folder_rejects_bad_input(user, folder, body, field):
    validation_errors(user.put(f"/folders/{folder['id']}", json=body), field)


def test_create_folder_rejects_bad_input(user, project):
    validation_errors(user.post(f"/projects/{project['id']}/folders", json={}), "name")
    detail = validation_errors(user.post(f"/projects/{project['id']}/folders", json={"name": "x", "color": "red"},
                                         lang="es"), "color")
    assert detail[0]["msg"] == "Debe ser un color hexadecimal como #3B82F6."


def test_delete_folder_moves_diagrams_to_the_root(user, project, folder):
    inside = create_diagram(user, project["id"], folder_id=folder["id"])
    response = user.delete(f"/folders/{folder['id']}", query_string={"delete_diagrams": "false"})
    assert response.status_code == 200 and response.json == {"message": "Folder deleted successfully"}
    assert user.get(f"/diagrams/{inside['id']}").json["folder_id"] is None
    assert user.get(f"/folders/{folder['id']}").status_code == 404


def test_delete_folder_with_its_diagrams(user, project, folder):
    for title in ("a", "b"):
        create_diagram(user, project["id"], title=title, folder_id=folder["id"])
    kept = create_diagram(user, project["id"], title="kept")
    response = user.delete(f"/folders/{folder['id']}", query_string={"delete_diagrams": "true"}, lang="es")
    assert response.status_code == 200
    assert response.json == {"message": "Carpeta y 2 diagrama(s) eliminados correctamente"}
    tree = user.get(f"/projects/{project['id']}").json
    assert tree["folders"] == [] and [d["id"] for d in tree["diagrams"]] == [kept["id"]]


def test_delete_folder_rejects_a_bad_flag(user, folder):
    validation_errors(user.delete(f"/folders/{folder['id']}", query_string={"delete_diagrams": "maybe"}),
                      "delete_diagrams", where="query")


def test_another_users_folder_is_not_found(user, other_user, folder):
    for response in (other_user.get(f"/folders/{folder['id']}"),
                     other_user.put(f"/folders/{folder['id']}", json={"name": "x"}),
                     other_user.delete(f"/folders/{folder['id']}")):
        assert error_detail(response, 404) == "Folder not found"
    assert error_detail(user.get(f"/folders/{UNKNOWN_ID}", lang="es"), 404) == "Carpeta no encontrada"
    assert user.get(f"/folders/{folder['id']}").status_code == 200


def test_folder_routes_need_a_token(client):
    for method in ("GET", "PUT", "DELETE"):
        assert error_detail(client.request(method, f"/folders/{UNKNOWN_ID}", json={}), 401) == "Not authenticated"


def test_folder_listing_is_per_project(user, project):
    from ...helpers import create_project

    other_project = create_project(user, name="Other")
    folder = create_folder(user, other_project["id"], name="Elsewhere")
    assert user.get(f"/projects/{project['id']}").json["folders"] == []
    assert user.get(f"/projects/{other_project['id']}").json["folders"][0]["id"] == folder["id"]
