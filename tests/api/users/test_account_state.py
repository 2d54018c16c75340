"""Neither the answers nor the work done before answering tell an inactive or unknown account from an
active one: sign-in and password-reset requests."""
from trazo.extensions import db
from trazo.models import User

from ...helpers import PASSWORD, error_detail

WRONG = "Wrong-Passw0rd!"


def _deactivate(app, user_id):
    with app.app_context():
        db.session.get(User, user_id).is_active = False
        db.session.commit()


def _sign_in(client, email, password):
    return client.post("/users/login", json={"email": email, "password": password})


def test_an_inactive_account_answers_every_sign_in_exactly_as_an_unknown_address(app, client, user):
    _deactivate(app, user.id)
    answers = {}
    for email in (user.email, "ghost@example.com"):
        answers[email] = [(response.status_code, response.json) for response in
                          (_sign_in(client, email, password) for password in (WRONG, PASSWORD, WRONG, WRONG, WRONG))]
    assert answers[user.email] == answers["ghost@example.com"]
    assert answers[user.email][:4] == [(401, {"detail": "Incorrect email or password"})] * 4
    status, body = answers[user.email][4]
    assert status == 429 and body["detail"].startswith("Account temporarily locked")


def test_a_reset_request_does_the_same_work_before_answering_for_known_and_unknown_addresses(
        client, user, smtp_sink, count_queries):
    answers, statements = {}, {}
    for email in (user.email, "ghost@example.com"):
        with count_queries() as counted:
            response = client.post("/users/reset-password-request", json={"email": email})
            answers[email] = (response.status_code, response.json)
        statements[email] = counted.statements
        assert smtp_sink.to(email) == []
        response.close()  # the server has sent the answer: now the reset link is made and mailed
    assert answers[user.email] == answers["ghost@example.com"] == \
        (200, {"message": "If the email exists, a reset link has been sent"})
    assert statements[user.email] == statements["ghost@example.com"]
    assert "reset-password?token=" in smtp_sink.wait_for(user.email)["text"]
    assert smtp_sink.to("ghost@example.com") == []


def test_the_reset_link_mail_follows_the_language_of_the_request(client, user, smtp_sink):
    response = client.post("/users/reset-password-request", json={"email": user.email}, lang="es", buffered=True)
    assert response.status_code == 200
    assert "Restablece" in smtp_sink.wait_for(user.email)["subject"]
    error_detail(client.post("/users/reset-password-confirm", json={"email": user.email, "token": "nope",
                                                                    "new_password": PASSWORD}), 400)
