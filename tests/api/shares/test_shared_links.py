"""Shared links, owner side: create, read by diagram, update, revoke; one active link per diagram;
deleting the diagram or its project removes its links."""
import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from trazo.extensions import db
from trazo.models.sharing import SharedLink

from ...helpers import UNKNOWN_ID, create_diagram, create_project, error_detail, share, validation_errors

LINK_FIELDS = {"id", "diagram_id", "token", "share_url", "access_type", "access_code", "allow_copy_code",
               "expires_at", "is_active", "created_at", "updated_at"}


def _when(stamp):
    return datetime.fromisoformat(stamp)


def test_create_a_public_link(user, diagram):
    before = datetime.now(UTC)
    link = share(user, diagram["id"])
    assert set(link) == LINK_FIELDS
    assert link["diagram_id"] == diagram["id"] and link["is_active"] is True
    assert link["access_type"] == "public" and link["access_code"] is None and link["allow_copy_code"] is False
    assert len(link["token"]) >= 40
    assert link["share_url"] == f"http://localhost:5173/shared/{link['token']}"
    expires = _when(link["expires_at"]) - before
    assert timedelta(days=30) <= expires <= timedelta(days=30, minutes=1)
    assert _when(link["created_at"]).utcoffset() == timedelta(0)


def test_create_a_protected_link_with_or_without_a_code(user, diagram, app):
    chosen = share(user, diagram["id"], access_type="protected", access_code="Sesame-42", expiration_days=5)
    assert chosen["access_type"] == "protected" and chosen["access_code"] == "Sesame-42"
    generated = share(user, diagram["id"], access_type="protected", expiration_days=None, allow_copy_code=True)
    assert len(generated["access_code"]) == 8 and generated["access_code"].isalnum()
    assert generated["expires_at"] is None and generated["allow_copy_code"] is True
    with app.app_context():
        stored = db.session.scalar(select(SharedLink).where(SharedLink.id == generated["id"]))
        assert stored.access_code_hash.startswith("$argon2id$")
        assert generated["access_code"] not in stored.access_code_hash


def test_a_public_link_ignores_a_code(user, diagram):
    assert share(user, diagram["id"], access_code="Sesame-42")["access_code"] is None


def test_one_active_link_per_diagram(user, diagram):
    first = share(user, diagram["id"])
    second = share(user, diagram["id"])
    assert second["token"] != first["token"]
    current = user.get(f"/shared-links/diagram/{diagram['id']}")
    assert current.status_code == 200 and current.json["id"] == second["id"]
    assert current.json["access_code"] is None
    error_detail(user.get(f"/shared/{first['token']}/info"), 404)


