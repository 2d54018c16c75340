"""The payment webhook (API.md §10): signatures, idempotency (also concurrent), and the effect of
each event on subscriptions, limits and invoices."""
import json
import logging
import threading
import time

import pytest

from trazo.extensions import db
from trazo.models.billing import Invoice, WebhookEvent

from ...fakes.base import free_port
from ...fakes.stripe import SECRET_KEY, WEBHOOK_SECRET, sign
from ...fakes.trickle import TRICKLE_SECONDS, TrickleHttp
from ...helpers import ApiClient, error_detail
from .conftest import subscription_rows


@pytest.fixture
def pro(stripe_api, make_plan):
    return make_plan("PRO", price_usd=9, max_projects=5)


def _completed(user, plan, subscription="sub_1", customer="cus_1", mode="subscription", payment_status="paid"):
    return {"id": "cs_test_1", "object": "checkout.session", "mode": mode, "subscription": subscription,
            "customer": customer, "payment_status": payment_status, "status": "complete",
            "metadata": {"user_id": user.id, "plan_id": plan["id"]}}


def _product(plan):
    return plan["gateway_config"]["external_product_id"]


def _warnings(caplog):
    """What the webhook service logged as warnings."""
    return [record.getMessage() for record in caplog.records
            if record.name == "trazo.api.billing.webhook" and record.levelno == logging.WARNING]


def _period(subscription):
    """(start, end) of a subscription view, to the second."""
    return tuple(subscription[key][:19] if subscription[key] else None
                 for key in ("current_period_start", "current_period_end"))


def _iso(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))


def _events(app):
    with app.app_context():
        return db.session.query(WebhookEvent).count()


# -- signature and routing ---------------------------------------------------------------

def test_webhook_answers_503_without_stripe(client, deliver):
    assert error_detail(deliver("invoice.paid", {"id": "in_1"}), 503) == "Billing service not configured"
    assert error_detail(deliver("invoice.paid", {"id": "in_1"}, provider="payment"), 503) == \
        "Billing service not configured"


def test_the_signing_secret_alone_lets_the_webhook_verify_and_record(configure, client, deliver, app, user):
    """An instance with only STRIPE_WEBHOOK_SECRET (no API key) still checks and records events."""
    configure(STRIPE_SECRET_KEY="", STRIPE_WEBHOOK_SECRET=WEBHOOK_SECRET)
    first = deliver("invoice.paid", {"id": "in_1"}, event_id="evt_secret_only", provider="payment")
    assert first.status_code == 200 and first.json == {"status": "processed"}
    again = deliver("invoice.paid", {"id": "in_1"}, event_id="evt_secret_only")
    assert again.json == {"status": "duplicate"}
    assert error_detail(client.post("/webhooks/payment", data=b"{}"), 401) == "Missing webhook signature"
    assert _events(app) == 1
    # The routes that call Stripe still need the API key.
    assert error_detail(user.get("/subscriptions/billing-history"), 503) == "Billing service not configured"


def test_unknown_provider_is_404(stripe_api, deliver):
    assert error_detail(deliver("invoice.paid", {"id": "in_1"}, provider="paypal"), 404) == "Unknown payment provider"


def test_signature_is_required_and_checked(stripe_api, client):
    payload = json.dumps({"id": "evt_1", "type": "invoice.paid", "data": {"object": {}}}).encode()
    url = "/webhooks/stripe"
    assert error_detail(client.post(url, data=payload), 401) == "Missing webhook signature"
    cases = {
        "wrong secret": sign(payload, "whsec_other"),
        "tampered": sign(payload + b" "),
        "too old": sign(payload, timestamp=time.time() - 301),
        "garbage": "t=abc,v1=def",
        "no v1": f"t={int(time.time())}",
    }
    for header in cases.values():
        response = client.post(url, data=payload, headers={"Stripe-Signature": header})
        assert error_detail(response, 401) == "Invalid webhook signature"
    spanish = client.post(url, data=payload, headers={"Stripe-Signature": cases["tampered"]}, lang="es")
    assert error_detail(spanish, 401) == "Firma del webhook no válida"
    assert _events(client.flask_client.application) == 0


@pytest.mark.parametrize("payload", [b"\xff\xfe not utf-8", b"{not json", b"[1, 2]",
                                     b'{"id": "evt_1", "type": "x"}', b'{"id": "evt_1", "type": "x", "data": []}'])
