"""A payment gateway that trickles its answers holds no pooled database connection and cannot keep
a request past STRIPE_TIMEOUT: the caller gets a 504 (or, for the history, the local copy)."""
import time

import pytest

from ...fakes.stripe import SECRET_KEY, WEBHOOK_SECRET
from ...fakes.trickle import TRICKLE_SECONDS, TrickleHttp, connections_held_once_called, in_background
from ...helpers import error_detail

DEADLINE = 2
BOUND = 10  # seconds; without a total deadline each call lasts the trickle's 40 s


@pytest.fixture
def trickling_stripe(configure):
    """Call it (after creating plans) to point billing at a gateway that trickles."""
    server = TrickleHttp().start()

    def use():
        configure(STRIPE_SECRET_KEY=SECRET_KEY, STRIPE_WEBHOOK_SECRET=WEBHOOK_SECRET,
                  STRIPE_PUBLISHABLE_KEY="pk_test_1", STRIPE_API_BASE=server.origin, STRIPE_TIMEOUT=DEADLINE)
        return server

    yield use
    server.stop()


def test_a_trickling_gateway_holds_no_connection_and_answers_504_at_the_deadline(
        app, user, make_plan, subscribe, trickling_stripe):
    subscribe(user, make_plan("PRO", price_usd=9), stripe_id="sub_1", customer="cus_1")
    server = trickling_stripe()
    thread, outcome = in_background(lambda: user.post("/subscriptions/update-payment-method"))
    held = connections_held_once_called(app, server, BOUND)
    thread.join(TRICKLE_SECONDS + 5)
    assert held == 0
    assert error_detail(outcome["response"], 504) == "The payment provider did not answer in time"
    assert outcome["seconds"] < BOUND


def test_cancelling_against_a_trickling_gateway_changes_nothing(app, user, make_plan, subscribe, trickling_stripe):
    subscribe(user, make_plan("PRO", price_usd=9), stripe_id="sub_1", customer="cus_1")
    server = trickling_stripe()
    thread, outcome = in_background(lambda: user.post("/subscriptions/cancel", lang="es"))
    held = connections_held_once_called(app, server, BOUND)
    thread.join(TRICKLE_SECONDS + 5)
    assert held == 0 and outcome["seconds"] < BOUND
    assert error_detail(outcome["response"], 504) == "El proveedor de pagos no respondió a tiempo"
    mine = user.get("/subscriptions/me")
    assert mine.status_code == 200 and mine.json["status"] == "active" and mine.json["cancel_at_period_end"] is False


def test_checkout_that_synchronises_the_plan_stops_at_the_deadline(admin, user, trickling_stripe):
    plan = admin.post("/admin/plans", json={"code": "PRO", "name": "Pro", "price_usd": 9}).json
    trickling_stripe()
    started = time.monotonic()
    response = user.post("/subscriptions/checkout", json={"plan_id": plan["id"]})
    assert error_detail(response, 504) == "The payment provider did not answer in time"
    assert time.monotonic() - started < BOUND


def test_the_billing_history_falls_back_to_the_local_copy_at_the_deadline(app, user, make_plan, subscribe,
                                                                            trickling_stripe):
    subscribe(user, make_plan("PRO", price_usd=9), stripe_id="sub_1", customer="cus_1")
    server = trickling_stripe()
    thread, outcome = in_background(lambda: user.get("/subscriptions/billing-history"))
    held = connections_held_once_called(app, server, BOUND)
    thread.join(TRICKLE_SECONDS + 5)
    assert held == 0 and outcome["seconds"] < BOUND
    assert outcome["response"].status_code == 200
    assert outcome["response"].json == {"invoices": [], "total_count": 0}


@pytest.mark.parametrize("change", [
    lambda admin, plan: admin.post("/admin/plans", json={"code": "TEAM", "name": "Team", "price_usd": 29}),
    lambda admin, plan: admin.put(f"/admin/plans/{plan['id']}", json={"price_usd": 12}),
    lambda admin, plan: admin.post(f"/admin/plans/{plan['id']}/prices", json={"currency": "eur", "amount": 8}),
], ids=["create", "update", "add-price"])
def test_plan_administration_calls_the_gateway_with_no_connection_held(app, admin, trickling_stripe, change):
    plan = admin.post("/admin/plans", json={"code": "PRO", "name": "Pro", "price_usd": 9}).json
    server = trickling_stripe()
    thread, outcome = in_background(lambda: change(admin, plan))
    held = connections_held_once_called(app, server, BOUND)
    thread.join(TRICKLE_SECONDS + 5)
    assert held == 0 and outcome["seconds"] < BOUND
    assert error_detail(outcome["response"], 504) == "The payment provider did not answer in time"
    assert [listed["price_usd"] for listed in admin.get("/admin/plans").json if listed["code"] != "FREE"] == [9]
