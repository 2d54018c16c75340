"""A vendor's stored secrets never follow a changed host or URL: the change clears them, so neither
the connection test nor live traffic can send them to the new address."""
import pytest

from ...fakes.base import FakeService, Reply

BASE = "/admin/integrations"


@pytest.fixture
def listener():
    """The "new host" an attacker would point a vendor at: answers 200 to anything, keeps everything."""
    server = FakeService().start()
    for method in ("GET", "POST"):
        for path in ("/v1/balance", "/domains", "/emails", "/.well-known/openid-configuration", "/token",
                     "/applications/github-client/token"):
            server.route(method, path, lambda _request: Reply(200, {"token_endpoint": server.url + "/token"}))
    yield server
    server.stop()


def _everything_received(server):
    return "\n".join(f"{request.method} {request.path} {request.query} {request.headers} {request.body!r}"
                     for request in server.requests)


def _create(admin, vendor_type, category, config):
    response = admin.post(f"{BASE}/vendors", json={"vendor_type": vendor_type, "category": category,
                                                   "config": config})
    assert response.status_code == 201, response.json
    return response.json


def _config(admin, vendor):
    response = admin.get(f"{BASE}/vendors/{vendor['id']}/config")
    assert response.status_code == 200
    return response.json["config"]


def _stripe_config(stripe_api):
    return {"secret_key": stripe_api.secret_key, "publishable_key": "pk_test_publishable_1234",
            "webhook_secret": "whsec_webhook_secret_5678", "api_base": stripe_api.url}


def test_changing_the_stripe_api_base_clears_its_secrets_and_the_test_sends_none(admin, stripe_api, listener):
    vendor = _create(admin, "stripe", "payment", _stripe_config(stripe_api))
    changed = admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {"api_base": listener.url}})
    assert changed.status_code == 200
    assert changed.json["config_fields"] == ["api_base"] and changed.json["is_configured"] is False
    assert _config(admin, vendor) == {"api_base": listener.url}
    result = admin.post(f"{BASE}/vendors/{vendor['id']}/test")
    assert result.status_code == 200
    assert result.json["success"] is False and result.json["message"] == "Connection test failed for Stripe"
    assert "secret_key" in result.json["error_detail"]
    received = _everything_received(listener)
    for secret in (stripe_api.secret_key, "pk_test_publishable_1234", "whsec_webhook_secret_5678"):
        assert secret not in received


def test_changing_the_resend_api_base_clears_the_key(admin, resend, listener):
    vendor = _create(admin, "resend", "email", {"api_key": resend.api_key, "from_email": "a@trazo.test",
                                                "api_base": resend.url})
    masked = _config(admin, vendor)["api_key"]
    # A masked value sent back with the new URL does not keep the old key either.
    admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {"api_base": listener.url, "api_key": masked}})
    assert _config(admin, vendor) == {"api_base": listener.url, "from_email": "a@trazo.test"}
    assert admin.post(f"{BASE}/vendors/{vendor['id']}/test").json["success"] is False
    assert resend.api_key not in _everything_received(listener)


@pytest.mark.parametrize("field", ["metadata_url", "redirect_uri"])
def test_changing_a_google_url_clears_the_client_secret(admin, google_server, listener, field):
    vendor = _create(admin, "google", "oauth", {
        "client_id": google_server.client_id, "client_secret": google_server.client_secret,
        "redirect_uri": "http://localhost:5173/oauth/callback", "metadata_url": google_server.metadata_url})
    new_url = listener.url + ("/.well-known/openid-configuration" if field == "metadata_url" else "/callback")
    assert admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {field: new_url}}).status_code == 200
    assert "client_secret" not in _config(admin, vendor)
    assert admin.post(f"{BASE}/vendors/{vendor['id']}/test").json["success"] is False
    assert google_server.client_secret not in _everything_received(listener)


