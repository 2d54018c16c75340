"""The e-mail outbox: messages written in the caller's transaction, encrypted at rest, delivered after the
commit, retried with growing delays, given up, listed and requeued by `flask mail`, taken over after a
sender dies, and never claimed twice by concurrent senders."""
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, text, update

from trazo.core.mail import outbox
from trazo.core.mail.compose import send_template
from trazo.core.mail.delivery import deliver_due
from trazo.extensions import db
from trazo.models.base import utcnow
from trazo.models.outbox import OutboxMessage
from trazo.services.email.backends import EmailMessage

from ...fakes.smtp import RefusingSmtpSink, StallingSmtp

ROOT = Path(__file__).resolve().parents[3]
RESET_ANSWER = {"message": "If the email exists, a reset link has been sent"}


@pytest.fixture
def refusing_sink():
    def start(refusals):
        sink = RefusingSmtpSink(refusals)
        sink.start()
        started.append(sink)
        return sink

    started = []
    yield start
    for sink in started:
        sink.stop()


@pytest.fixture
def stalling_smtp():
    server = StallingSmtp().start()
    yield server
    server.stop()


def _request_reset(client, email):
    response = client.post("/users/reset-password-request", json={"email": email}, buffered=True)
    assert response.status_code == 200 and response.json == RESET_ANSWER
    return response


def _rows(app):
    with app.app_context():
        rows = db.session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()
        db.session.expunge_all()
        return rows


