"""Account recovery and personal access tokens (issue 24, item 3): a password reset by e-mail revokes every
token of the account in its transaction, audited; creating a token e-mails the owner (never the token);
change-password keeps its opt-in `revoke_tokens`."""
import re
from urllib.parse import parse_qs, urlsplit

from sqlalchemy import select

from trazo.extensions import db
from trazo.models.security import AuditEntry, PersonalAccessToken

from ...helpers import NEW_PASSWORD, PASSWORD, create_project, error_detail


def _audit(app, event):
    with app.app_context():
        return db.session.scalars(select(AuditEntry).where(AuditEntry.event == event)).all()


def _reset_by_mail(client, email, smtp_sink):
    """Ask for a reset link, open it from the mailbox and choose NEW_PASSWORD: the confirm's answer."""
    assert client.post("/users/reset-password-request", json={"email": email}, buffered=True).status_code == 200
    link = re.search(r"http://localhost:5173/reset-password\?\S+", smtp_sink.wait_for(email)["text"]).group(0)
    token = parse_qs(urlsplit(link).query)["token"][0]
    return client.post("/users/reset-password-confirm", json={"email": email, "token": token,
                                                              "new_password": NEW_PASSWORD})


def test_a_password_reset_revokes_every_token_minted_before_it(app, client, user, mint, smtp_sink):
    # The attacker once had the password and minted a write token; the owner takes the account back by e-mail.
    _written, attacker = mint(["write"], name="innocent-looking")
    _read, reader = mint(["read"], name="ci")
    assert attacker.get("/projects").status_code == 200
    assert attacker.post("/projects", json={"name": "Before"}).status_code == 201
    done = _reset_by_mail(client, user.email, smtp_sink)
    assert done.status_code == 200 and done.json == {"message": "Password reset successfully"}
    assert error_detail(attacker.get("/projects"), 401)
    assert error_detail(attacker.post("/projects", json={"name": "After"}), 401)
    assert error_detail(reader.get("/projects"), 401)
    with app.app_context():
        assert db.session.scalars(select(PersonalAccessToken)).all() == []
    (entry,) = _audit(app, "personal_tokens_revoked")
    assert entry.user_id == user.id and entry.details == {"count": 2, "reason": "password_reset"}
    owner = user.signed_in(client.post("/users/login", json={"email": user.email, "password": NEW_PASSWORD})
                           .json["access_token"])
    assert [project["name"] for project in owner.get("/projects").json] == ["Before"]
    assert owner.get("/users/me/tokens").json == []


def test_a_password_reset_without_tokens_writes_no_revocation_entry(app, client, user, smtp_sink):
    assert _reset_by_mail(client, user.email, smtp_sink).status_code == 200
    assert _audit(app, "personal_tokens_revoked") == []
    assert len(_audit(app, "password_reset_confirmed")) == 1


def test_change_password_without_revoke_tokens_keeps_them_and_with_it_revokes_them(app, user, mint):
    _created, writer = mint(["write"])
    changed = user.put("/users/change-password", json={"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert changed.status_code == 200
    assert writer.get("/projects").status_code == 200
    assert writer.post("/projects", json={"name": "X"}).status_code == 201
    again = {"current_password": NEW_PASSWORD, "new_password": PASSWORD, "revoke_tokens": True}
    assert user.signed_in(changed.json["access_token"]).put("/users/change-password", json=again).status_code == 200
    assert error_detail(writer.get("/projects"), 401)
    (entry,) = _audit(app, "personal_tokens_revoked")
    assert entry.details == {"count": 1, "reason": "password_change"}


def test_creating_a_token_e_mails_the_owner_without_the_token(user, mint, smtp_sink):
    created, _client = mint(["write"], name="deploy-bot", expires_in_days=30)
    (message,) = smtp_sink.to(user.email)
    assert message["subject"] == "A personal access token was created for your Trazo account"
    for body in (message["text"], message["html"]):
        assert "deploy-bot" in body and "read and write" in body and user.ip in body
        assert "Expires:" in body and created["expires_at"][:4] in body and "never expires" not in body
        assert created["token"] not in body and created["token"][12:] not in body
        assert created["prefix"] in body
    assert created["token"] not in message["subject"]


def test_a_token_that_never_expires_says_so_in_spanish(user, smtp_sink):
    response = user.post("/users/me/tokens", json={"name": "lector", "scopes": ["read"]}, lang="es")
    assert response.status_code == 201
    (message,) = smtp_sink.to(user.email)
    assert message["subject"] == "Se ha creado un token de acceso personal en tu cuenta de Trazo"
    assert "lector" in message["text"] and "solo lectura" in message["text"] and "no caduca" in message["text"]
    assert user.ip in message["text"] and response.json["token"] not in message["text"] + message["html"]


def test_a_refused_token_creation_sends_no_mail(user, smtp_sink):
    body = {"name": "ci", "scopes": ["read"], "password": "Wrong-Passw0rd!"}
    assert error_detail(user.post("/users/me/tokens", json=body), 403)
    assert smtp_sink.to(user.email) == []
    project = create_project(user)
    assert project["name"] == "Project" and smtp_sink.to(user.email) == []