def test_changing_the_github_api_base_clears_the_client_secret(admin, github_server, listener):
    vendor = _create(admin, "github", "oauth", {
        "client_id": github_server.client_id, "client_secret": github_server.client_secret,
        "redirect_uri": "http://localhost:5173/oauth/callback", "oauth_base": github_server.url,
        "api_base": github_server.url})
    admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {"api_base": listener.url}})
    config = _config(admin, vendor)
    assert "client_secret" not in config and config["client_id"] == github_server.client_id
    assert admin.post(f"{BASE}/vendors/{vendor['id']}/test").json["success"] is False
    received = _everything_received(listener)
    assert github_server.client_secret not in received and "Basic" not in received


def test_changing_the_smtp_host_clears_the_password(admin, smtp_sink):
    vendor = _create(admin, "smtp", "email", {"host": "127.0.0.1", "port": smtp_sink.port, "username": "mailer",
                                              "password": "smtp-password-9876", "from_email": "a@trazo.test"})
    admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {"host": "localhost"}})
    assert _config(admin, vendor) == {"host": "localhost", "port": smtp_sink.port, "username": "mailer",
                                      "from_email": "a@trazo.test"}


def test_a_new_url_sent_with_a_new_secret_keeps_that_secret(admin, stripe_api, listener):
    vendor = _create(admin, "stripe", "payment", _stripe_config(stripe_api))
    response = admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {
        "api_base": listener.url, "secret_key": "sk_test_entered_for_the_new_host"}})
    assert response.status_code == 200 and response.json["config_fields"] == ["api_base", "secret_key"]
    assert _config(admin, vendor) == {"api_base": listener.url, "secret_key": "\u2022" * 12 + "host"}
    # The secrets entered for the old host stay behind.
    received = _everything_received(listener)
    assert "pk_test_publishable_1234" not in received and "whsec_webhook_secret_5678" not in received


def test_other_changes_keep_the_secrets(admin, stripe_api):
    vendor = _create(admin, "stripe", "payment", _stripe_config(stripe_api))
    same_url = admin.put(f"{BASE}/vendors/{vendor['id']}", json={"display_name": "Stripe EU", "config": {
        "api_base": stripe_api.url, "publishable_key": "pk_test_publishable_0000"}})
    assert same_url.status_code == 200 and same_url.json["is_configured"] is True
    assert set(_config(admin, vendor)) == {"api_base", "secret_key", "publishable_key", "webhook_secret"}
    assert admin.post(f"{BASE}/vendors/{vendor['id']}/test").json["success"] is True


def test_an_active_e_mail_vendor_pointed_elsewhere_stops_being_used(admin, user, resend, listener, smtp_sink):
    vendor = _create(admin, "resend", "email", {"api_key": resend.api_key, "from_email": "a@trazo.test",
                                                "api_base": resend.url})
    assert admin.post(f"{BASE}/vendors/{vendor['id']}/test").json["success"] is True
    assert admin.put(f"{BASE}/vendors/{vendor['id']}/set-default").status_code == 200
    changed = admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {"api_base": listener.url}})
    assert changed.status_code == 200 and changed.json["is_default"] is False
    assert admin.get(f"{BASE}/status").json["email"] == {"configured_count": 1, "default_vendor": None,
                                                         "has_default": False}
    smtp_sink.clear()
    response = user.post("/mfa/enable-email")
    assert response.status_code == 200
    assert listener.requests == [] and smtp_sink.wait_for(user.email)
    # Entering the key again (and testing it) is what brings the vendor back.
    assert admin.put(f"{BASE}/vendors/{vendor['id']}/set-default").status_code == 400


def test_an_active_payment_vendor_pointed_elsewhere_leaves_billing_unconfigured(admin, user, stripe_api, listener):
    vendor = _create(admin, "stripe", "payment", _stripe_config(stripe_api))
    assert admin.post(f"{BASE}/vendors/{vendor['id']}/test").json["success"] is True
    assert admin.put(f"{BASE}/vendors/{vendor['id']}/set-default").status_code == 200
    admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {"api_base": listener.url}})
    response = user.post("/subscriptions/update-payment-method")
    assert response.status_code == 503 and response.json == {"detail": "Billing service not configured"}
    assert listener.requests == []
