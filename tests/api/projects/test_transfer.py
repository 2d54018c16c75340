"""POST /projects/{project_id}/transfer (docs/teams.md): an admin of the project's workspace moves it to a
workspace where they are an editor; the target billing owner's limits apply; chat sessions of people who
are not members of the target end; both workspaces log the move."""
import pytest
from sqlalchemy import select

from trazo.core.workspaces.personal import personal_workspace_id
from trazo.extensions import db
from trazo.models.base import new_id
from trazo.models.chat import ChatSession
from trazo.models.workspaces import TEAM, Membership, Workspace, WorkspaceEvent

from ...helpers import create_diagram, create_folder, create_project, error_detail, validation_errors


def make_team(app, billing_owner, **members):
    """A team workspace billed to `billing_owner` (its owner) with `members` ({role: client}); its id."""
    with app.app_context():
        workspace = Workspace(id=new_id(), name="Team", kind=TEAM, billing_owner_id=billing_owner.id)
        db.session.add(workspace)
        db.session.flush()
        db.session.add(Membership(workspace_id=workspace.id, user_id=billing_owner.id, role="owner"))
        for role, member in members.items():
            db.session.add(Membership(workspace_id=workspace.id, user_id=member.id, role=role))
        db.session.commit()
        return workspace.id


def personal(app, client):
    with app.app_context():
        return personal_workspace_id(client.id)


def transfer(client, project_id, workspace_id, **kwargs):
    return client.post(f"/projects/{project_id}/transfer", json={"workspace_id": workspace_id}, **kwargs)


def events(app, workspace_id):
    with app.app_context():
        return [(event.event, event.details) for event in
                db.session.scalars(select(WorkspaceEvent).where(WorkspaceEvent.workspace_id == workspace_id))]


@pytest.fixture
def owner(make_user, admin):  # not the installation's admin: plan limits apply to them
    return make_user(full_name="Team Owner")


def test_an_owner_moves_their_personal_project_into_a_team_where_they_edit(app, user, owner):
    team = make_team(app, owner, editor=user)
    project = create_project(user, name="Moving")
    create_diagram(user, project["id"])
    response = transfer(user, project["id"], team)
    assert response.status_code == 200, response.json
    assert (response.json["id"], response.json["workspace_id"], response.json["role"],
            response.json["diagram_count"]) == (project["id"], team, "editor", 1)
    listed = {item["id"]: item for item in owner.get("/projects").json}
    assert listed[project["id"]]["workspace_id"] == team and listed[project["id"]]["role"] == "owner"
    assert [name for name, _details in events(app, personal(app, user))] == ["project_transferred_out"]
    [(name, details)] = events(app, team)
    assert name == "project_transferred_in" and details["project_id"] == project["id"]
    assert details["from_workspace_id"] == personal(app, user)


def test_a_team_admin_moves_a_team_project_to_their_personal_workspace(app, user, owner):
    team = make_team(app, owner, admin=user)
    project = create_project(owner, name="Team work", workspace_id=team)
    response = transfer(user, project["id"], personal(app, user))
    assert response.status_code == 200 and response.json["role"] == "owner", response.json
    assert error_detail(owner.get(f"/projects/{project['id']}"), 404) == "Project not found"


def test_transfer_needs_a_token(client, project):
    assert error_detail(transfer(client, project["id"], "whatever", token=None), 401)


def test_a_stranger_to_the_project_gets_404(app, user, other_user, project):
    response = transfer(other_user, project["id"], personal(app, other_user))
    assert error_detail(response, 404) == "Project not found"


def test_an_editor_of_the_source_may_not_move_it(app, user, owner):
    team = make_team(app, owner, editor=user)
    project = create_project(owner, name="Team work", workspace_id=team)
    response = transfer(user, project["id"], personal(app, user))
    error_detail(response, 403, "insufficient_role")
    assert owner.get(f"/projects/{project['id']}").json["workspace_id"] == team


def test_a_workspace_the_caller_is_not_a_member_of_is_404(app, user, other_user, project):
    """The attack: moving one's project into someone else's workspace (their limits, their eyes)."""
    response = transfer(user, project["id"], personal(app, other_user))
    assert error_detail(response, 404) == "Workspace not found"
    assert other_user.get("/projects").json == []


def test_a_viewer_of_the_target_may_not_move_a_project_into_it(app, user, owner, project):
    team = make_team(app, owner, viewer=user)
    error_detail(transfer(user, project["id"], team), 403, "insufficient_role")
    assert user.get(f"/projects/{project['id']}").json["workspace_id"] == personal(app, user)


def test_moving_to_the_same_workspace_is_409(app, user, project):
    assert error_detail(transfer(user, project["id"], personal(app, user)), 409) == \
        "The project already belongs to this workspace"
    assert error_detail(transfer(user, project["id"], personal(app, user), lang="es"), 409) == \
        "El proyecto ya pertenece a este espacio de trabajo"


def test_a_missing_workspace_id_is_422(user, project):
    validation_errors(user.post(f"/projects/{project['id']}/transfer", json={}), "workspace_id")


def test_the_target_billing_owners_project_limit_applies(app, user, owner, configure):
    configure(FREE_PLAN_MAX_PROJECTS=1)  # before anything makes the FREE plan row from the settings
    project = create_project(user, name="Mine")
    team = make_team(app, owner, editor=user)
    create_project(owner, name="Already one", workspace_id=team)
    detail = error_detail(transfer(user, project["id"], team), 403)
    assert (detail["error"], detail["resource_type"], detail["current_usage"], detail["limit"]) == \
        ("resource_limit_exceeded", "projects", 1, 1)
    assert user.get(f"/projects/{project['id']}").json["workspace_id"] == personal(app, user)
    assert events(app, team) == []


def test_the_target_billing_owners_diagram_limit_counts_the_projects_diagrams(app, user, owner, configure):
    configure(FREE_PLAN_MAX_DIAGRAMS=2)
    project = create_project(user, name="Mine")
    team = make_team(app, owner, editor=user)
    for _ in range(2):
        create_diagram(user, project["id"])
    create_diagram(owner, create_project(owner, name="Theirs", workspace_id=team)["id"])
    detail = error_detail(transfer(user, project["id"], team), 403)
    assert (detail["resource_type"], detail["current_usage"], detail["limit"]) == ("diagrams", 1, 2)


def test_chat_sessions_of_people_outside_the_target_end_with_the_move(app, user, owner, other_user):
    source = make_team(app, owner, admin=user, viewer=other_user)
    project = create_project(owner, name="Team work", workspace_id=source)
    folder = create_folder(owner, project["id"])
    diagram = create_diagram(owner, project["id"], folder_id=folder["id"])
    sessions = {client.id: client.post("/chat-sessions", json={"diagram_id": diagram["id"]}).json["id"]
                for client in (user, owner, other_user)}
    target = make_team(app, user)  # the caller owns the target; the others are not in it
    assert transfer(user, project["id"], target).status_code == 200
    assert user.get(f"/chat-sessions/{sessions[user.id]}").status_code == 200
    for client in (owner, other_user):
        assert error_detail(client.get(f"/chat-sessions/{sessions[client.id]}"), 404) == "Chat session not found"
    with app.app_context():
        assert set(db.session.scalars(select(ChatSession.user_id))) == {user.id}
    [(_name, details)] = events(app, target)
    assert details["ended_chat_sessions"] == 2
    assert [name for name, _details in events(app, source)] == ["project_transferred_out"]
