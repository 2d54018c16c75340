"""GET/PUT /users/me/notifications: the account's comment e-mail choices, on by default, changed field by
field, booleans only (docs/comments.md, "Mentions")."""
import pytest

from ...helpers import error_detail, validation_errors


def test_both_comment_e_mails_are_on_for_a_new_account(user):
    response = user.get("/users/me/notifications")
    assert response.status_code == 200
    assert response.json == {"comment_mentions": True, "comment_replies": True}


def test_a_partial_update_changes_only_the_field_sent_and_persists(user):
    response = user.put("/users/me/notifications", json={"comment_replies": False})
    assert response.status_code == 200
    assert response.json == {"comment_mentions": True, "comment_replies": False}
    assert user.get("/users/me/notifications").json == {"comment_mentions": True, "comment_replies": False}
    response = user.put("/users/me/notifications", json={"comment_mentions": False, "comment_replies": True})
    assert response.json == {"comment_mentions": False, "comment_replies": True}


def test_one_accounts_choices_do_not_touch_anothers(user, other_user):
    user.put("/users/me/notifications", json={"comment_mentions": False})
    assert other_user.get("/users/me/notifications").json == {"comment_mentions": True, "comment_replies": True}


def test_the_notification_settings_need_a_signed_in_account(client):
    error_detail(client.get("/users/me/notifications"), 401)
    error_detail(client.put("/users/me/notifications", json={"comment_mentions": False}), 401)


@pytest.mark.parametrize("body, field", [({"comment_mentions": "false"}, "comment_mentions"),
                                         ({"comment_replies": 0}, "comment_replies"),
                                         ({"comment_replies": None}, "comment_replies")])
def test_anything_but_booleans_is_refused(user, body, field):
    validation_errors(user.put("/users/me/notifications", json=body), field)
    assert user.get("/users/me/notifications").json == {"comment_mentions": True, "comment_replies": True}


@pytest.mark.parametrize("body", [{}, {"email_everything": True}])
def test_an_update_without_a_known_field_is_refused_in_the_callers_language(user, body):
    detail = validation_errors(user.put("/users/me/notifications", json=body, lang="es"))
    assert "Envíe comment_mentions, comment_replies o ambos" in str(detail)
