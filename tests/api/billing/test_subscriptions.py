"""The signed-in user's subscription routes (SEED §4.9): subscription, usage, checkout, cancel,
payment method, billing history and invoice PDFs, with and without Stripe configured."""
import time
import zlib
from datetime import UTC, datetime

import pytest

from ...helpers import PASSWORD, UNKNOWN_ID, error_detail, validation_errors
from .conftest import subscription_rows

BILLING_ROUTES = (("POST", "/subscriptions/checkout", {"plan_id": UNKNOWN_ID}),
                  ("POST", "/subscriptions/cancel", None),
                  ("POST", "/subscriptions/update-payment-method", None),
                  ("GET", "/subscriptions/billing-history", None),
                  ("GET", "/subscriptions/invoices/in_1/pdf-url", None))
ALL_ROUTES = BILLING_ROUTES + (("GET", "/subscriptions/me", None), ("GET", "/subscriptions/usage", None))


def _iso(seconds):
    return datetime.fromtimestamp(seconds, UTC).isoformat()


def test_every_route_needs_a_token(client):
    for method, path, body in ALL_ROUTES:
        assert error_detail(client.request(method, path, json=body), 401) == "Not authenticated"


def test_billing_routes_answer_503_without_stripe(user):
    for method, path, body in BILLING_ROUTES:
        assert error_detail(user.request(method, path, json=body), 503) == "Billing service not configured"
        assert error_detail(user.request(method, path, json=body, lang="es"), 503) == \
            "Servicio de facturación no configurado"
    assert user.get("/subscriptions/me").status_code == 200
    assert user.get("/subscriptions/usage").status_code == 200


# -- my subscription and usage ----------------------------------------------------------------

def test_a_user_without_subscription_is_on_the_free_plan(user):
    me = user.get("/subscriptions/me").json
    assert me["id"] is None and me["user_id"] == user.id and me["status"] == "active"
    assert me["plan"]["code"] == "FREE" and me["stripe_subscription_id"] is None
    assert user.get("/users/me").json["subscription"] == {
        "plan": {"name": "Free", "price_usd": 0.0, "max_projects": None, "max_diagrams": None}}


def test_an_administrator_has_the_unlimited_plan(admin):
    me = admin.get("/subscriptions/me", lang="es").json
    assert me["id"] is None and me["plan"]["name"] == "Administrador" and me["plan"]["max_projects"] is None
    assert admin.get("/users/me").json["subscription"] is None


def test_my_subscription_shows_the_paid_plan(user, make_plan, subscribe):
    plan = make_plan("PRO", price_usd=9, max_projects=10)
    subscription_id = subscribe(user, plan, stripe_id="sub_9", customer="cus_9")
    me = user.get("/subscriptions/me").json
    assert me["id"] == subscription_id and me["plan"]["code"] == "PRO" and me["stripe_customer_id"] == "cus_9"
    assert "gateway_config" not in me["plan"]
    assert user.get("/users/me").json["subscription"]["plan"] == {
        "name": "Pro", "price_usd": 9.0, "max_projects": 10, "max_diagrams": None}


def test_usage_counts_live_against_the_plan(user, admin, configure):
    configure(FREE_PLAN_MAX_PROJECTS=4, FREE_PLAN_MAX_DIAGRAMS=None, STORAGE_OVERHEAD_DIAGRAM_BYTES=600,
              STORAGE_OVERHEAD_REVISION_BYTES=500)
    project = user.post("/projects", json={"name": "One"}).json
    user.post(f"/projects/{project['id']}/diagrams", json={"title": "A", "content": "graph TD; a-->b",
                                                             "diagram_type": "mermaid"})
    history = len(zlib.compress(b"graph TD; a-->b", 6))
    assert user.get("/subscriptions/usage").json == {
        "plan_name": "Free", "projects": {"current": 1, "limit": 4}, "diagrams": {"current": 1, "limit": None},
        "storage": {"current": 15 + history + 600 + 500, "limit": 100 * 1024 * 1024},
        "storage_breakdown": {"content_bytes": 15, "history_bytes": history, "overhead_bytes": 1100, "folders": 0,
                              "revisions": 1},
        "usage_percentage": {"projects": 25.0, "diagrams": 0.0, "storage": 0.0}}
    admin.post("/projects", json={"name": "Admin's"})
    assert admin.get("/subscriptions/usage").json == {
        "plan_name": "Administrator", "projects": {"current": 1, "limit": None},
        "diagrams": {"current": 0, "limit": None}, "storage": {"current": 0, "limit": None},
        "storage_breakdown": {"content_bytes": 0, "history_bytes": 0, "overhead_bytes": 0, "folders": 0,
                              "revisions": 0},
        "usage_percentage": {"projects": 0.0, "diagrams": 0.0, "storage": 0.0}}