def test_concurrent_creations_leave_one_active_link(user, diagram, app):
    barrier = threading.Barrier(4)
    results = []

    def create():
        barrier.wait()
        results.append(user.post("/shared-links", json={"diagram_id": diagram["id"]}))

    threads = [threading.Thread(target=create) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [response.status_code for response in results] == [201] * 4
    with app.app_context():
        active = db.session.scalars(select(SharedLink).where(SharedLink.is_active)).all()
    assert len(active) == 1
    assert user.get(f"/shared-links/diagram/{diagram['id']}").json["id"] == active[0].id


def test_read_the_link_of_a_diagram_without_one(user, diagram):
    response = user.get(f"/shared-links/diagram/{diagram['id']}")
    assert response.status_code == 200 and response.get_json() is None


def test_update_expiry_access_and_copy(user, diagram):
    link = share(user, diagram["id"], expiration_days=5)
    never = user.put(f"/shared-links/{link['id']}", json={"expiration_days": None})
    assert never.status_code == 200 and never.json["expires_at"] is None
    protected = user.put(f"/shared-links/{link['id']}", json={"access_type": "protected", "allow_copy_code": True})
    assert protected.json["access_type"] == "protected" and len(protected.json["access_code"]) == 8
    assert protected.json["allow_copy_code"] is True and protected.json["token"] == link["token"]
    untouched = user.put(f"/shared-links/{link['id']}", json={"expiration_days": 10})
    assert untouched.json["access_code"] is None and untouched.json["access_type"] == "protected"
    assert untouched.json["expires_at"] is not None
    recoded = user.put(f"/shared-links/{link['id']}", json={"access_code": "NewCode-7"})
    assert recoded.json["access_code"] == "NewCode-7"
    public = user.put(f"/shared-links/{link['id']}", json={"access_type": "public"})
    assert public.json["access_type"] == "public" and public.json["access_code"] is None
    assert user.get(f"/shared/{link['token']}/info").json["requires_code"] is False


def test_revoke(user, diagram):
    link = share(user, diagram["id"])
    response = user.delete(f"/shared-links/{link['id']}")
    assert response.status_code == 200 and response.json == {"message": "Shared link revoked successfully"}
    assert user.delete(f"/shared-links/{link['id']}", lang="es").json == {"message": "Enlace revocado exitosamente"}
    assert user.get(f"/shared-links/diagram/{diagram['id']}").get_json() is None
    assert error_detail(user.get(f"/shared/{link['token']}/diagram"), 404) == "Shared link not found"


def test_deleting_the_diagram_or_project_removes_its_links(user, project, diagram, app):
    link = share(user, diagram["id"])
    assert user.delete(f"/diagrams/{diagram['id']}").status_code == 200
    error_detail(user.get(f"/shared/{link['token']}/info"), 404)
    other_project = create_project(user, name="Other")
    kept = create_diagram(user, other_project["id"])
    kept_link = share(user, kept["id"])
    assert user.delete(f"/projects/{other_project['id']}").status_code == 200
    error_detail(user.get(f"/shared/{kept_link['token']}/diagram"), 404)
    with app.app_context():
        assert db.session.scalars(select(SharedLink)).all() == []


def test_owner_routes_need_a_token(client, user, diagram):
    link = share(user, diagram["id"])
    for response in (client.post("/shared-links", json={"diagram_id": diagram["id"]}),
                     client.get(f"/shared-links/diagram/{diagram['id']}"),
                     client.put(f"/shared-links/{link['id']}", json={"allow_copy_code": True}),
                     client.delete(f"/shared-links/{link['id']}")):
        error_detail(response, 401)
        assert response.headers["WWW-Authenticate"] == "Bearer"


def test_another_users_diagram_or_link_is_not_found(user, other_user, diagram):
    link = share(user, diagram["id"])
    assert error_detail(other_user.post("/shared-links", json={"diagram_id": diagram["id"]}), 404) \
        == "Diagram not found"
    error_detail(other_user.get(f"/shared-links/diagram/{diagram['id']}"), 404)
    assert error_detail(other_user.put(f"/shared-links/{link['id']}", json={"allow_copy_code": True}), 404) \
        == "Shared link not found"
    assert error_detail(other_user.delete(f"/shared-links/{link['id']}", lang="es"), 404) \
        == "Enlace compartido no encontrado"
    for missing in (UNKNOWN_ID, "not-an-id"):
        error_detail(user.get(f"/shared-links/diagram/{missing}"), 404)
        error_detail(user.delete(f"/shared-links/{missing}"), 404)
        error_detail(user.post("/shared-links", json={"diagram_id": missing}), 404)
    assert user.get(f"/shared/{link['token']}/info").status_code == 200


def test_bad_input_is_a_422_list(user, diagram):
    for days in (7, -1, 0, 10_000_000, "5", 5.5):
        validation_errors(user.post("/shared-links", json={"diagram_id": diagram["id"], "expiration_days": days}),
                          "expiration_days")
    validation_errors(user.post("/shared-links", json={"diagram_id": diagram["id"], "access_type": "secret"}),
                      "access_type")
    for code in ("abc", "x" * 21, "    ", " padded "):
        validation_errors(user.post("/shared-links", json={"diagram_id": diagram["id"], "access_type": "protected",
                                                           "access_code": code}), "access_code")
    validation_errors(user.post("/shared-links", json={}), "diagram_id")
    link = share(user, diagram["id"])
    validation_errors(user.put(f"/shared-links/{link['id']}", json={"expiration_days": 3}), "expiration_days")
    validation_errors(user.put(f"/shared-links/{link['id']}", json={"access_code": ""}), "access_code")
    detail = validation_errors(user.put(f"/shared-links/{link['id']}", json={"allow_copy_code": None}, lang="es"))
    assert detail[0]["loc"] == ["body", "allow_copy_code"]