def test_unparsable_signed_payload_is_400(stripe_api, client, payload):
    response = client.post("/webhooks/payment", data=payload, headers={"Stripe-Signature": sign(payload)})
    assert error_detail(response, 400) == "Invalid webhook payload"


def test_unhandled_events_are_acknowledged(stripe_api, deliver, app):
    response = deliver("customer.created", {"id": "cus_1"})
    assert response.status_code == 200 and response.json == {"status": "ignored"}
    assert _events(app) == 0


def test_webhook_is_not_rate_limited_by_address(stripe_api, deliver):
    assert {deliver("product.updated", {"id": "prod_1"}).status_code for _ in range(70)} == {200}


# -- checkout and idempotency --------------------------------------------------------------

def test_completed_checkout_subscribes_the_user(stripe_api, deliver, user, pro):
    remote = stripe_api.subscription("sub_1", "cus_1", product=_product(pro))
    response = deliver("checkout.session.completed", _completed(user, pro), provider="payment")
    assert response.status_code == 200 and response.json == {"status": "processed"}
    me = user.get("/subscriptions/me").json
    assert me["plan"]["code"] == "PRO" and me["status"] == "active" and me["stripe_subscription_id"] == "sub_1"
    assert me["stripe_customer_id"] == "cus_1" and me["payment_provider"] == "stripe"
    end = remote["items"]["data"][0]["current_period_end"]
    assert me["current_period_end"].startswith(time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(end)))
    assert user.get("/subscriptions/usage").json["projects"]["limit"] == 5


def test_the_same_event_twice_has_one_effect(stripe_api, deliver, user, pro, app):
    stripe_api.subscription("sub_1", "cus_1", product=_product(pro))
    first = deliver("checkout.session.completed", _completed(user, pro), event_id="evt_same")
    second = deliver("checkout.session.completed", _completed(user, pro), event_id="evt_same")
    assert (first.json, second.json) == ({"status": "processed"}, {"status": "duplicate"})
    assert len(stripe_api.requests_to("GET", "/v1/subscriptions/sub_1")) == 1
    assert subscription_rows(app, user.id) == [(pro["id"], "active", "sub_1")]