# -- checkout --------------------------------------------------------------------------------

def test_checkout_of_a_paid_plan_answers_the_stripe_session(stripe_api, user, make_plan):
    plan = make_plan("PRO", price_usd=9)
    response = user.post("/subscriptions/checkout", json={"plan_id": plan["id"]})
    assert response.status_code == 200, response.json
    assert response.json["session_url"].startswith("https://checkout.stripe.test/")
    assert response.json["session_id"].startswith("cs_test_") and response.json["message"] is None
    (call,) = stripe_api.requests_to("POST", "/v1/checkout/sessions")
    form = call["form"]
    assert form["mode"] == "subscription" and form["customer_email"] == "user@example.com"
    assert form["line_items"]["0"] == {"price": plan["gateway_config"]["external_price_id"], "quantity": 1}
    assert form["metadata"] == form["subscription_data"]["metadata"] == {"user_id": user.id, "plan_id": plan["id"]}
    assert form["success_url"] == ("http://localhost:5173/profile?tab=subscription&success=true"
                                   "&session_id={CHECKOUT_SESSION_ID}")
    assert form["cancel_url"] == "http://localhost:5173/profile?tab=subscription"
    assert subscription_rows(user.flask_client.application, user.id) == []  # the webhook decides


def test_checkout_synchronises_a_plan_created_before_stripe(admin, user, stripe_api, configure):
    configure(STRIPE_SECRET_KEY="")
    plan = admin.post("/admin/plans", json={"name": "Pro", "code": "PRO", "price_usd": 5}).json
    assert stripe_api.calls == []
    configure(STRIPE_SECRET_KEY="sk_test_trazo")
    assert user.post("/subscriptions/checkout", json={"plan_id": plan["id"]}).status_code == 200
    assert [call["path"] for call in stripe_api.calls] == ["/v1/products", "/v1/prices", "/v1/checkout/sessions"]
    assert admin.get("/admin/plans").json[1]["gateway_config"]["external_price_id"].startswith("price_")


def test_checkout_refusals(stripe_api, admin, user, make_plan, subscribe):
    pro = make_plan("PRO", price_usd=9)
    team = make_plan("TEAM", price_usd=19)
    old = make_plan("OLD", price_usd=1, is_active=False)
    free_id = next(plan["id"] for plan in user.get("/plans").json if plan["code"] == "FREE")
    checkout = "/subscriptions/checkout"
    validation_errors(user.post(checkout, json={}), "plan_id")
    validation_errors(user.post(checkout, json={"plan_id": 5}), "plan_id")
    assert error_detail(user.post(checkout, json={"plan_id": UNKNOWN_ID}), 404) == "Plan not found"
    assert error_detail(user.post(checkout, json={"plan_id": old["id"]}), 400) == "This plan is no longer available"
    assert error_detail(user.post(checkout, json={"plan_id": free_id}), 400) == \
        "You are already subscribed to this plan"
    assert error_detail(admin.post(checkout, json={"plan_id": pro["id"]}), 400) == \
        "Administrators have no plan limits and need no subscription"
    subscribe(user, pro, stripe_id="sub_1")
    assert error_detail(user.post(checkout, json={"plan_id": pro["id"]}, lang="es"), 400) == \
        "Ya estás suscrito a este plan"
    assert error_detail(user.post(checkout, json={"plan_id": team["id"]}), 400) == \
        "You already have a paid subscription. Cancel it before subscribing to another plan."
    assert stripe_api.requests_to("POST", "/v1/checkout/sessions") == []


def test_checkout_reuses_the_customer_and_reports_stripe_failures(stripe_api, user, make_plan, subscribe):
    pro = make_plan("PRO", price_usd=9)
    team = make_plan("TEAM", price_usd=19)
    subscribe(user, pro, stripe_id="sub_1", customer="cus_known", cancel_at_period_end=True)
    assert user.post("/subscriptions/checkout", json={"plan_id": team["id"]}).status_code == 200
    assert stripe_api.requests_to("POST", "/v1/checkout/sessions")[0]["form"]["customer"] == "cus_known"
    stripe_api.fail("POST", "/v1/checkout/sessions", status=400, message="No such price")
    response = user.post("/subscriptions/checkout", json={"plan_id": team["id"]}, lang="es")
    assert error_detail(response, 502) == "Error del proveedor de pagos (stripe): No such price"


