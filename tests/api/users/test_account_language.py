"""The account's language (users.language): kept from the signed-in requests that name one, written only
when it changes, used by the e-mails the account did not ask for (docs/comments.md)."""
from trazo.extensions import db
from trazo.models import User


def _language(app, user):
    with app.app_context():
        language = db.session.get(User, user.id).language
        db.session.remove()
        return language


def test_a_signed_in_read_keeps_the_language_it_names(app, user):
    assert user.get("/users/me", lang="es-ES,es;q=0.9").status_code == 200
    assert _language(app, user) == "es"
    assert user.get("/projects", lang="en-GB").status_code == 200
    assert _language(app, user) == "en"


def test_a_write_keeps_the_language_with_its_commit(app, user):
    assert user.put("/users/me/notifications", json={"comment_replies": False}, lang="es").status_code == 200
    assert _language(app, user) == "es"


def test_a_request_naming_no_supported_language_changes_nothing(app, user):
    user.get("/users/me", lang="es")
    user.get("/users/me")
    user.get("/users/me", lang="fr-FR,de;q=0.5")
    assert _language(app, user) == "es"


def test_signing_in_keeps_the_language(app, client, user):
    response = client.post("/users/login", json={"email": user.email, "password": user.password}, lang="es")
    assert response.status_code == 200
    assert _language(app, user) == "es"


def test_an_unchanged_language_costs_no_statement(app, user, count_queries):
    user.get("/users/me", lang="es")
    with count_queries() as counted:
        user.get("/users/me", lang="es")
    assert not [statement for statement in counted.statements if statement.lstrip().upper().startswith("UPDATE")]
    with count_queries() as counted:
        user.get("/users/me", lang="en")
    assert len([s for s in counted.statements if s.lstrip().upper().startswith("UPDATE USERS")]) == 1
