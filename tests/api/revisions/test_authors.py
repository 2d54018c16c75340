"""Revisions show their author {id, full_name} (docs/teams.md): in a team, who changed what; null once the
account is gone. Read in the statement that reads the revisions (no query per author)."""
from trazo.extensions import db
from trazo.models.base import new_id
from trazo.models.workspaces import TEAM, Membership, Workspace

from ...helpers import create_diagram, create_project, save_diagram


def _team(app, owner, editor):
    with app.app_context():
        workspace = Workspace(id=new_id(), name="Team", kind=TEAM, billing_owner_id=owner.id)
        db.session.add(workspace)
        db.session.flush()
        db.session.add_all([Membership(workspace_id=workspace.id, user_id=owner.id, role="owner"),
                            Membership(workspace_id=workspace.id, user_id=editor.id, role="editor")])
        db.session.commit()
        return workspace.id


def test_list_and_get_name_each_revisions_author(app, make_user, configure):
    configure(REVISION_COALESCE_SECONDS=0)
    ana, ben = make_user(full_name="Ana Owner"), make_user(full_name="Ben Editor")
    project = create_project(ana, name="Shared", workspace_id=_team(app, ana, ben))
    diagram = create_diagram(ana, project["id"], content="graph TD\n  A --> B")
    save_diagram(ben, diagram["id"], content="graph TD\n  A --> C")
    items = ben.get(f"/diagrams/{diagram['id']}/revisions").json["items"]
    assert [(item["number"], item["author"]) for item in items] == [
        (2, {"id": ben.id, "full_name": "Ben Editor"}), (1, {"id": ana.id, "full_name": "Ana Owner"})]
    first = ben.get(f"/diagrams/{diagram['id']}/revisions/1").json
    assert first["author"] == {"id": ana.id, "full_name": "Ana Owner"} and first["content"] == "graph TD\n  A --> B"


def test_naming_and_renaming_answer_with_the_author(user, diagram):
    named = user.post(f"/diagrams/{diagram['id']}/revisions", json={"label": "v1"})
    assert named.status_code == 201 and named.json["author"] == {"id": user.id, "full_name": "Test User"}
    renamed = user.put(f"/diagrams/{diagram['id']}/revisions/1", json={"label": "v1.0"})
    assert renamed.status_code == 200 and renamed.json["author"]["id"] == user.id


def test_a_revision_whose_author_is_gone_has_a_null_author(user, diagram, age_revisions):
    age_revisions(diagram["id"], 0, author_id=None)  # what deleting the account leaves (ON DELETE SET NULL)
    assert user.get(f"/diagrams/{diagram['id']}/revisions").json["items"][0]["author"] is None
    answer = user.get(f"/diagrams/{diagram['id']}/revisions/1").json
    assert answer["author"] is None and answer["author_id"] is None


def test_reading_one_revision_costs_the_same_whoever_wrote_it(user, diagram, make_user, count_queries, app,
                                                              configure):
    configure(REVISION_COALESCE_SECONDS=0)
    save_diagram(user, diagram["id"], content="graph TD\n  X --> Y")
    counts = []
    for number in (1, 2):
        with count_queries() as counted:
            assert user.get(f"/diagrams/{diagram['id']}/revisions/{number}").json["author"]["id"] == user.id
        counts.append(counted.count)
    assert counts[0] == counts[1] <= 3, counts
