"""Shared links, public side: info, diagram and code verification by token, with expiry, the
protected-link flow and its access token, the access log and the limits."""
import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from trazo import create_app
from trazo.extensions import db
from trazo.models.base import utcnow
from trazo.models.sharing import AccessLog, SharedLink

from ...helpers import SHARE_CODE as CODE
from ...helpers import ApiClient, create_diagram, create_project, error_detail, share, validation_errors

DIAGRAM_FIELDS = {"title", "description", "content", "diagram_type", "rendered_content", "config",
                  "allow_copy_code", "owner_name"}


def _expire(app, link):
    with app.app_context():
        db.session.execute(update(SharedLink).where(SharedLink.id == link["id"])
                           .values(expires_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()


def _log(app):
    with app.app_context():
        return [row.result for row in db.session.scalars(select(AccessLog).order_by(AccessLog.created_at))]


def _verify(client, link, code=CODE, **kwargs):
    return client.post(f"/shared/{link['token']}/verify", json={"access_code": code}, **kwargs)


def test_info_of_a_public_link(client, user, diagram):
    link = share(user, diagram["id"])
    response = client.get(f"/shared/{link['token']}/info")
    assert response.status_code == 200
    assert response.json == {"requires_code": False, "is_expired": False, "diagram_title": "Login flow"}


def test_public_diagram_without_copy_permission(client, user, diagram, app):
    link = share(user, diagram["id"])
    response = client.get(f"/shared/{link['token']}/diagram")
    assert response.status_code == 200 and set(response.json) == DIAGRAM_FIELDS
    assert response.json["title"] == "Login flow" and response.json["description"] == "How we log in"
    assert response.json["content"] is None and response.json["rendered_content"] == "graph TD\n  A --> B"
    assert response.json["diagram_type"] == "mermaid" and response.json["allow_copy_code"] is False
    assert response.json["config"] == {"background_color": "#ffffff", "background_pattern": "plain"}
    assert response.json["owner_name"] == "Test User"
    assert _log(app) == ["success"]


@pytest.mark.parametrize("full_name", ["", None])
def test_a_shared_diagram_of_an_owner_without_a_name_shows_no_part_of_the_email(client, make_user, admin,
                                                                                full_name):
    owner = make_user(email="jane.private@example.com", full_name=full_name)
    diagram = create_diagram(owner, create_project(owner)["id"])
    link = share(owner, diagram["id"])
    for response in (client.get(f"/shared/{link['token']}/diagram"),
                     client.post(f"/shared/{link['token']}/verify", json={"access_code": "x"})):
        assert response.status_code == 200 and response.json["owner_name"] is None
        assert "jane" not in response.get_data(as_text=True)


def test_copy_permission_exposes_the_content(client, user, diagram):
    link = share(user, diagram["id"], allow_copy_code=True)
    assert client.get(f"/shared/{link['token']}/diagram").json["content"] == "graph TD\n  A --> B"


def test_expired_link(client, user, diagram, app):
    link = share(user, diagram["id"], expiration_days=5)
    _expire(app, link)
    assert client.get(f"/shared/{link['token']}/info").json["is_expired"] is True
    assert error_detail(client.get(f"/shared/{link['token']}/diagram"), 410) == "This link has expired"
    assert error_detail(_verify(client, link, lang="es"), 410) == "Este enlace ha expirado"
    assert _log(app) == ["expired", "expired"]
    renewed = user.put(f"/shared-links/{link['id']}", json={"expiration_days": None})
    assert renewed.json["expires_at"] is None
    assert client.get(f"/shared/{link['token']}/diagram").status_code == 200


def test_unknown_token(client, app):
    for path in ("info", "diagram"):
        assert error_detail(client.get(f"/shared/no-such-token/{path}"), 404) == "Shared link not found"
    assert error_detail(_verify(client, {"token": "x" * 200}, lang="es"), 404) == "Enlace compartido no encontrado"
    assert _log(app) == ["not_found", "not_found"]


def test_protected_flow_with_the_share_access_token(client, protected, app):
    assert client.get(f"/shared/{protected['token']}/info").json["requires_code"] is True
    locked = client.get(f"/shared/{protected['token']}/diagram")
    assert error_detail(locked, 403) == "This link requires an access code"
    wrong = _verify(client, protected, "Wrong-code")
    assert error_detail(wrong, 403) == "Incorrect access code. Attempts remaining: 4"
    unlocked = _verify(client, protected)
    assert unlocked.status_code == 200
    assert set(unlocked.json) == DIAGRAM_FIELDS | {"access_token", "access_token_expires_in"}
    assert unlocked.json["rendered_content"] == "graph TD\n  A --> B"
    assert unlocked.json["access_token_expires_in"] == 3600
    token = unlocked.json["access_token"]
    by_query = client.get(f"/shared/{protected['token']}/diagram?access_token={token}")
    by_header = client.get(f"/shared/{protected['token']}/diagram", headers={"X-Share-Access": token})
    assert by_query.status_code == by_header.status_code == 200
    assert by_header.json["title"] == "Login flow"
    error_detail(client.get(f"/shared/{protected['token']}/diagram", headers={"X-Share-Access": token[:-2]}), 403)
    assert _log(app) == ["invalid_code", "success", "success", "success"]


def test_the_access_token_dies_with_the_code_and_fits_one_link(client, user, protected, project):
    token = _verify(client, protected).json["access_token"]
    other = share(user, create_diagram(user, project["id"])["id"], access_type="protected", access_code=CODE)
    error_detail(client.get(f"/shared/{other['token']}/diagram", headers={"X-Share-Access": token}), 403)
    user.put(f"/shared-links/{protected['id']}", json={"access_code": "Another-1"})
    error_detail(client.get(f"/shared/{protected['token']}/diagram", headers={"X-Share-Access": token}), 403)
    user.delete(f"/shared-links/{protected['id']}")
    error_detail(client.get(f"/shared/{protected['token']}/diagram", headers={"X-Share-Access": token}), 404)


def test_wrong_codes_are_limited_per_address_and_link(client, protected, app):
    for remaining in (4, 3, 2, 1, 0):
        detail = error_detail(_verify(client, protected, "Wrong-code", lang="es"), 403)
        assert detail == f"Código de acceso incorrecto. Intentos restantes: {remaining}"
    blocked = _verify(client, protected)
    assert error_detail(blocked, 429) == "Too many incorrect codes. Try again in 15 minutes."
    assert 840 <= int(blocked.headers["Retry-After"]) <= 900
    assert _log(app)[-1] == "blocked"
    elsewhere = ApiClient(app.test_client(), "10.88.0.1")
    assert _verify(elsewhere, protected).status_code == 200


def test_a_right_code_clears_the_failures(client, protected):
    for _ in range(4):
        error_detail(_verify(client, protected, "Wrong-code"), 403)
    assert _verify(client, protected).status_code == 200
    assert error_detail(_verify(client, protected, "Wrong-code"), 403).endswith("Attempts remaining: 4")


def test_verify_on_a_public_link_needs_no_code(client, user, diagram):
    link = share(user, diagram["id"])
    assert _verify(client, link, "anything").status_code == 200


def test_verify_validates_the_body(client, protected):
    validation_errors(client.post(f"/shared/{protected['token']}/verify", json={}), "access_code")
    validation_errors(_verify(client, protected, ""), "access_code")
    validation_errors(_verify(client, protected, "x" * 21), "access_code")


def test_public_routes_share_one_limit_per_address(client, protected, settings, app):
    settings(RATE_LIMIT_SHARED_PUBLIC="3/minute")
    assert client.get(f"/shared/{protected['token']}/info").status_code == 200
    assert client.get(f"/shared/{protected['token']}/diagram").status_code == 403
    assert _verify(client, protected).status_code == 200
    for refused in (client.get(f"/shared/{protected['token']}/info"),
                    client.get(f"/shared/{protected['token']}/diagram"), _verify(client, protected)):
        assert error_detail(refused, 429).startswith("Too many requests")
        assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert ApiClient(app.test_client(), "10.89.0.1").get(f"/shared/{protected['token']}/info").status_code == 200


def test_the_access_log_keeps_no_plain_address(client, user, diagram, app):
    link = share(user, diagram["id"])
    client.get(f"/shared/{link['token']}/diagram")
    with app.app_context():
        entry = db.session.scalar(select(AccessLog))
        assert entry.link_id == link["id"] and len(entry.ip_hash) == 64
        assert client.ip not in entry.ip_hash
        assert entry.ip_hash != hashlib.sha256(client.ip.encode()).hexdigest()


def _old_entries(app, count):
    with app.app_context():
        for _ in range(count):
            db.session.add(AccessLog(link_id=None, ip_hash="0" * 64, result="not_found",
                                     created_at=utcnow() - timedelta(days=91)))
        db.session.commit()


def test_a_visit_drops_log_entries_past_retention_at_most_once_an_hour(user, diagram, app, app_env):
    """On a worker that has not asked this hour (a new application: its own process memory); the hour is
    shared through the limiter storage, which every test starts empty."""
    worker = create_app(env=app_env)
    client = ApiClient(worker.test_client(), "10.9.0.3")
    link = share(user, diagram["id"])
    _old_entries(app, 3)
    assert client.get(f"/shared/{link['token']}/diagram").status_code == 200
    assert _log(app) == ["success"]
    _old_entries(app, 2)
    assert client.get(f"/shared/{link['token']}/diagram").status_code == 200
    assert client.get("/shared/no-such-token/diagram").status_code == 404
    assert sorted(_log(app)) == ["not_found", "not_found", "not_found", "success", "success"]
    with worker.app_context():
        db.engine.dispose()
