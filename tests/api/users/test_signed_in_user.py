"""The signed-in user is read once per request, as a Core row the access check reads (auth.signed_in); a view
that needs the ORM User gets one made from that row, with no second statement (docs/operations.md, "The hot
read path")."""
from datetime import UTC, datetime, timedelta

from trazo.extensions import db
from trazo.models import User

from ...helpers import error_detail

PICTURE = "data:image/png;base64,iVBORw0KGgo="


def _hot_reads(project, diagram):
    return ["/projects", f"/projects/{project['id']}", f"/diagrams/{diagram['id']}"]


def _change(app, user_id, **values):
    with app.app_context():
        stored = db.session.get(User, user_id)
        for name, value in values.items():
            setattr(stored, name, value)
        db.session.commit()


def _user_rows(statements):
    """The statements that read the users row's loaded columns (the access check's)."""
    return [statement for statement in statements if statement.startswith("SELECT users.email")]


def test_a_view_that_needs_the_user_reads_its_row_once(user, count_queries):
    with count_queries() as counted:
        response = user.get("/users/me")
    assert response.status_code == 200 and response.json["email"] == user.email
    assert len(_user_rows(counted.statements)) == 1


def test_the_made_user_is_written_back_and_loads_its_picture_when_read(app, user, count_queries):
    changed = user.put("/users/me", json={"full_name": "Ada Lovelace", "profile_picture": PICTURE}, lang="es")
    assert changed.status_code == 200 and changed.json["full_name"] == "Ada Lovelace"
    with count_queries() as counted:
        read = user.get("/users/me")
    assert read.json["full_name"] == "Ada Lovelace" and read.json["profile_picture"] == PICTURE
    assert len(_user_rows(counted.statements)) == 1
    with app.app_context():
        stored = db.session.get(User, user.id)
        assert (stored.full_name, stored.profile_picture, stored.language) == ("Ada Lovelace", PICTURE, "es")


def test_the_hot_reads_answer_with_the_callers_rows(user, other_user, project, diagram):
    for path in _hot_reads(project, diagram):
        assert user.get(path).status_code == 200, path
    assert other_user.get("/projects").json == []
    error_detail(other_user.get(f"/diagrams/{diagram['id']}"), 404)


def test_the_hot_reads_refuse_a_deactivated_account(app, user, project, diagram):
    _change(app, user.id, is_active=False)
    for path in _hot_reads(project, diagram):
        assert error_detail(user.get(path), 401) == "User not found or inactive", path
    assert error_detail(user.get(f"/diagrams/{diagram['id']}", lang="es"), 401) == "Usuario no encontrado o inactivo"


def test_the_hot_reads_refuse_a_token_older_than_the_password(app, user, project, diagram):
    _change(app, user.id, password_changed_at=datetime.now(UTC) + timedelta(minutes=5))
    for path in _hot_reads(project, diagram):
        assert error_detail(user.get(path), 401) == "Session invalidated. Please log in again.", path


def test_the_hot_reads_refuse_a_missing_or_forged_token(user, client, project, diagram):
    forged = user.token[:-4] + ("AAAA" if not user.token.endswith("AAAA") else "BBBB")
    for path in _hot_reads(project, diagram):
        assert error_detail(client.get(path), 401) == "Not authenticated", path
        assert error_detail(client.get(path, token=forged), 401) == "Could not validate credentials", path