def test_concurrent_deliveries_of_one_event_have_one_effect(stripe_api, user, pro, app):
    stripe_api.subscription("sub_1", "cus_1", product=_product(pro))
    stripe_api.delay("GET", "/v1/subscriptions/", 0.3)  # the first is still reading when the second lands
    event = {"id": "evt_race", "object": "event", "type": "checkout.session.completed", "created": int(time.time()),
             "data": {"object": _completed(user, pro)}}
    payload = json.dumps(event).encode()
    barrier, results = threading.Barrier(2), []

    def send(index):
        web = ApiClient(app.test_client(), f"10.8.0.{index}")
        barrier.wait()
        results.append(web.post("/webhooks/stripe", data=payload, headers={"Stripe-Signature": sign(payload)}))

    threads = [threading.Thread(target=send, args=(index,)) for index in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(response.json["status"] for response in results) == ["duplicate", "processed"]
    assert len(stripe_api.requests_to("GET", "/v1/subscriptions/sub_1")) == 1
    assert subscription_rows(app, user.id) == [(pro["id"], "active", "sub_1")]
    assert _events(app) == 1


def test_a_failing_gateway_does_not_fail_a_completed_checkout(stripe_api, deliver, user, pro, app, caplog):
    stripe_api.subscription("sub_1", "cus_1", product=_product(pro))
    stripe_api.fail("GET", "/v1/subscriptions/sub_1", status=500, message="Stripe hiccup")
    with caplog.at_level(logging.WARNING, logger="trazo.api.billing.webhook"):
        response = deliver("checkout.session.completed", _completed(user, pro), event_id="evt_hiccup")
    assert response.status_code == 200 and response.json == {"status": "processed"}
    assert subscription_rows(app, user.id) == [(pro["id"], "active", "sub_1")]
    assert _warnings(caplog) == ["the period of gateway subscription sub_1 was not read: "
                                 "Payment provider (stripe) error: Stripe hiccup"]
    stripe_api.failures.clear()
    assert deliver("checkout.session.completed", _completed(user, pro), event_id="evt_hiccup").json == \
        {"status": "duplicate"}
    assert len(stripe_api.requests_to("GET", "/v1/subscriptions/sub_1")) == 1
    assert subscription_rows(app, user.id) == [(pro["id"], "active", "sub_1")]


def test_created_then_completed_events_make_one_subscription(stripe_api, deliver, user, pro, app):
    remote = stripe_api.subscription("sub_1", "cus_1", product=_product(pro),
                                     metadata={"user_id": user.id, "plan_id": pro["id"]})
    assert deliver("customer.subscription.created", remote).json == {"status": "processed"}
    assert deliver("checkout.session.completed", _completed(user, pro)).json == {"status": "processed"}
    assert subscription_rows(app, user.id) == [(pro["id"], "active", "sub_1")]


def test_events_naming_nobody_change_nothing(stripe_api, deliver, user, pro, app):
    stripe_api.subscription("sub_1", "cus_1")
    stranger = {**_completed(user, pro), "metadata": {"user_id": "someone-else", "plan_id": pro["id"]}}
    assert deliver("checkout.session.completed", stranger).status_code == 200
    assert deliver("checkout.session.completed", _completed(user, pro, mode="setup")).status_code == 200
    assert deliver("customer.subscription.updated", {"id": "sub_unknown", "status": "active"}).status_code == 200
    assert subscription_rows(app, user.id) == []


def test_a_new_paid_subscription_replaces_the_previous_one(stripe_api, deliver, user, pro, make_plan, app):
    team = make_plan("TEAM", price_usd=19)
    stripe_api.subscription("sub_1", "cus_1", product=_product(pro))
    stripe_api.subscription("sub_2", "cus_1", product=_product(team))
    deliver("checkout.session.completed", _completed(user, pro))
    deliver("checkout.session.completed", _completed(user, team, subscription="sub_2"))
    assert subscription_rows(app, user.id) == [(pro["id"], "cancelled", "sub_1"), (team["id"], "active", "sub_2")]
    assert stripe_api.objects["subscriptions"]["sub_1"]["status"] == "canceled"  # no double billing


# -- subscription lifecycle ----------------------------------------------------------------

def _subscribed(stripe_api, deliver, user, pro):
    remote = stripe_api.subscription("sub_1", "cus_1", product=_product(pro))
    deliver("checkout.session.completed", _completed(user, pro), created=time.time() - 60)
    return remote


def test_past_due_keeps_the_plan_and_unpaid_drops_to_free(stripe_api, deliver, user, pro):
    remote = _subscribed(stripe_api, deliver, user, pro)
    deliver("customer.subscription.updated", {**remote, "status": "past_due"})
    me = user.get("/subscriptions/me").json
    assert me["status"] == "payment_failed" and me["plan"]["code"] == "PRO"
    assert user.get("/subscriptions/usage").json["projects"]["limit"] == 5
    deliver("customer.subscription.updated", {**remote, "status": "unpaid"})
    assert user.get("/subscriptions/me").json["plan"]["code"] == "FREE"


def test_out_of_order_updates_are_ignored(stripe_api, deliver, user, pro):
    remote = _subscribed(stripe_api, deliver, user, pro)
    now = time.time()
    deliver("customer.subscription.updated", {**remote, "status": "past_due"}, created=now)
    late = deliver("customer.subscription.updated", {**remote, "status": "active"}, created=now - 30)
    assert late.json == {"status": "processed"}
    assert user.get("/subscriptions/me").json["status"] == "payment_failed"


def test_deleted_subscription_returns_the_user_to_free(stripe_api, deliver, user, pro, app):
    remote = _subscribed(stripe_api, deliver, user, pro)
    deliver("customer.subscription.deleted", {**remote, "status": "canceled", "canceled_at": int(time.time())})
    assert user.get("/subscriptions/me").json["plan"]["code"] == "FREE"
    assert subscription_rows(app, user.id) == [(pro["id"], "cancelled", "sub_1")]  # no extra FREE rows


def test_scheduled_cancellation_is_mirrored(stripe_api, deliver, user, pro):
    remote = _subscribed(stripe_api, deliver, user, pro)
    deliver("customer.subscription.updated", {**remote, "cancel_at_period_end": True})
    me = user.get("/subscriptions/me").json
    assert me["cancel_at_period_end"] is True and me["status"] == "active"


def test_invoices_are_recorded_and_drive_the_payment_status(stripe_api, deliver, user, pro, app):
    _subscribed(stripe_api, deliver, user, pro)
    invoice = {"id": "in_1", "object": "invoice", "customer": "cus_1", "subscription": "sub_1", "status": "open",
               "currency": "usd", "amount_due": 900, "amount_paid": 0, "created": int(time.time()),
               "invoice_pdf": "https://pay.stripe.test/in_1/pdf", "lines": {"data": [{"description": "Pro"}]}}
    deliver("invoice.payment_failed", invoice)
    assert user.get("/subscriptions/me").json["status"] == "payment_failed"
    paid = {**invoice, "status": "paid", "amount_paid": 900, "status_transitions": {"paid_at": int(time.time())}}
    deliver("invoice.paid", paid)
    deliver("invoice.payment_succeeded", paid)
    assert user.get("/subscriptions/me").json["status"] == "active"
    with app.app_context():
        (row,) = db.session.query(Invoice).all()
        assert (row.user_id, row.status, row.amount_paid, row.description) == (user.id, "paid", 900, "Pro")
    assert user.get("/subscriptions/invoices/in_1/pdf-url").json == {"pdf_url": "https://pay.stripe.test/in_1/pdf"}
    assert deliver("invoice.paid", {**paid, "id": "in_2", "customer": "cus_nobody", "subscription": None}).json == \
        {"status": "processed"}


def test_webhook_needs_a_webhook_secret(stripe_api, client, configure):
    configure(STRIPE_WEBHOOK_SECRET="")
    payload = b'{"id": "evt_1", "type": "invoice.paid", "data": {"object": {}}}'
    response = client.post("/webhooks/stripe", data=payload, headers={"Stripe-Signature": sign(payload, "")})
    assert error_detail(response, 503) == "Billing service not configured"


# -- the event alone records the subscription (the gateway's API is optional) -------------

@pytest.fixture
def secret_only(pro, configure, stripe_api):
    """Plans exist, but this instance only has the webhook's signing secret."""
    configure(STRIPE_SECRET_KEY="", STRIPE_WEBHOOK_SECRET=WEBHOOK_SECRET)
    return stripe_api


def _update(user, plan, status="active", start=None, end=None, subscription="sub_1", **fields):
    """A customer.subscription.* object in the current API shape (the period on the item)."""
    start = start or int(time.time())
    end = end or start + 30 * 86400
    item = {"id": "si_1", "object": "subscription_item", "current_period_start": start, "current_period_end": end,
            "price": {"id": "price_1", "object": "price", "product": _product(plan)}}
    return {"id": subscription, "object": "subscription", "customer": "cus_1", "status": status,
            "cancel_at_period_end": False, "start_date": start, "items": {"object": "list", "data": [item]},
            "metadata": {"user_id": user.id, "plan_id": plan["id"]}, **fields}


def test_with_only_the_signing_secret_a_completed_checkout_records_an_active_subscription(
        secret_only, deliver, user, pro):
    response = deliver("checkout.session.completed", _completed(user, pro))
    assert response.status_code == 200 and response.json == {"status": "processed"}
    me = user.get("/subscriptions/me").json
    assert (me["plan"]["code"], me["status"], me["payment_provider"]) == ("PRO", "active", "stripe")
    assert (me["stripe_subscription_id"], me["stripe_customer_id"]) == ("sub_1", "cus_1")
    assert _period(me) == (None, None)
    assert user.get("/subscriptions/usage").json["projects"]["limit"] == 5
    assert [call for call in secret_only.calls if call["path"].startswith("/v1/subscriptions")] == []


def test_a_subscription_update_after_the_checkout_fills_the_billing_period(secret_only, deliver, user, pro):
    now = int(time.time())
    assert deliver("checkout.session.completed", _completed(user, pro), created=now - 5).json == \
        {"status": "processed"}
    response = deliver("customer.subscription.updated", _update(user, pro, start=now - 10, end=now + 86400),
                       created=now)
    assert response.status_code == 200 and response.json == {"status": "processed"}
    me = user.get("/subscriptions/me").json
    assert me["status"] == "active" and me["plan"]["code"] == "PRO"
    assert _period(me) == (_iso(now - 10), _iso(now + 86400))


def test_an_unpaid_checkout_waits_for_the_gateway_to_activate_it(secret_only, deliver, user, pro, app):
    now = int(time.time())
    deliver("checkout.session.completed", _completed(user, pro, payment_status="unpaid"), created=now - 5)
    assert subscription_rows(app, user.id) == [(pro["id"], "pending", "sub_1")]
    assert user.get("/subscriptions/me").json["plan"]["code"] == "FREE"
    deliver("customer.subscription.updated", _update(user, pro), created=now)
    assert user.get("/subscriptions/me").json["status"] == "active"
    assert subscription_rows(app, user.id) == [(pro["id"], "active", "sub_1")]


def test_a_checkout_older_than_the_update_already_applied_changes_nothing(secret_only, deliver, user, pro, app):
    now = int(time.time())
    deliver("customer.subscription.updated", _update(user, pro, status="past_due", start=now, end=now + 60),
            created=now)
    late = deliver("checkout.session.completed", _completed(user, pro), created=now - 30)
    assert late.status_code == 200 and late.json == {"status": "processed"}
    me = user.get("/subscriptions/me").json
    assert me["status"] == "payment_failed" and _period(me) == (_iso(now), _iso(now + 60))
    assert subscription_rows(app, user.id) == [(pro["id"], "payment_failed", "sub_1")]


def test_replaying_a_checkout_with_only_the_signing_secret_has_one_effect(secret_only, deliver, user, pro, app):
    first = deliver("checkout.session.completed", _completed(user, pro), event_id="evt_replay")
    again = deliver("checkout.session.completed", _completed(user, pro), event_id="evt_replay")
    assert (first.json, again.json) == ({"status": "processed"}, {"status": "duplicate"})
    assert subscription_rows(app, user.id) == [(pro["id"], "active", "sub_1")]
    assert _events(app) == 1


def test_a_replaced_subscription_that_cannot_be_cancelled_at_the_gateway_is_logged(
        secret_only, deliver, user, pro, make_plan, app, caplog, configure):
    configure(STRIPE_SECRET_KEY=SECRET_KEY)
    team = make_plan("TEAM", price_usd=19)
    configure(STRIPE_SECRET_KEY="")
    now = int(time.time())
    deliver("checkout.session.completed", _completed(user, pro), created=now - 5)
    with caplog.at_level(logging.WARNING, logger="trazo.api.billing.webhook"):
        response = deliver("checkout.session.completed", _completed(user, team, subscription="sub_2"), created=now)
    assert response.status_code == 200 and response.json == {"status": "processed"}
    assert subscription_rows(app, user.id) == [(pro["id"], "cancelled", "sub_1"), (team["id"], "active", "sub_2")]
    assert _warnings(caplog) == ["gateway subscription sub_1 was replaced but not cancelled there: "
                                 "the payment API is not configured"]


def test_an_unreachable_gateway_does_not_fail_a_completed_checkout(stripe_api, configure, deliver, user, pro,
                                                                   caplog):
    configure(STRIPE_API_BASE=f"http://127.0.0.1:{free_port()}")
    with caplog.at_level(logging.WARNING, logger="trazo.api.billing.webhook"):
        response = deliver("checkout.session.completed", _completed(user, pro))
    assert response.status_code == 200 and response.json == {"status": "processed"}
    me = user.get("/subscriptions/me").json
    assert (me["status"], me["stripe_subscription_id"], _period(me)) == ("active", "sub_1", (None, None))
    (warning,) = _warnings(caplog)
    assert warning.startswith("the period of gateway subscription sub_1 was not read: Payment provider (stripe) error")


def test_a_trickling_gateway_does_not_hold_the_checkout_event(configure, deliver, user, pro, app, caplog):
    server = TrickleHttp().start()
    try:
        configure(STRIPE_API_BASE=server.origin, STRIPE_TIMEOUT=2)
        outcome = {}
        with caplog.at_level(logging.WARNING, logger="trazo.api.billing.webhook"):
            thread = threading.Thread(target=lambda: outcome.update(
                response=deliver("checkout.session.completed", _completed(user, pro))))
            thread.start()
            assert server.arrived.wait(10), "the gateway was never called"
            with app.app_context():
                held = db.engine.pool.checkedout()
            thread.join(TRICKLE_SECONDS + 5)
    finally:
        server.stop()
    assert held == 0
    assert outcome["response"].status_code == 200 and outcome["response"].json == {"status": "processed"}
    assert _warnings(caplog) == ["the period of gateway subscription sub_1 was not read: "
                                 "The payment provider did not answer in time"]
    me = user.get("/subscriptions/me").json
    assert (me["status"], me["plan"]["code"], _period(me)) == ("active", "PRO", (None, None))
