"""Vendor tests, OAuth and e-mail against servers that trickle their answers: each call ends at its
total deadline, and none holds a pooled database connection meanwhile."""
import logging
import time

import pytest

from ...fakes.trickle import TRICKLE_SECONDS, TrickleHttp, TrickleSmtp, connections_held_once_called, in_background
from ...helpers import error_detail

BASE = "/admin/integrations"
BOUND = 10  # seconds; without a total deadline each call lasts the trickle's 40 s


@pytest.fixture
def trickle_http():
    server = TrickleHttp().start()
    yield server
    server.stop()


@pytest.fixture
def trickle_smtp():
    server = TrickleSmtp().start()
    yield server
    server.stop()


@pytest.fixture
def short_deadlines(settings):
    settings(STRIPE_TIMEOUT=2, EMAIL_TIMEOUT=2, OAUTH_TIMEOUT=2)


def _timed(call):
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def _create(admin, vendor_type, category, config):
    response = admin.post(f"{BASE}/vendors", json={"vendor_type": vendor_type, "category": category,
                                                   "config": config})
    assert response.status_code == 201, response.json
    return response.json


def test_a_trickling_stripe_vendor_test_fails_at_the_deadline_holding_no_connection(
        app, admin, trickle_http, short_deadlines):
    vendor = _create(admin, "stripe", "payment", {"secret_key": "sk_test_1", "publishable_key": "pk_test_1",
                                                  "webhook_secret": "whsec_1", "api_base": trickle_http.origin})
    thread, outcome = in_background(lambda: admin.post(f"{BASE}/vendors/{vendor['id']}/test"))
    held = connections_held_once_called(app, trickle_http, BOUND)
    thread.join(TRICKLE_SECONDS + 5)
    assert held == 0 and outcome["seconds"] < BOUND
    assert outcome["response"].status_code == 200
    body = outcome["response"].json
    assert body["success"] is False and body["message"] == "Connection test failed for Stripe"
    assert "unreachable" in body["error_detail"]
    assert admin.get(f"{BASE}/vendors").json[0]["last_test_success"] is False


def test_a_trickling_smtp_vendor_test_fails_at_the_deadline_holding_no_connection(
        app, admin, trickle_smtp, short_deadlines):
    vendor = _create(admin, "smtp", "email", {"host": "127.0.0.1", "port": trickle_smtp.port,
                                              "from_email": "a@trazo.test"})
    thread, outcome = in_background(lambda: admin.post(f"{BASE}/vendors/{vendor['id']}/test"))
    held = connections_held_once_called(app, trickle_smtp, BOUND)
    thread.join(TRICKLE_SECONDS + 5)
    assert held == 0 and outcome["seconds"] < BOUND
    body = outcome["response"].json
    assert outcome["response"].status_code == 200
    assert body["success"] is False and body["message"] == "Connection test failed for SMTP"


def test_a_trickling_resend_vendor_test_fails_at_the_deadline(admin, trickle_http, short_deadlines):
    vendor = _create(admin, "resend", "email", {"api_key": "re_test_1", "from_email": "a@trazo.test",
                                                "api_base": trickle_http.origin})
    response, seconds = _timed(lambda: admin.post(f"{BASE}/vendors/{vendor['id']}/test"))
    assert response.status_code == 200 and response.json["success"] is False and seconds < BOUND


def test_a_trickling_oauth_provider_answers_502_at_the_deadline(client, settings, trickle_http, short_deadlines):
    settings(GOOGLE_CLIENT_ID="google-client", GOOGLE_CLIENT_SECRET="google-secret",
             GOOGLE_METADATA_URL=f"{trickle_http.origin}/.well-known/openid-configuration")
    response, seconds = _timed(lambda: client.get("/oauth/authorize/google", lang="es"))
    assert error_detail(response, 502) == "El proveedor OAuth no está disponible"
    assert seconds < BOUND


def test_background_e_mail_to_a_trickling_server_holds_no_connection_and_gives_up_at_the_deadline(
        app, user, settings, trickle_smtp, short_deadlines, caplog):
    settings(OUTBOX_DELIVERY="thread", SMTP_PORT=trickle_smtp.port)
    with caplog.at_level(logging.WARNING, logger="trazo.email"):
        response, seconds = _timed(lambda: user.post("/mfa/enable-email", json={"password": user.password}))
        assert response.status_code == 200
        assert seconds < 2  # the request does not wait for the mail server
        held = connections_held_once_called(app, trickle_smtp, BOUND)
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline and not caplog.records:
            time.sleep(0.05)
    assert held == 0
    [logged] = [record.getMessage() for record in caplog.records]
    assert logged.startswith("e-mail ") and " to u***@example.com was not delivered (attempt 1 of 8)" in logged
    assert "deadline" in logged
