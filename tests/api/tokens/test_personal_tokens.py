"""Personal access tokens: created once after a recent sign-in, listed without the secret, kept as hashes,
read and write scopes on content routes, refused everywhere else, revoked and expired on the next request,
dying with the password only when asked and always with the account, last use written at most once a
minute, a rate limit of their own, an audit trail, and the OpenAPI scheme."""
import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from trazo.core.accounts import personal_tokens
from trazo.extensions import db
from trazo.models.base import utcnow
from trazo.models.security import AuditEntry, PersonalAccessToken

from ...helpers import (
    NEW_PASSWORD,
    PASSWORD,
    UNKNOWN_ID,
    create_diagram,
    create_project,
    error_detail,
    validation_errors,
)

FIELDS = {"id", "name", "prefix", "scopes", "created_at", "expires_at", "last_used_at"}


def _rows(app):
    with app.app_context():
        return db.session.scalars(select(PersonalAccessToken)).all()


def _audit(app, event):
    with app.app_context():
        return db.session.scalars(select(AuditEntry).where(AuditEntry.event == event)).all()


def test_a_token_is_shown_once_and_listed_without_its_secret(user, mint):
    created, _client = mint(["read"], name="CI pipeline", expires_in_days=30)
    assert set(created) == FIELDS | {"token"}
    token = created["token"]
    assert token.startswith("trz_") and len(token) == 4 + 43 and created["prefix"] == token[:12]
    assert created["scopes"] == ["read"] and created["last_used_at"] is None
    listed = user.get("/users/me/tokens")
    assert listed.status_code == 200 and [set(item) for item in listed.json] == [FIELDS]
    assert listed.json[0]["id"] == created["id"] and token not in listed.get_data(as_text=True)


def test_the_database_keeps_only_the_token_s_hash(app, mint):
    created, _client = mint(["write"])
    (row,) = _rows(app)
    assert row.token_hash == hashlib.sha256(created["token"].encode()).hexdigest()
    stored = [str(getattr(row, column.key)) for column in PersonalAccessToken.__table__.columns]
    assert not any(created["token"] in value or created["token"][12:] in value for value in stored)
    assert row.scopes == "read write"


def test_a_read_token_reads_content_and_may_not_change_it(user, mint):
    project = create_project(user, name="Docs")
    diagram = create_diagram(user, project["id"], title="Flow")
    _created, reader = mint(["read"])
    assert reader.get("/projects").status_code == 200
    assert reader.get(f"/diagrams/{diagram['id']}").json["title"] == "Flow"
    assert reader.get(f"/projects/{project['id']}/export").status_code == 200
    refused = reader.post("/projects", json={"name": "New"}, lang="es")
    assert "solo puede leer" in error_detail(refused, 403)
    assert error_detail(reader.put(f"/diagrams/{diagram['id']}", json={"title": "X"}), 403)
    assert user.get(f"/diagrams/{diagram['id']}").json["title"] == "Flow"


def test_a_write_token_creates_changes_and_deletes_content(user, mint):
    _created, writer = mint(["write"])
    project = writer.post("/projects", json={"name": "From CI"})
    assert project.status_code == 201
    diagram = create_diagram(writer, project.json["id"], title="Flow")
    assert writer.put(f"/diagrams/{diagram['id']}", json={"title": "Renamed"}).json["title"] == "Renamed"
    assert writer.delete(f"/diagrams/{diagram['id']}").status_code == 200
    assert [p["name"] for p in user.get("/projects").json] == ["From CI"]


def test_account_and_admin_routes_refuse_tokens_whatever_their_scopes(admin, mint):
    _created, token_admin = mint(["read", "write"], client=admin)
    for method, path in (("GET", "/users/me"), ("GET", "/users/me/tokens"), ("GET", "/admin/audit-log"),
                         ("GET", "/ai/settings"), ("GET", "/subscriptions/me"), ("GET", "/mfa/status"),
                         ("PUT", "/users/change-password")):
        response = token_admin.request(method, path, json={})
        assert "cannot be used on this route" in error_detail(response, 403), path
    create = token_admin.post("/users/me/tokens", json={"name": "escalate", "scopes": ["write"]})
    assert error_detail(create, 403) and len(admin.get("/users/me/tokens").json) == 1


