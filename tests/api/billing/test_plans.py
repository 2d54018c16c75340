"""Plans (SEED §4.9): the public catalog, its administration, and the sync with Stripe."""
import pytest

from ...helpers import UNKNOWN_ID, error_detail, validation_errors

PLAN_FIELDS = {"id", "name", "code", "description", "price_usd", "max_projects", "max_diagrams", "max_storage_mb",
               "max_revisions_per_diagram", "max_labelled_revisions_per_diagram", "max_members",
               "is_active", "is_free", "prices", "created_at", "updated_at"}


def _free(plans):
    return next(plan for plan in plans if plan["code"] == "FREE")


# -- public catalog ---------------------------------------------------------------------

def test_catalog_starts_with_the_free_plan_from_the_settings(client, configure):
    configure(FREE_PLAN_MAX_PROJECTS=2, FREE_PLAN_MAX_DIAGRAMS=5)
    response = client.get("/plans")
    assert response.status_code == 200
    (free,) = response.json
    assert set(free) == PLAN_FIELDS  # no subscriber counts or gateway ids in public
    assert free["code"] == "FREE" and free["is_free"] is True and free["price_usd"] == 0
    assert (free["max_projects"], free["max_diagrams"]) == (2, 5)
    assert client.get("/plans").json == [free]  # created once


def test_free_plan_is_unlimited_by_default(client):
    free = _free(client.get("/plans").json)
    assert free["max_projects"] is None and free["max_diagrams"] is None


def test_catalog_lists_active_plans_cheapest_first(client, make_plan, admin):
    make_plan("TEAM", price_usd=29)
    pro = make_plan("PRO", price_usd=9.5, prices={"eur": 9, "MXN": 180})
    hidden = make_plan("OLD", price_usd=1, is_active=False)
    plans = client.get("/plans").json
    assert [plan["code"] for plan in plans] == ["FREE", "PRO", "TEAM"]
    assert plans[1]["prices"] == {"eur": 9.0, "mxn": 180.0, "usd": 9.5}
    assert client.get(f"/plans/{pro['id']}").json["name"] == "Pro"
    assert client.get(f"/plans/{hidden['id']}").json["is_active"] is False


@pytest.mark.parametrize("plan_id", [UNKNOWN_ID, "not-a-uuid", "x" * 300])
def test_unknown_plan_is_404_in_both_languages(client, plan_id):
    assert error_detail(client.get(f"/plans/{plan_id}"), 404) == "Plan not found"
    assert error_detail(client.get(f"/plans/{plan_id}", lang="es"), 404) == "Plan no encontrado"


# -- administration without Stripe --------------------------------------------------------

def test_admin_routes_need_a_token_and_an_admin(client, user):
    plan_id = _free(client.get("/plans").json)["id"]
    for method, path in (("GET", "/admin/plans"), ("POST", "/admin/plans"), ("PUT", f"/admin/plans/{plan_id}"),
                         ("DELETE", f"/admin/plans/{plan_id}"), ("POST", f"/admin/plans/{plan_id}/prices"),
                         ("DELETE", f"/admin/plans/{plan_id}/prices/eur")):
        assert error_detail(client.request(method, path, json={}), 401) == "Not authenticated"
        assert error_detail(user.request(method, path, json={}), 403) == "Admin access required"
    assert error_detail(user.get("/admin/plans", lang="es"), 403) == "Acceso restringido a administradores"