def test_checkout_of_a_free_plan_switches_at_once(stripe_api, user, make_plan, subscribe):
    pro = make_plan("PRO", price_usd=9)
    community = make_plan("COMMUNITY", price_usd=0, max_projects=50)
    stripe_api.subscription("sub_1", "cus_1")
    subscribe(user, pro, stripe_id="sub_1")
    response = user.post("/subscriptions/checkout", json={"plan_id": community["id"]})
    assert response.json == {"session_id": None, "session_url": None,
                             "message": "Plan changed immediately to Community"}
    assert stripe_api.requests_to("DELETE", "/v1/subscriptions/sub_1")  # no more billing at Stripe
    assert subscription_rows(user.flask_client.application, user.id) == [
        (pro["id"], "cancelled", "sub_1"), (community["id"], "active", None)]
    free_id = next(plan["id"] for plan in user.get("/plans").json if plan["code"] == "FREE")
    assert user.post("/subscriptions/checkout", json={"plan_id": free_id}).json["message"] == \
        "Plan changed immediately to Free"
    assert user.get("/subscriptions/me").json["plan"]["code"] == "FREE"


# -- cancel and payment method ---------------------------------------------------------------

def test_cancel_needs_a_paid_subscription(stripe_api, user):
    assert error_detail(user.post("/subscriptions/cancel"), 400) == "Cannot cancel free subscription"
    validation_errors(user.post("/subscriptions/cancel?immediate=perhaps"), "immediate", where="query")


def test_cancel_at_period_end_keeps_the_plan_until_then(stripe_api, user, make_plan, subscribe):
    pro = make_plan("PRO", price_usd=9)
    remote = stripe_api.subscription("sub_1", "cus_1")
    subscribe(user, pro, stripe_id="sub_1")
    response = user.post("/subscriptions/cancel", lang="es")
    ends = _iso(remote["items"]["data"][0]["current_period_end"])
    assert response.json == {"message": "Suscripción cancelada correctamente", "cancel_at": ends,
                             "access_until": ends, "immediate": False}
    assert stripe_api.requests_to("POST", "/v1/subscriptions/sub_1")[0]["form"] == {"cancel_at_period_end": True}
    me = user.get("/subscriptions/me").json
    assert me["plan"]["code"] == "PRO" and me["cancel_at_period_end"] is True and me["current_period_end"] == ends


def test_cancel_immediately_returns_to_the_free_plan(stripe_api, user, make_plan, subscribe):
    pro = make_plan("PRO", price_usd=9)
    stripe_api.subscription("sub_1", "cus_1")
    subscribe(user, pro, stripe_id="sub_1")
    response = user.post("/subscriptions/cancel?immediate=true")
    assert response.status_code == 200
    assert response.json["immediate"] is True and response.json["message"] == "Subscription cancelled immediately"
    assert stripe_api.objects["subscriptions"]["sub_1"]["status"] == "canceled"
    assert user.get("/subscriptions/me").json["plan"]["code"] == "FREE"


def test_cancel_reports_stripe_failures(stripe_api, user, make_plan, subscribe):
    subscribe(user, make_plan("PRO", price_usd=9), stripe_id="sub_1")
    stripe_api.fail("POST", "/v1/subscriptions/sub_1", status=500, message="Try later")
    assert error_detail(user.post("/subscriptions/cancel"), 502) == "Payment provider (stripe) error: Try later"
    assert user.get("/subscriptions/me").json["cancel_at_period_end"] is False


def test_update_payment_method_opens_the_billing_portal(stripe_api, user, make_plan, subscribe):
    assert error_detail(user.post("/subscriptions/update-payment-method"), 400) == \
        "No payment method to update on free plan"
    subscribe(user, make_plan("PRO", price_usd=9), stripe_id="sub_1", customer="cus_7")
    response = user.post("/subscriptions/update-payment-method")
    assert response.status_code == 200 and response.json["session_url"].startswith("https://billing.stripe.test/")
    (call,) = stripe_api.requests_to("POST", "/v1/billing_portal/sessions")
    assert call["form"] == {"customer": "cus_7",
                            "return_url": "http://localhost:5173/profile?tab=subscription&payment_updated=true"}


# -- billing history and invoices -------------------------------------------------------------

def _invoice(invoice_id, customer, created, status="paid", amount=900, currency="usd", description="Pro × 1"):
    return {"id": invoice_id, "customer": customer, "status": status, "currency": currency, "amount_due": amount,
            "amount_paid": amount if status == "paid" else 0, "created": created, "number": f"N-{invoice_id}",
            "hosted_invoice_url": f"https://invoice.stripe.test/{invoice_id}",
            "invoice_pdf": f"https://pay.stripe.test/{invoice_id}/pdf",
            "status_transitions": {"paid_at": created + 5 if status == "paid" else None},
            "lines": {"object": "list", "data": [{"description": description}] if description else []},
            "parent": {"subscription_details": {"subscription": "sub_1"}}}