def test_no_token_or_an_unknown_one_is_401(client, mint):
    mint(["read"])
    assert error_detail(client.get("/projects"), 401)
    assert "personal access token" in error_detail(client.get("/projects", token="trz_" + "A" * 43), 401)
    assert error_detail(client.get("/users/me/tokens"), 401)


def test_revocation_takes_effect_on_the_next_request(app, user, mint):
    created, client = mint(["read"])
    assert client.get("/projects").status_code == 200
    assert user.delete(f"/users/me/tokens/{created['id']}").status_code == 204
    assert error_detail(client.get("/projects"), 401)
    assert user.get("/users/me/tokens").json == [] and _rows(app) == []
    assert [entry.details["token_id"] for entry in _audit(app, "personal_token_revoked")] == [created["id"]]


def test_an_expired_token_is_refused_on_the_next_request(app, mint):
    created, client = mint(["read"], expires_in_days=1)
    assert client.get("/projects").status_code == 200
    with app.app_context():
        db.session.execute(update(PersonalAccessToken).values(expires_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()
    assert error_detail(client.get("/projects"), 401)


def test_another_user_s_token_cannot_be_revoked(user, other_user, mint):
    created, client = mint(["read"])
    assert error_detail(other_user.delete(f"/users/me/tokens/{created['id']}"), 404)
    assert error_detail(user.delete(f"/users/me/tokens/{UNKNOWN_ID}"), 404)
    assert client.get("/projects").status_code == 200


@pytest.mark.parametrize("body, field", [
    ({"name": "", "scopes": ["read"]}, "name"),
    ({"name": "x", "scopes": []}, "scopes"),
    ({"name": "x", "scopes": ["admin"]}, "scopes"),
    ({"name": "x", "scopes": ["read"], "expires_in_days": 0}, "expires_in_days"),
    ({"name": "x", "scopes": ["read"], "expires_in_days": 366}, "expires_in_days"),
    ({"name": "x" * 101, "scopes": ["read"]}, "name"),
    ({"scopes": ["read"]}, "name"),
])
def test_bad_token_requests_are_422(user, body, field):
    assert validation_errors(user.post("/users/me/tokens", json=body), field)


def test_creating_a_token_needs_a_recent_sign_in_or_the_password(user, configure):
    configure(RECENT_SIGN_IN_SECONDS=0)
    body = {"name": "ci", "scopes": ["read"]}
    assert "sign in again" in error_detail(user.post("/users/me/tokens", json=body), 403)
    assert error_detail(user.post("/users/me/tokens", json={**body, "password": "wrong"}), 403)
    assert user.post("/users/me/tokens", json={**body, "password": PASSWORD}).status_code == 201


def test_tokens_outlive_a_password_change_unless_it_revokes_them(user, mint):
    _created, client = mint(["read"])
    change = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
    changed = user.put("/users/change-password", json=change)
    assert changed.status_code == 200 and client.get("/projects").status_code == 200
    back = {"current_password": NEW_PASSWORD, "new_password": PASSWORD, "revoke_tokens": True}
    assert user.signed_in(changed.json["access_token"]).put("/users/change-password", json=back).status_code == 200
    assert error_detail(client.get("/projects"), 401)


def test_tokens_die_with_the_account(app, user, mint):
    _created, client = mint(["write"])
    assert user.request("DELETE", "/users/me", json={"confirmation_phrase": "delete me"}).status_code == 200
    assert error_detail(client.get("/projects"), 401) and _rows(app) == []


def test_last_use_is_written_at_most_once_a_minute_and_a_new_address_is_audited(app, user, mint, count_queries):
    _created, client = mint(["read"])
    with count_queries() as counted:
        for _request in range(5):
            assert client.get("/projects").status_code == 200
    writes = [s for s in counted.statements if s.lstrip().upper().startswith("UPDATE PERSONAL_ACCESS_TOKENS")]
    assert len(writes) == 1
    (row,) = _rows(app)
    assert row.last_used_at is not None and row.last_used_address == client.ip
    moved = client.signed_in(client.token)
    moved.ip = "203.0.113.9"
    with count_queries() as counted:
        assert moved.get("/projects").status_code == 200
    assert sum("UPDATE PERSONAL_ACCESS_TOKENS" in s.upper() for s in counted.statements) == 1
    assert [entry.ip_address for entry in _audit(app, "personal_token_new_address")] == [client.ip, "203.0.113.9"]
    assert user.get("/users/me/tokens").json[0]["last_used_at"] is not None


def test_each_token_has_its_own_rate_limit(user, mint, configure):
    configure(RATE_LIMIT_PERSONAL_TOKEN="3/minute")
    _first, one = mint(["read"])
    _second, two = mint(["read"])
    for _request in range(3):
        assert one.get("/projects").status_code == 200
    assert error_detail(one.get("/projects"), 429)
    assert two.get("/projects").status_code == 200 and user.get("/projects").status_code == 200


def test_a_user_holds_a_bounded_number_of_tokens(user, mint, monkeypatch):
    monkeypatch.setattr(personal_tokens, "MAX_TOKENS_PER_USER", 2)
    mint(["read"])
    mint(["read"])
    assert error_detail(user.post("/users/me/tokens", json={"name": "third", "scopes": ["read"]}), 409)


def test_creation_is_audited_without_the_secret(app, mint):
    created, _client = mint(["read"], name="deploy")
    (entry,) = _audit(app, "personal_token_created")
    assert entry.details == {"token_id": created["id"], "name": "deploy", "prefix": created["prefix"]}


def test_the_openapi_document_describes_the_token_scheme(client):
    document = client.get("/openapi.json").json
    scheme = document["components"]["securitySchemes"]["personalAccessToken"]
    assert scheme["type"] == "http" and scheme["scheme"] == "bearer"
    listing = document["paths"]["/api/v1/projects"]["get"]
    assert {"personalAccessToken": []} in listing["security"] and listing["x-token-scope"] == "read"
    assert document["paths"]["/api/v1/projects"]["post"]["x-token-scope"] == "write"
    me = document["paths"]["/api/v1/users/me"]["get"]
    assert me["security"] == [{"bearerAuth": []}] and "x-token-scope" not in me


def test_a_ci_token_pushes_a_tree_and_a_read_token_pulls_it_back(user, mint):
    project = create_project(user, name="Repo")
    _written, writer = mint(["write"])
    tree = {"files": [{"path": "docs/diagrams/api.mmd", "content": "graph TD\n  A --> B"},
                      {"path": "docs/diagrams/db.dbml", "content": "Table users {\n  id int\n}"}]}
    pushed = writer.post(f"/projects/{project['id']}/sync", json=tree)
    assert pushed.status_code == 200 and sorted(pushed.json["created"]) == ["docs/diagrams/api.mmd",
                                                                             "docs/diagrams/db.dbml"]
    _read, reader = mint(["read"])
    listed = reader.get(f"/projects/{project['id']}/files").json["files"]
    assert sorted(f["path"] for f in listed) == ["docs/diagrams/api.mmd", "docs/diagrams/db.dbml"]
    assert reader.get(f"/projects/{project['id']}/files/docs/diagrams/api.mmd").get_data(as_text=True) == \
        "graph TD\n  A --> B"
    assert error_detail(reader.post(f"/projects/{project['id']}/sync", json=tree), 403)
    assert error_detail(reader.request("PUT", f"/projects/{project['id']}/files/docs/x.mmd", data="graph TD"), 403)


def test_creating_tokens_is_rate_limited_per_user(user, other_user, configure):
    configure(RATE_LIMIT_PERSONAL_TOKEN_CREATE="2/hour")
    body = {"name": "ci", "scopes": ["read"]}
    for _attempt in range(2):
        assert user.post("/users/me/tokens", json=body).status_code == 201
    refused = user.post("/users/me/tokens", json=body)
    assert error_detail(refused, 429) and int(refused.headers["Retry-After"]) > 0
    assert other_user.post("/users/me/tokens", json=body).status_code == 201