def test_admin_creates_a_paid_plan_locally_without_stripe(admin, user, subscribe):
    response = admin.post("/admin/plans", json={
        "name": "Pro", "code": "pro", "description": "For teams", "price_usd": "12.345", "max_projects": -1,
        "max_diagrams": 100, "prices": {"EUR": 11}, "is_free": True, "active_subscriptions": 7})
    assert response.status_code == 201, response.json
    plan = response.json
    assert plan["code"] == "PRO" and plan["price_usd"] == 12.35 and plan["prices"] == {"eur": 11.0, "usd": 12.35}
    assert plan["max_projects"] is None and plan["max_diagrams"] == 100 and plan["is_free"] is False
    assert plan["active_subscriptions"] == 0
    assert plan["gateway_config"] == {"provider": None, "external_product_id": None, "external_price_id": None}
    subscribe(user, plan)
    listed = {item["code"]: item for item in admin.get("/admin/plans").json}
    assert listed["PRO"]["active_subscriptions"] == 1
    assert listed["FREE"]["active_subscriptions"] == 0  # the only non-admin user is on PRO


@pytest.mark.parametrize("body, field", [
    ({"code": "X", "price_usd": 1}, "name"),
    ({"name": "X", "price_usd": 1}, "code"),
    ({"name": "X", "code": "X"}, "price_usd"),
    ({"name": " ", "code": "X", "price_usd": 1}, "name"),
    ({"name": "X" * 51, "code": "X", "price_usd": 1}, "name"),
    ({"name": "X", "code": "BAD CODE", "price_usd": 1}, "code"),
    ({"name": "X", "code": "X", "price_usd": -1}, "price_usd"),
    ({"name": "X", "code": "X", "price_usd": "NaN"}, "price_usd"),
    ({"name": "X", "code": "X", "price_usd": 1, "max_projects": -2}, "max_projects"),
    ({"name": "X", "code": "X", "price_usd": 1, "max_diagrams": 1.5}, "max_diagrams"),
    ({"name": "X", "code": "X", "price_usd": 1, "prices": {"euro": 1}}, "prices"),
    ({"name": "X", "code": "X", "price_usd": 1, "prices": {"eur": 0}}, "prices"),
])
def test_create_plan_validates_the_body(admin, body, field):
    validation_errors(admin.post("/admin/plans", json=body), field)


def test_create_plan_business_rules(admin, make_plan):
    make_plan("PRO", name="Pro")
    cases = [
        ({"name": "pro", "code": "OTHER", "price_usd": 1}, "Plan with name 'pro' already exists"),
        ({"name": "Other", "code": "PRO", "price_usd": 1}, "Plan with code 'PRO' already exists"),
        ({"name": "Gratis", "code": "FREE", "price_usd": 0}, "The FREE code is reserved for the free plan"),
        ({"name": "Odd", "code": "ODD", "price_usd": 0, "prices": {"eur": 2}},
         "Set a USD price on the plan before adding other currencies"),
        ({"name": "Yen", "code": "YEN", "price_usd": 1, "prices": {"jpy": 100}},
         "Unsupported currency: JPY. Supported currencies: USD, EUR, GBP, MXN, BRL"),
    ]
    for body, message in cases:
        assert error_detail(admin.post("/admin/plans", json=body), 400) == message
    spanish = admin.post("/admin/plans", json=cases[1][0], lang="es")
    assert error_detail(spanish, 400) == "Ya existe un plan con el código 'PRO'"


def test_update_plan_changes_only_what_is_sent(admin, make_plan):
    plan = make_plan("PRO", price_usd=5, max_projects=3, description="old")
    response = admin.put(f"/admin/plans/{plan['id']}", json={"description": None, "max_diagrams": 40,
                                                              "prices": {"gbp": 4.5}})
    assert response.status_code == 200, response.json
    updated = response.json
    assert updated["description"] is None and updated["max_projects"] == 3 and updated["max_diagrams"] == 40
    assert updated["prices"] == {"gbp": 4.5, "usd": 5.0} and updated["updated_at"] >= plan["updated_at"]
    validation_errors(admin.put(f"/admin/plans/{plan['id']}", json={"name": None}), "name")
    assert error_detail(admin.put(f"/admin/plans/{UNKNOWN_ID}", json={}), 404) == "Plan not found"


