"""The reset-mail flood (issue 24, item 10): one account gets at most one reset e-mail per
RESET_MAIL_COOLDOWN_SECONDS, whoever asks and from wherever; the answer never tells whether a mail left."""
import os
import time

import pytest
import redis
from sqlalchemy import select

from trazo.extensions import db
from trazo.models.security import AuditEntry

from ...helpers import ApiClient, at_once

ANSWER = {"message": "If the email exists, a reset link has been sent"}


def _ask(app, address, email):
    # buffered: the client reads and closes the answer, as a server does; the deferred work runs then.
    response = ApiClient(app.test_client(), address).post("/users/reset-password-request", json={"email": email},
                                                          buffered=True)
    return response.status_code, response.json


def test_twelve_addresses_asking_for_one_account_send_one_mail_within_the_cooldown(app, user, smtp_sink):
    answers = [_ask(app, f"198.51.100.{index + 1}", user.email) for index in range(12)]
    assert answers == [(200, ANSWER)] * 12
    assert len(smtp_sink.to(user.email)) == 1
    unknown = [_ask(app, f"203.0.113.{index + 1}", "ghost@example.com") for index in range(3)]
    assert unknown == [(200, ANSWER)] * 3 and smtp_sink.to("ghost@example.com") == []
    with app.app_context():
        requested = db.session.scalars(select(AuditEntry).where(AuditEntry.event == "password_reset_requested")).all()
    assert len(requested) == 1


def test_twelve_requests_at_the_same_instant_send_one_mail(app, user, smtp_sink):
    answers = at_once(12, lambda index: _ask(app, f"198.51.100.{index + 1}", user.email))
    assert answers == [(200, ANSWER)] * 12
    assert len(smtp_sink.to(user.email)) == 1


@pytest.mark.skipif(not os.environ.get("TEST_REDIS_URL"), reason="workers share the counter through Redis")
def test_the_cooldown_lives_in_redis_where_every_worker_reads_it(app, user, smtp_sink):
    assert _ask(app, "198.51.100.1", user.email) == (200, ANSWER)
    store = redis.Redis.from_url(os.environ["TEST_REDIS_URL"])
    (key,) = [key for key in store.keys("*") if f"reset-mail:{user.id}".encode() in key]
    assert int(store.get(key)) == 1 and 0 < store.ttl(key) <= 60
    assert _ask(app, "198.51.100.2", user.email) == (200, ANSWER)
    assert int(store.get(key)) == 2 and len(smtp_sink.to(user.email)) == 1


def test_the_link_mailed_first_keeps_working_while_later_requests_are_held_back(app, client, user, smtp_sink):
    assert _ask(app, "198.51.100.1", user.email) == (200, ANSWER)
    first = smtp_sink.wait_for(user.email)["text"]
    assert _ask(app, "198.51.100.2", user.email) == (200, ANSWER)
    token = first.split("token=")[1].split("&")[0]
    confirm = {"email": user.email, "token": token, "new_password": "Renewed#Secret-2026"}
    done = client.post("/users/reset-password-confirm", json=confirm)
    assert done.status_code == 200 and done.json == {"message": "Password reset successfully"}


def test_after_the_cooldown_another_mail_leaves(app, user, smtp_sink, configure):
    configure(RESET_MAIL_COOLDOWN_SECONDS=1)
    assert [_ask(app, f"198.51.100.{index + 1}", user.email) for index in range(3)] == [(200, ANSWER)] * 3
    assert len(smtp_sink.to(user.email)) == 1
    time.sleep(1.2)  # the counter's expiry, not a timed assertion
    assert _ask(app, "198.51.100.9", user.email) == (200, ANSWER)
    assert len(smtp_sink.to(user.email)) == 2


def test_another_account_is_not_held_back_by_the_first_one_s_cooldown(app, user, make_user, smtp_sink):
    bystander = make_user(email="bystander@example.com")
    assert _ask(app, "198.51.100.1", user.email) == (200, ANSWER)
    assert _ask(app, "198.51.100.1", bystander.email) == (200, ANSWER)
    assert len(smtp_sink.to(user.email)) == 1 and len(smtp_sink.to(bystander.email)) == 1


def test_a_cooldown_of_zero_turns_it_off(app, user, smtp_sink, configure):
    configure(RESET_MAIL_COOLDOWN_SECONDS=0)
    for index in range(3):
        assert _ask(app, f"198.51.100.{index + 1}", user.email) == (200, ANSWER)
    assert len(smtp_sink.to(user.email)) == 3