def test_billing_history_lists_my_invoices_newest_first(stripe_api, user, make_plan, subscribe):
    assert user.get("/subscriptions/billing-history").json == {"invoices": [], "total_count": 0}
    subscribe(user, make_plan("PRO", price_usd=9), stripe_id="sub_1", customer="cus_1")
    now = int(time.time())
    stripe_api.add("invoices", _invoice("in_old", "cus_1", now - 86400, description=None))
    stripe_api.add("invoices", _invoice("in_new", "cus_1", now, status="open", amount=1999, currency="eur"))
    stripe_api.add("invoices", _invoice("in_other", "cus_2", now))
    history = user.get("/subscriptions/billing-history?limit=5", lang="es").json
    assert history["total_count"] == 2
    newest, oldest = history["invoices"]
    assert newest == {"id": "in_new", "amount": 19.99, "currency": "EUR", "status": "open",
                      "description": "Pro × 1", "invoice_pdf": "https://pay.stripe.test/in_new/pdf",
                      "hosted_invoice_url": "https://invoice.stripe.test/in_new", "created_at": _iso(now),
                      "paid_at": None}
    assert oldest["description"] == "Pago de suscripción" and oldest["paid_at"] == _iso(now - 86400 + 5)
    assert stripe_api.requests_to("GET", "/v1/invoices")[0]["query"] == {"customer": "cus_1", "limit": "5"}
    stripe_api.fail("GET", "/v1/invoices", status=500, message="down")
    assert user.get("/subscriptions/billing-history").json == {**history, "invoices": [
        {**newest, "description": "Pro × 1"}, {**oldest, "description": "Subscription payment"}]}


@pytest.mark.parametrize("limit", ["0", "101", "ten"])
def test_billing_history_limit_is_bounded(stripe_api, user, limit):
    validation_errors(user.get(f"/subscriptions/billing-history?limit={limit}"), "limit", where="query")


def test_invoice_pdf_only_for_my_invoices(stripe_api, user, other_user, make_plan, subscribe):
    pro = make_plan("PRO", price_usd=9)
    subscribe(user, pro, stripe_id="sub_1", customer="cus_1")
    subscribe(other_user, pro, stripe_id="sub_2", customer="cus_2")
    now = int(time.time())
    stripe_api.add("invoices", _invoice("in_mine", "cus_1", now))
    stripe_api.add("invoices", _invoice("in_theirs", "cus_2", now))
    response = user.get("/subscriptions/invoices/in_mine/pdf-url")
    assert response.status_code == 200 and response.json == {"pdf_url": "https://pay.stripe.test/in_mine/pdf"}
    for invoice_id in ("in_theirs", "in_unknown", "not-an-invoice", UNKNOWN_ID):
        assert error_detail(user.get(f"/subscriptions/invoices/{invoice_id}/pdf-url"), 404) == \
            "Invoice not found or access denied"
    assert error_detail(user.get("/subscriptions/invoices/in_theirs/pdf-url", lang="es"), 404) == \
        "Factura no encontrada o acceso denegado"


# -- account deletion ------------------------------------------------------------------------

def test_an_account_with_a_running_paid_subscription_cannot_be_deleted(stripe_api, user, make_plan, subscribe):
    stripe_api.subscription("sub_1", "cus_1")
    subscribe(user, make_plan("PRO", price_usd=9), stripe_id="sub_1")
    body = {"confirmation_phrase": "delete me", "password": PASSWORD}
    assert error_detail(user.delete("/users/me", json=body), 403) == \
        "Cannot delete account with active paid subscription. Please switch to the free plan first."
    assert error_detail(user.delete("/users/me", json=body, lang="es"), 403).startswith(
        "No se puede eliminar una cuenta con una suscripción de pago activa")
    assert user.post("/subscriptions/cancel").status_code == 200  # ends by itself at the period end
    assert user.delete("/users/me", json=body).status_code == 200
    assert subscription_rows(user.flask_client.application, user.id) == []  # cascaded


def test_a_silent_stripe_is_a_504(stripe_api, configure, user, make_plan, subscribe):
    configure(STRIPE_TIMEOUT=0.3)
    subscribe(user, make_plan("PRO", price_usd=9), stripe_id="sub_1")
    stripe_api.delay("POST", "/v1/subscriptions/sub_1", 1)
    response = user.post("/subscriptions/cancel", lang="es")
    assert error_detail(response, 504) == "El proveedor de pagos no respondió a tiempo"