def test_free_plan_is_editable_but_stays_free(admin, client):
    free = _free(client.get("/plans").json)
    path = f"/admin/plans/{free['id']}"
    response = admin.put(path, json={"max_projects": 3, "max_diagrams": 30, "name": "Starter"})
    assert response.status_code == 200 and response.json["max_projects"] == 3
    assert error_detail(admin.put(path, json={"code": "BASIC"}), 400) == "The code of the FREE plan cannot be changed"
    assert error_detail(admin.put(path, json={"is_active": False}), 400) == "The FREE plan cannot be deactivated"
    assert error_detail(admin.put(path, json={"price_usd": 1}), 400) == "The FREE plan must stay free"
    assert error_detail(admin.delete(path), 400) == "The FREE plan cannot be deleted"
    assert error_detail(admin.post(f"/admin/plans/{free['id']}/prices", json={"currency": "eur", "amount": 1}),
                        400) == "Set a USD price on the plan before adding other currencies"


def test_price_of_a_plan_with_subscribers_cannot_change(admin, user, make_plan, subscribe):
    plan = make_plan("PRO", price_usd=5)
    subscribe(user, plan, stripe_id="sub_1")
    response = admin.put(f"/admin/plans/{plan['id']}", json={"price_usd": 6})
    assert error_detail(response, 400) == "Cannot change the price of a plan with active subscriptions"
    assert admin.put(f"/admin/plans/{plan['id']}", json={"max_projects": 9}).status_code == 200


def test_delete_plan_without_subscriptions_removes_it(admin, client, make_plan):
    plan = make_plan("PRO")
    response = admin.delete(f"/admin/plans/{plan['id']}")
    assert response.status_code == 200
    assert response.json == {"message": "Plan deleted successfully", "plan_id": plan["id"], "deleted": True}
    assert error_detail(client.get(f"/plans/{plan['id']}"), 404) == "Plan not found"
    assert error_detail(admin.delete(f"/admin/plans/{plan['id']}"), 404) == "Plan not found"


def test_delete_plan_with_subscriptions_deactivates_it(admin, user, other_user, make_plan, subscribe):
    plan = make_plan("PRO")
    subscribe(user, plan, stripe_id="sub_1")
    subscribe(other_user, plan, status="cancelled")
    response = admin.delete(f"/admin/plans/{plan['id']}", lang="es")
    assert response.json == {"message": "Plan desactivado correctamente", "plan_id": plan["id"],
                             "active_subscriptions_maintained": 1}
    assert user.get("/subscriptions/me").json["plan"]["code"] == "PRO"
    assert [p["code"] for p in user.get("/plans").json] == ["FREE"]


def test_prices_per_currency(admin, make_plan):
    plan = make_plan("PRO", price_usd=10)
    path = f"/admin/plans/{plan['id']}/prices"
    response = admin.post(path, json={"currency": "EUR", "amount": "9.50"})
    assert response.status_code == 201 and response.json["prices"] == {"eur": 9.5, "usd": 10.0}
    assert error_detail(admin.post(path, json={"currency": "eur", "amount": 9}), 400) == \
        "The plan already has a price in EUR"
    assert error_detail(admin.post(path, json={"currency": "usd", "amount": 9}), 400) == \
        "The USD price is managed through the plan edit flow"
    assert error_detail(admin.post(path, json={"currency": "xyz", "amount": 9}), 400).startswith(
        "Unsupported currency: XYZ")
    validation_errors(admin.post(path, json={"currency": "euro", "amount": 9}), "currency")
    validation_errors(admin.post(path, json={"currency": "gbp", "amount": 0}), "amount")
    assert error_detail(admin.post(f"/admin/plans/{UNKNOWN_ID}/prices", json={"currency": "gbp", "amount": 1}),
                        404) == "Plan not found"
    removed = admin.delete(f"{path}/EUR")
    assert removed.status_code == 200 and removed.json["prices"] == {"usd": 10.0}
    assert error_detail(admin.delete(f"{path}/eur"), 404) == "The plan has no price in EUR"
    assert error_detail(admin.delete(f"{path}/usd"), 400) == \
        "The USD price is managed through the plan edit flow"


