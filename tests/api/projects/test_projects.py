"""Projects: CRUD, counts, the project tree, ownership, validation and the query budget."""
import pytest

from ...helpers import UNKNOWN_ID, create_diagram, create_folder, create_project, error_detail, validation_errors

PROJECT_FIELDS = {"id", "name", "description", "emoji", "user_id", "workspace_id", "role", "diagram_count",
                  "diagram_type_counts",
                  "created_at", "updated_at"}
DIAGRAM_FIELDS = {"id", "title", "content", "description", "diagram_type", "config", "user_preferences",
                  "project_id", "folder_id", "viewport_zoom", "viewport_x", "viewport_y", "version", "created_at",
                  "updated_at", "open_comment_count"}


def test_create_project_answers_201_with_defaults(user):
    response = user.post("/projects", json={"name": "  Plataforma  ", "role": "ignored"})
    assert response.status_code == 201
    body = response.json
    assert set(body) == PROJECT_FIELDS
    assert body["name"] == "Plataforma" and body["emoji"] == "📊" and body["description"] is None
    assert body["user_id"] == user.id and body["diagram_count"] == 0 and body["diagram_type_counts"] == {}
    assert body["created_at"].endswith("+00:00")


def test_list_projects_counts_diagrams_per_type(user, other_user):
    first = create_project(user, name="A")
    second = create_project(user, name="B", emoji="🚀")
    create_project(other_user, name="Not mine")
    create_diagram(user, first["id"], diagram_type="mermaid")
    create_diagram(user, first["id"], diagram_type="mermaid")
    create_diagram(user, first["id"], diagram_type="plantuml", content="@startuml\n@enduml")
    listed = user.get("/projects")
    assert listed.status_code == 200
    assert [p["name"] for p in listed.json] == ["A", "B"]
    by_id = {p["id"]: p for p in listed.json}
    assert by_id[first["id"]]["diagram_count"] == 3
    assert by_id[first["id"]]["diagram_type_counts"] == {"mermaid": 2, "plantuml": 1}
    assert by_id[second["id"]]["diagram_count"] == 0 and by_id[second["id"]]["emoji"] == "🚀"
    assert set(listed.json[0]) == PROJECT_FIELDS


def test_project_tree_nests_folders_and_root_diagrams(user, project):
    zeta = create_folder(user, project["id"], name="zeta")
    alpha = create_folder(user, project["id"], name="Alpha", color="#abc")
    in_alpha = create_diagram(user, project["id"], title="Inside", folder_id=alpha["id"], diagram_type="d2")
    at_root = create_diagram(user, project["id"], title="Root")
    response = user.get(f"/projects/{project['id']}")
    assert response.status_code == 200
    body = response.json
    assert set(body) == PROJECT_FIELDS | {"diagrams", "folders"}
    assert body["diagram_count"] == 2 and body["diagram_type_counts"] == {"d2": 1, "mermaid": 1}
    assert [f["name"] for f in body["folders"]] == ["Alpha", "zeta"]
    assert body["folders"][0]["diagrams"][0]["id"] == in_alpha["id"]
    assert set(body["folders"][0]["diagrams"][0]) == DIAGRAM_FIELDS
    assert body["folders"][1]["id"] == zeta["id"] and body["folders"][1]["diagrams"] == []
    assert [d["id"] for d in body["diagrams"]] == [at_root["id"]]
    assert body["diagrams"][0]["config"] == {"background_color": "#ffffff", "background_pattern": "plain"}
    assert body["diagrams"][0]["user_preferences"]["description_pinned"] is False


def test_update_project_is_partial_and_recounts(user, project):
    create_diagram(user, project["id"], diagram_type="dbml", content="Table a {}")
    response = user.put(f"/projects/{project['id']}", json={"description": None, "emoji": ""})
    assert response.status_code == 200
    body = response.json
    assert body["name"] == "Arquitectura" and body["description"] is None and body["emoji"] == "📊"
    assert body["diagram_count"] == 1 and body["diagram_type_counts"] == {"dbml": 1}
    assert body["updated_at"] > project["updated_at"]


@pytest.mark.parametrize("body, field", [
    ({"name": None}, "name"), ({"name": "   "}, "name"), ({"name": "x" * 101}, "name"),
    ({"emoji": None}, "emoji"), ({"emoji": "x" * 11}, "emoji"), ({"description": "d" * 501}, "description"),
])
def test_update_project_rejects_bad_input(user, project, body, field):
    validation_errors(user.put(f"/projects/{project['id']}", json=body), field)


