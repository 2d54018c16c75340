"""`open_comment_count` on diagram answers: the open threads (root comments not resolved) of the diagram,
read in the statement that reads the diagram (docs/comments.md)."""
from trazo.extensions import db
from trazo.models.comments import Comment

from ...helpers import create_diagram, create_folder, save_diagram


def _comments(app, diagram_id, user_id, open_roots=0, resolved_roots=0, replies=0):
    with app.app_context():
        roots = []
        for index in range(open_roots + resolved_roots):
            root = Comment(diagram_id=diagram_id, author_id=user_id, body="b", body_size=1,
                           anchor={"type": "diagram"}, mentions=[], resolved=index >= open_roots)
            db.session.add(root)
            roots.append(root)
        db.session.flush()
        for _index in range(replies):
            db.session.add(Comment(diagram_id=diagram_id, parent_id=roots[0].id, author_id=user_id, body="r",
                                   body_size=1, anchor={"type": "diagram"}, mentions=[]))
        db.session.commit()
        db.session.remove()


def test_a_new_diagram_has_no_open_comments(user, diagram):
    assert diagram["open_comment_count"] == 0
    assert user.get(f"/diagrams/{diagram['id']}").json["open_comment_count"] == 0


def test_the_count_is_of_open_threads_not_of_replies_nor_resolved_ones(app, user, diagram):
    _comments(app, diagram["id"], user.id, open_roots=2, resolved_roots=3, replies=4)
    assert user.get(f"/diagrams/{diagram['id']}").json["open_comment_count"] == 2
    assert save_diagram(user, diagram["id"], title="Renamed")["open_comment_count"] == 2


def test_another_diagrams_comments_are_not_counted(app, user, project, diagram):
    other = create_diagram(user, project["id"], title="Other")
    _comments(app, other["id"], user.id, open_roots=5)
    assert user.get(f"/diagrams/{diagram['id']}").json["open_comment_count"] == 0
    assert user.get(f"/diagrams/{other['id']}").json["open_comment_count"] == 5


def test_the_project_tree_and_a_folder_count_each_diagram(app, user, project, diagram):
    folder = create_folder(user, project["id"], name="F")
    inside = create_diagram(user, project["id"], title="Inside", folder_id=folder["id"])
    _comments(app, diagram["id"], user.id, open_roots=1)
    _comments(app, inside["id"], user.id, open_roots=3, resolved_roots=1)
    tree = user.get(f"/projects/{project['id']}").json
    assert [(d["title"], d["open_comment_count"]) for d in tree["diagrams"]] == [("Login flow", 1)]
    assert [(d["title"], d["open_comment_count"]) for d in tree["folders"][0]["diagrams"]] == [("Inside", 3)]
    listed = user.get(f"/folders/{folder['id']}").json["diagrams"]
    assert [(d["title"], d["open_comment_count"]) for d in listed] == [("Inside", 3)]


def test_reading_a_diagram_costs_no_statement_for_its_count(app, user, diagram, count_queries):
    user.get(f"/diagrams/{diagram['id']}")
    with count_queries() as before:
        user.get(f"/diagrams/{diagram['id']}")
    _comments(app, diagram["id"], user.id, open_roots=2)
    with count_queries() as after:
        assert user.get(f"/diagrams/{diagram['id']}").json["open_comment_count"] == 2
    assert after.count == before.count
    assert any("comments" in statement and "diagrams" in statement for statement in after.statements)
