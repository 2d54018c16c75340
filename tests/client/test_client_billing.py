"""The client's plan and subscription calls, replayed: the public pricing page, the administrator's plan
editor, the subscription tab (usage, checkout, cancel, payment method, invoices), and the payment webhook
that completes a checkout without the server calling the gateway back."""
import json
import time

import pytest

from ..fakes.stripe import sign
from .browser import reads, shown_detail

PLAN = ("id", "name", "code", "description", "price_usd", "max_projects", "max_diagrams", "is_active", "is_free",
        "prices", "created_at", "updated_at")
ADMIN_PLAN = (*PLAN, "active_subscriptions")
SUBSCRIPTION = ("id", "user_id", "plan", "status", "stripe_customer_id", "stripe_subscription_id",
                "current_period_start", "current_period_end", "cancelled_at")
USAGE = ("plan_name", "projects.current", "projects.limit", "diagrams.current", "diagrams.limit",
         "usage_percentage.projects", "usage_percentage.diagrams")


def _plan(owner, code="PRO", price_usd=9, **fields):
    response = owner.api("POST", "/admin/plans", json={"name": code.title(), "code": code, "description": "More",
                                                       "price_usd": price_usd, "max_projects": 5,
                                                       "max_diagrams": 50, **fields})
    assert response.status_code == 201, response.get_json()
    return reads(response.get_json(), *ADMIN_PLAN)


def _deliver(tab, event_type, obj):
    event = {"id": f"evt_{time.time_ns()}", "object": "event", "type": event_type, "created": int(time.time()),
             "data": {"object": obj}}
    payload = json.dumps(event).encode()
    return tab.public("POST", "/webhooks/stripe", data=payload,
                      headers={"Stripe-Signature": sign(payload), "Content-Type": "application/json"})


def test_the_pricing_page_reads_public_plans(owner, browser, stripe_api):
    pro = _plan(owner)
    visitor = browser()
    listed = visitor.public("GET", "/plans")
    assert listed.status_code == 200
    assert {reads(plan, *PLAN)["code"] for plan in listed.get_json()} >= {"PRO"}
    one = visitor.public("GET", f"/plans/{pro['id']}")
    assert one.status_code == 200 and reads(one.get_json(), *PLAN)["price_usd"] == 9


def test_the_plan_editor_creates_edits_prices_and_deletes(owner, stripe_api):
    pro = _plan(owner)
    assert {reads(plan, *ADMIN_PLAN)["code"] for plan in owner.api("GET", "/admin/plans").get_json()} >= {"PRO"}
    edited = owner.api("PUT", f"/admin/plans/{pro['id']}", json={"description": "Much more", "max_projects": 10})
    assert edited.status_code == 200 and reads(edited.get_json(), *PLAN)["max_projects"] == 10
    priced = owner.api("POST", f"/admin/plans/{pro['id']}/prices", json={"currency": "eur", "amount": 8.5})
    assert priced.status_code == 201, priced.get_json()
    assert reads(priced.get_json(), *PLAN)["prices"]["eur"] == 8.5
    unpriced = owner.api("DELETE", f"/admin/plans/{pro['id']}/prices/eur")
    assert unpriced.status_code == 200 and "eur" not in reads(unpriced.get_json(), *PLAN)["prices"]
    deleted = owner.api("DELETE", f"/admin/plans/{pro['id']}")
    assert deleted.status_code == 200 and isinstance(reads(deleted.get_json(), "message")["message"], str)


def test_plan_editor_refusals_are_text(owner, ada, stripe_api):
    _plan(owner)
    assert shown_detail(owner.api("POST", "/admin/plans", json={"name": "Pro", "code": "PRO", "price_usd": 9}), 400)
    assert shown_detail(ada.api("GET", "/admin/plans"), 403)


def test_the_subscription_tab_reads_the_free_plan_and_usage(ada):
    me = ada.api("GET", "/subscriptions/me")
    assert me.status_code == 200
    body = reads(me.get_json(), *SUBSCRIPTION)
    assert reads(body["plan"], *PLAN)["code"] == "FREE" and body["status"] == "active"
    usage = ada.api("GET", "/subscriptions/usage")
    assert usage.status_code == 200 and reads(usage.get_json(), *USAGE)["projects"]["current"] == 0


