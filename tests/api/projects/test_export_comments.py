"""Comments in the ZIP export with `include_history` and back on import (docs/export-format.md, "Comments"):
body, anchor, resolution and times kept, no author, replies under their roots, counted in storage; an
export without history carries none, and a malformed comments list loses only what is unusable."""
import json
from datetime import UTC, datetime

from sqlalchemy import select

from trazo.extensions import db
from trazo.models.comments import Comment

from ...helpers import create_diagram, create_project
from ...zips import make_zip
from .test_export_history import _export, _zip
from .test_import import upload

LINES = {"type": "lines", "start_line": 2, "end_line": 2, "revision": 1, "quote": "  A --> B",
         "current_start_line": 2, "current_end_line": 2}


def _add(app, diagram_id, author_id, body, parent_id=None, **columns):
    with app.app_context():
        comment = Comment(diagram_id=diagram_id, parent_id=parent_id, author_id=author_id, body=body,
                          body_size=len(body.encode()), anchor=columns.pop("anchor", {"type": "diagram"}),
                          mentions=[], **columns)
        db.session.add(comment)
        db.session.commit()
        comment_id = comment.id
        db.session.remove()
        return comment_id


def _comments(app, diagram_id):
    with app.app_context():
        rows = db.session.scalars(select(Comment).where(Comment.diagram_id == diagram_id)
                                  .order_by(Comment.created_at)).all()
        answer = [{"id": c.id, "parent_id": c.parent_id, "author_id": c.author_id, "body": c.body,
                   "anchor": c.anchor, "resolved": c.resolved, "resolved_at": c.resolved_at,
                   "created_at": c.created_at, "body_size": c.body_size} for c in rows]
        db.session.remove()
        return answer


def _usage(web):
    return web.get("/subscriptions/usage").json["storage"]["current"]


def test_comments_travel_with_the_history_and_come_back_without_their_authors(app, user, project):
    diagram = create_diagram(user, project["id"], title="Flujo", content="graph TD\n  A --> B")
    root = _add(app, diagram["id"], user.id, "¿Por qué <b>B</b>?", anchor=LINES,
                created_at=datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC))
    _add(app, diagram["id"], user.id, "Porque sí", parent_id=root, created_at=datetime(2024, 1, 3, tzinfo=UTC))
    _add(app, diagram["id"], user.id, "Resuelto", resolved=True, resolved_by=user.id,
         resolved_at=datetime(2024, 2, 1, tzinfo=UTC), created_at=datetime(2024, 1, 5, tzinfo=UTC))

    archive = _export(user, project["id"], include_history="true").data
    [index_name] = [name for name in _zip(_export(user, project["id"], include_history="true")).namelist()
                    if name.endswith("revisions.json")]
    index = json.loads(_zip(_export(user, project["id"], include_history="true")).read(index_name))
    assert [c["body"] for c in index["comments"]] == ["¿Por qué <b>B</b>?", "Resuelto", "Porque sí"]
    assert "author_id" not in index["comments"][0]

    destination = create_project(user, name="Copia")
    before = _usage(user)
    response = upload(user, destination["id"], [("export.zip", archive)])
    assert response.status_code == 200, response.json
    copy = response.json["created_diagram_ids"][0]
    restored = _comments(app, copy)
    original = _comments(app, diagram["id"])
    assert [(c["body"], c["anchor"], c["resolved"], c["resolved_at"], c["created_at"]) for c in restored] == \
        [(c["body"], c["anchor"], c["resolved"], c["resolved_at"], c["created_at"]) for c in original]
    assert {c["author_id"] for c in restored} == {None}
    assert {c["id"] for c in restored}.isdisjoint({c["id"] for c in original})
    [reply] = [c for c in restored if c["parent_id"]]
    assert reply["body"] == "Porque sí" and reply["parent_id"] == restored[0]["id"]
    assert user.get(f"/diagrams/{copy}").json["open_comment_count"] == 1
    assert _usage(user) - before >= sum(c["body_size"] for c in restored)


def test_an_export_without_history_carries_no_comments(app, user, project):
    diagram = create_diagram(user, project["id"], title="Flujo")
    _add(app, diagram["id"], user.id, "secreto")
    archive = _zip(_export(user, project["id"]))
    assert not any("secreto" in archive.read(name).decode(errors="replace") for name in archive.namelist())


def test_unusable_comments_in_an_archive_are_dropped_and_the_rest_kept(app, user, project):
    diagram = create_diagram(user, project["id"], title="Flujo", content="graph TD\n  A")
    _add(app, diagram["id"], user.id, "bueno")
    archive = _zip(_export(user, project["id"], include_history="true"))
    files = {name: archive.read(name) for name in archive.namelist()}
    [index_name] = [name for name in files if name.endswith("revisions.json")]
    index = json.loads(files[index_name])
    index["comments"] += [
        {"id": "r", "parent_id": "missing-root", "body": "huérfana"},
        {"id": "x", "body": "x" * 10_001},
        {"id": "y", "body": 42},
        "not an object",
        {"id": "z", "body": "ancla rara", "anchor": {"type": "planet", "evil": "<script>"}},
    ]
    files[index_name] = json.dumps(index).encode()
    destination = create_project(user, name="Copia")
    response = upload(user, destination["id"], [("export.zip", make_zip(files))])
    assert response.status_code == 200, response.json
    restored = _comments(app, response.json["created_diagram_ids"][0])
    assert [(c["body"], c["anchor"]) for c in restored] == [("bueno", {"type": "diagram"}),
                                                            ("ancla rara", {"type": "diagram"})]