@pytest.mark.parametrize("body, field", [({}, "name"), ({"name": ""}, "name"), ({"name": 5}, "name")])
def test_create_project_rejects_bad_input(user, body, field):
    validation_errors(user.post("/projects", json=body), field)


def test_delete_project_removes_its_folders_and_diagrams(user, project, folder):
    inside = create_diagram(user, project["id"], folder_id=folder["id"])
    response = user.delete(f"/projects/{project['id']}")
    assert response.status_code == 200 and response.json == {"message": "Project deleted successfully"}
    assert user.get(f"/projects/{project['id']}").status_code == 404
    assert user.get(f"/folders/{folder['id']}").status_code == 404
    assert user.get(f"/diagrams/{inside['id']}").status_code == 404
    assert user.get("/projects").json == []


def test_another_users_project_is_not_found(user, other_user, project):
    for response in (other_user.get(f"/projects/{project['id']}"),
                     other_user.put(f"/projects/{project['id']}", json={"name": "Mine now"}),
                     other_user.delete(f"/projects/{project['id']}"),
                     other_user.post(f"/projects/{project['id']}/folders", json={"name": "x"}),
                     other_user.post(f"/projects/{project['id']}/diagrams", json={"title": "x"})):
        assert error_detail(response, 404) == "Project not found"
    assert user.get(f"/projects/{project['id']}").json["name"] == "Arquitectura"


@pytest.mark.parametrize("project_id", [UNKNOWN_ID, "not-an-id", "1" * 300])
def test_unknown_or_malformed_project_id_is_404(user, project_id):
    assert error_detail(user.get(f"/projects/{project_id}"), 404) == "Project not found"


def test_not_found_in_spanish(user):
    assert error_detail(user.get(f"/projects/{UNKNOWN_ID}", lang="es"), 404) == "Proyecto no encontrado"
    assert error_detail(user.delete(f"/projects/{UNKNOWN_ID}", lang="es-ES,en;q=0.1"), 404) == "Proyecto no encontrado"


def test_routes_need_a_token(client):
    for method, path in (("GET", "/projects"), ("POST", "/projects"), ("GET", f"/projects/{UNKNOWN_ID}"),
                         ("PUT", f"/projects/{UNKNOWN_ID}"), ("DELETE", f"/projects/{UNKNOWN_ID}"),
                         ("POST", f"/projects/{UNKNOWN_ID}/folders"), ("POST", f"/projects/{UNKNOWN_ID}/diagrams")):
        response = client.request(method, path, json={})
        assert error_detail(response, 401) == "Not authenticated", (method, path)
        assert response.headers["WWW-Authenticate"] == "Bearer"


def _fill(user, projects, diagrams_each):
    from trazo.core.workspaces.personal import personal_workspace_id
    from trazo.extensions import db
    from trazo.models.content import Diagram, Folder, Project

    with user.flask_client.application.app_context():
        owner = user.id
        for p in range(projects):
            project = Project(workspace_id=personal_workspace_id(owner), user_id=owner, name=f"P{p}")
            db.session.add(project)
            db.session.flush()
            folder = Folder(project_id=project.id, name="F")
            db.session.add(folder)
            db.session.flush()
            for d in range(diagrams_each):
                db.session.add(Diagram(project_id=project.id, folder_id=folder.id if d % 2 else None,
                                       title=f"D{d}", diagram_type=("mermaid", "d2")[d % 2]))
        db.session.commit()
        return db.session.scalar(db.select(Project.id).where(Project.name == "P0", Project.user_id == owner))


def _queries_for(user, count_queries, path):
    with count_queries() as counted:
        assert user.get(path).status_code == 200
    return counted.count


def test_listing_and_tree_run_a_constant_number_of_queries(user, other_user, count_queries):
    small = _fill(other_user, 2, 2)
    big = _fill(user, 20, 20)
    small_list = _queries_for(other_user, count_queries, "/projects")
    big_list = _queries_for(user, count_queries, "/projects")
    small_tree = _queries_for(other_user, count_queries, f"/projects/{small}")
    big_tree = _queries_for(user, count_queries, f"/projects/{big}")
    print(f"\nqueries: GET /projects {small_list} (2x2) / {big_list} (20x20); "
          f"GET /projects/{{id}} {small_tree} (2x2) / {big_tree} (20x20)")
    assert small_list == big_list <= 2
    assert small_tree == big_tree <= 4
    listed = user.get("/projects").json
    assert len(listed) == 20 and all(p["diagram_count"] == 20 for p in listed)
    assert listed[0]["diagram_type_counts"] == {"mermaid": 10, "d2": 10}