def test_checkout_reads_the_session_url_then_the_webhook_subscribes(owner, ada, browser, stripe_api):
    pro = _plan(owner)
    checkout = ada.api("POST", "/subscriptions/checkout", json={"plan_id": pro["id"]})
    assert checkout.status_code == 200, checkout.get_json()
    assert reads(checkout.get_json(), "session_url", "message")["session_url"].startswith("https://")
    stripe_api.calls.clear()
    session = {"id": "cs_test_9", "object": "checkout.session", "mode": "subscription", "subscription": "sub_9",
               "customer": "cus_9", "payment_status": "paid", "status": "complete",
               "metadata": {"user_id": ada.user["id"], "plan_id": pro["id"]}}
    delivered = _deliver(browser(), "checkout.session.completed", session)
    assert delivered.status_code == 200 and delivered.get_json() == {"status": "processed"}
    # The event carries all it needs. The gateway does not know sub_9, so the only call back (reading the
    # billing period after the event is recorded) fails, and that never fails the event.
    assert [(call["method"], call["path"]) for call in stripe_api.calls] == [("GET", "/v1/subscriptions/sub_9")]
    me = reads(ada.api("GET", "/subscriptions/me").get_json(), *SUBSCRIPTION)
    assert me["plan"]["code"] == "PRO" and me["status"] == "active" and me["stripe_subscription_id"] == "sub_9"
    assert ada.api("GET", "/subscriptions/usage").get_json()["projects"]["limit"] == 5


@pytest.fixture
def paying(owner, ada, browser, stripe_api):
    """ada on a paid plan, as a completed checkout leaves her."""
    pro = _plan(owner)
    stripe_api.subscription("sub_9", "cus_9")
    session = {"id": "cs_test_9", "object": "checkout.session", "mode": "subscription", "subscription": "sub_9",
               "customer": "cus_9", "payment_status": "paid", "status": "complete",
               "metadata": {"user_id": ada.user["id"], "plan_id": pro["id"]}}
    assert _deliver(browser(), "checkout.session.completed", session).status_code == 200
    return stripe_api


def test_switching_to_the_free_plan_reads_the_message(ada, paying):
    free = next(plan for plan in ada.public("GET", "/plans").get_json() if plan["code"] == "FREE")
    response = ada.api("POST", "/subscriptions/checkout", json={"plan_id": free["id"]})
    assert response.status_code == 200, response.get_json()
    body = reads(response.get_json(), "session_url", "message")
    assert body["session_url"] is None and isinstance(body["message"], str)
    assert ada.api("GET", "/subscriptions/me").get_json()["plan"]["code"] == "FREE"


def test_cancel_at_period_end_sends_no_body(ada, paying):
    response = ada.api("POST", "/subscriptions/cancel", query_string={"immediate": "false"})
    assert response.status_code == 200, response.get_json()
    body = reads(response.get_json(), "message", "cancel_at", "access_until", "immediate")
    assert body["immediate"] is False and isinstance(body["message"], str)


def test_cancel_immediately_returns_to_free(ada, paying):
    response = ada.api("POST", "/subscriptions/cancel", query_string={"immediate": "true"})
    assert response.status_code == 200 and response.get_json()["immediate"] is True
    assert ada.api("GET", "/subscriptions/me").get_json()["plan"]["code"] == "FREE"


def test_update_payment_method_reads_the_session(ada, paying):
    response = ada.api("POST", "/subscriptions/update-payment-method")
    assert response.status_code == 200, response.get_json()
    assert reads(response.get_json(), "session_id", "session_url")["session_url"].startswith("https://")


def test_billing_history_and_the_invoice_pdf(ada, paying):
    now = int(time.time())
    paying.add("invoices", {"id": "in_1", "customer": "cus_9", "status": "paid", "currency": "usd",
                            "amount_due": 900, "amount_paid": 900, "created": now, "number": "N-1",
                            "hosted_invoice_url": "https://invoice.stripe.test/in_1",
                            "invoice_pdf": "https://pay.stripe.test/in_1/pdf",
                            "status_transitions": {"paid_at": now}, "lines": {"object": "list", "data": []}})
    history = ada.api("GET", "/subscriptions/billing-history", query_string={"limit": 10})
    assert history.status_code == 200
    body = reads(history.get_json(), "invoices", "total_count")
    assert body["total_count"] == 1
    reads(body["invoices"][0], "id", "amount", "currency", "status", "description", "invoice_pdf",
          "hosted_invoice_url", "created_at", "paid_at")
    pdf = ada.api("GET", "/subscriptions/invoices/in_1/pdf-url")
    assert pdf.status_code == 200 and reads(pdf.get_json(), "pdf_url")["pdf_url"] == "https://pay.stripe.test/in_1/pdf"


def test_billing_without_a_gateway_is_text_the_tab_shows(ada):
    assert shown_detail(ada.api("GET", "/subscriptions/billing-history", query_string={"limit": 10}), 503)