# -- administration with Stripe --------------------------------------------------------------

def test_paid_plan_is_created_at_stripe_first(stripe_api, make_plan):
    plan = make_plan("PRO", name="Pro", description="Everything", price_usd=12.5, prices={"eur": 11})
    (product,) = stripe_api.requests_to("POST", "/v1/products")
    (price,) = stripe_api.requests_to("POST", "/v1/prices")
    assert product["form"]["name"] == "Pro" and product["form"]["metadata"]["plan_id"] == plan["id"]
    assert product["key"] == "Bearer sk_test_trazo"
    assert price["form"]["unit_amount"] == 1250 and price["form"]["currency"] == "usd"
    assert price["form"]["recurring"] == {"interval": "month"}
    assert price["form"]["currency_options"] == {"eur": {"unit_amount": 1100}}
    config = plan["gateway_config"]
    assert config["provider"] == "stripe" and config["external_product_id"].startswith("prod_")
    assert config["external_price_id"].startswith("price_")


def test_stripe_failure_leaves_no_half_created_plan(stripe_api, admin, client):
    stripe_api.fail("POST", "/v1/products", status=500, message="Something went wrong")
    response = admin.post("/admin/plans", json={"name": "Pro", "code": "PRO", "price_usd": 5})
    assert error_detail(response, 502) == "Payment provider (stripe) error: Something went wrong"
    assert [plan["code"] for plan in client.get("/plans").json] == ["FREE"]


def test_price_changes_replace_the_stripe_price(stripe_api, admin, make_plan):
    plan = make_plan("PRO", price_usd=10)
    old_price = plan["gateway_config"]["external_price_id"]
    added = admin.post(f"/admin/plans/{plan['id']}/prices", json={"currency": "brl", "amount": 50}).json
    new_price = added["gateway_config"]["external_price_id"]
    assert new_price != old_price
    assert stripe_api.requests_to("POST", f"/v1/prices/{old_price}")[0]["form"] == {"active": False}
    assert stripe_api.requests_to("POST", "/v1/prices")[-1]["form"]["currency_options"] == \
        {"brl": {"unit_amount": 5000}}
    renamed = admin.put(f"/admin/plans/{plan['id']}", json={"name": "Professional"}).json
    assert renamed["gateway_config"]["external_price_id"] == new_price  # no new price for a rename
    update = stripe_api.requests_to("POST", f"/v1/products/{plan['gateway_config']['external_product_id']}")
    assert update[-1]["form"]["name"] == "Professional"


def test_deleting_a_synced_plan_archives_its_product(stripe_api, admin, make_plan):
    plan = make_plan("PRO")
    product = plan["gateway_config"]["external_product_id"]
    assert admin.delete(f"/admin/plans/{plan['id']}").json["deleted"] is True
    assert stripe_api.requests_to("POST", f"/v1/products/{product}")[-1]["form"]["active"] is False


def test_payment_vendor_credentials_win_over_the_settings(stripe_api, admin, configure, make_plan):
    stripe_api.keys.add("sk_test_vendor")
    configure(STRIPE_SECRET_KEY="sk_test_unused_by_billing")
    vendor = admin.post("/admin/integrations/vendors", json={
        "vendor_type": "stripe", "category": "payment", "display_name": "Stripe",
        "config": {"secret_key": "sk_test_vendor", "publishable_key": "pk_test_vendor",
                   "webhook_secret": "whsec_vendor", "api_base": stripe_api.url}})
    assert vendor.status_code == 201, vendor.json
    assert admin.post(f"/admin/integrations/vendors/{vendor.json['id']}/test").json["success"] is True
    assert admin.put(f"/admin/integrations/vendors/{vendor.json['id']}/set-default").status_code == 200
    make_plan("PRO")
    assert stripe_api.requests_to("POST", "/v1/products")[-1]["key"] == "Bearer sk_test_vendor"