def _make_due(app, message_id):
    with app.app_context():
        db.session.execute(update(OutboxMessage).where(OutboxMessage.id == message_id)
                           .values(next_attempt_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()


def _cli(app, *args):
    result = app.test_cli_runner().invoke(args=list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_the_reset_e_mail_waits_in_the_outbox_encrypted_and_keeps_no_body_once_sent(
        app, client, user, smtp_sink, configure):
    configure(OUTBOX_DELIVERY="external")
    _request_reset(client, user.email)
    assert smtp_sink.to(user.email) == []
    with app.app_context():
        raw = db.session.execute(text("SELECT recipient, status, text_body, html_body FROM outbox_messages")).all()
    assert [(row.recipient, row.status) for row in raw] == [(user.email, "pending")]
    assert all("reset-password" not in body and "token=" not in body for body in (raw[0].text_body, raw[0].html_body))

    assert _cli(app, "mail", "deliver", "--once") == "1 sent, 0 to retry, 0 given up.\n"
    assert "/reset-password?token=" in smtp_sink.wait_for(user.email)["text"]
    [row] = _rows(app)
    assert (row.status, row.attempts, row.text_body, row.html_body) == ("sent", 1, None, None)
    assert row.sent_at is not None and row.locked_until is None


def test_a_message_leaves_only_after_the_commit_and_never_when_the_action_rolls_back(app, user, smtp_sink):
    with app.test_request_context():
        send_template(user.email, "reset_password", "Reset your Trazo password", link="http://x/rolled-back")
        db.session.rollback()
    assert _rows(app) == [] and smtp_sink.to(user.email) == []

    with app.test_request_context():
        send_template(user.email, "reset_password", "Reset your Trazo password", link="http://x/committed")
        db.session.commit()
        assert smtp_sink.to(user.email) == []  # inline delivery waits for the end of the request
    assert "http://x/committed" in smtp_sink.wait_for(user.email)["text"]
    assert [row.status for row in _rows(app)] == ["sent"]


def test_a_commit_wakes_the_workers_sender_thread_without_waiting_for_its_poll(
        app, client, user, smtp_sink, configure):
    configure(OUTBOX_DELIVERY="thread", OUTBOX_POLL_SECONDS=3600)
    _request_reset(client, user.email)
    assert "/reset-password?token=" in smtp_sink.wait_for(user.email)["text"]
    assert [thread for thread in threading.enumerate() if thread.name == "outbox-sender"]


def test_a_sender_killed_mid_delivery_leaves_the_message_to_the_next_sender_which_sends_it_once(
        app, app_env, client, user, smtp_sink, stalling_smtp, configure):
    configure(OUTBOX_DELIVERY="external")
    _request_reset(client, user.email)
    env = {"PATH": os.environ.get("PATH", ""), **app_env, "SMTP_PORT": str(stalling_smtp.port),
           "OUTBOX_LEASE_SECONDS": "5", "EMAIL_TIMEOUT": "4", "SMTP_TIMEOUT": "4"}
    sender = subprocess.Popen([sys.executable, "-m", "flask", "--app", "wsgi", "mail", "deliver"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert stalling_smtp.data_requested.wait(60), "the sender never reached DATA"
    finally:
        sender.send_signal(signal.SIGKILL)
        sender.wait(10)
    [claimed] = _rows(app)
    assert (claimed.status, claimed.attempts) == ("sending", 1) and claimed.locked_until > utcnow()

    # Its lease still runs: another sender leaves the message alone.
    assert _cli(app, "mail", "deliver", "--once") == "0 sent, 0 to retry, 0 given up.\n"
    assert smtp_sink.to(user.email) == []

    time.sleep(max(0.0, (claimed.locked_until - utcnow()).total_seconds()) + 0.2)  # until the lease ends
    assert _cli(app, "mail", "deliver", "--once") == "1 sent, 0 to retry, 0 given up.\n"
    assert len(smtp_sink.to(user.email)) == 1
    [row] = _rows(app)
    assert (row.status, row.attempts, row.text_body) == ("sent", 2, None)


def test_a_refused_message_is_retried_after_growing_delays_then_sent(
        app, client, user, refusing_sink, configure):
    sink = refusing_sink(refusals=2)
    configure(SMTP_PORT=sink.port, OUTBOX_RETRY_BASE_SECONDS=30)
    before = utcnow()
    _request_reset(client, user.email)
    [first] = _rows(app)
    assert (first.status, first.attempts, sink.refused, sink.messages) == ("pending", 1, 1, [])
    assert "554" in first.last_error and "reset-password" not in first.last_error
    assert before + timedelta(seconds=14) <= first.next_attempt_at <= utcnow() + timedelta(seconds=31)

    assert _cli(app, "mail", "deliver", "--once") == "0 sent, 0 to retry, 0 given up.\n"  # not due yet
    _make_due(app, first.id)
    before = utcnow()
    assert _cli(app, "mail", "deliver", "--once") == "0 sent, 1 to retry, 0 given up.\n"
    [second] = _rows(app)
    assert second.attempts == 2
    assert before + timedelta(seconds=29) <= second.next_attempt_at <= utcnow() + timedelta(seconds=61)

    _make_due(app, first.id)
    assert _cli(app, "mail", "deliver", "--once") == "1 sent, 0 to retry, 0 given up.\n"
    assert len(sink.to(user.email)) == 1
    [row] = _rows(app)
    assert (row.status, row.attempts, row.last_error, row.text_body) == ("sent", 3, None, None)


def test_a_message_refused_too_often_is_given_up_listed_masked_and_requeued(
        app, client, user, other_user, refusing_sink, configure):
    sink = refusing_sink(refusals=2)
    configure(SMTP_PORT=sink.port, OUTBOX_MAX_ATTEMPTS=2)
    _request_reset(client, user.email)
    [refused] = _rows(app)
    _make_due(app, refused.id)
    assert _cli(app, "mail", "deliver", "--once") == "0 sent, 0 to retry, 1 given up.\n"
    configure(OUTBOX_DELIVERY="external")
    _request_reset(client, other_user.email)

    status = _cli(app, "mail", "status")
    lines = status.splitlines()
    assert lines[0] == "pending 1, sending 0, sent 0, failed 1"
    assert lines[1].startswith(f'#{refused.id} failed to u***@example.com "Reset your Trazo password" attempts 2 ')
    assert "last error: SMTP delivery to 127.0.0.1" in lines[1] and "554" in lines[1]
    assert ' pending to o***@example.com "Reset your Trazo password" attempts 0 ' in lines[2]
    assert user.email not in status and other_user.email not in status and "reset-password" not in status

    assert _cli(app, "mail", "retry", "--failed") == "Requeued 1 message(s).\n"
    assert _cli(app, "mail", "deliver", "--once") == "2 sent, 0 to retry, 0 given up.\n"
    assert len(sink.to(user.email)) == 1 and len(sink.to(other_user.email)) == 1
    assert _cli(app, "mail", "status").splitlines() == ["pending 0, sending 0, sent 2, failed 0"]


def test_retry_needs_a_message_id_or_failed(app):
    result = app.test_cli_runner().invoke(args=["mail", "retry"])
    assert result.exit_code == 2 and "give a message id or --failed" in result.output


def _enqueue(app, count):
    with app.app_context():
        for number in range(count):
            outbox.enqueue(EmailMessage(to=f"bulk{number}@example.com", subject="Bulk", text=f"body {number}"))
        db.session.commit()
        return list(db.session.scalars(select(OutboxMessage.id).order_by(OutboxMessage.id)))


def _in_threads(app, work, count=2):
    start, results = threading.Barrier(count), [None] * count

    def run(index):
        start.wait()
        with app.app_context():
            results[index] = work()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_two_concurrent_claimers_never_claim_the_same_message(app):
    ids = _enqueue(app, 20)

    def claim_all():
        claimed = []
        while (found := outbox.claim_next()) is not None:
            claimed.append(found.id)
        return claimed

    first, second = _in_threads(app, claim_all)
    assert not set(first) & set(second)
    assert sorted(first + second) == ids


def test_two_senders_deliver_every_message_exactly_once(app, smtp_sink):
    ids = _enqueue(app, 12)
    summaries = _in_threads(app, deliver_due)
    assert sum(summary.sent for summary in summaries) == len(ids)
    assert sorted(address for message in smtp_sink.messages for address in message["to"]) == sorted(
        f"bulk{number}@example.com" for number in range(len(ids)))
    assert {row.status for row in _rows(app)} == {"sent"}


def test_on_postgresql_a_claim_skips_a_message_another_sender_holds(app):
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("FOR UPDATE SKIP LOCKED is PostgreSQL's")
    first, second = _enqueue(app, 2)
    with app.app_context():
        with db.engine.connect() as holder:
            holder.execute(select(OutboxMessage.id).where(OutboxMessage.id == first).with_for_update())
            claimed = outbox.claim_next()  # does not wait for the holder's lock
            holder.rollback()
        assert claimed.id == second
