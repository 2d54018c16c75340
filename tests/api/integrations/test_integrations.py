"""Administrator integrations: vendors stored encrypted, masked, merged, tested for real, defaults."""
import pytest

from trazo.core.vendors import active_vendor_config
from trazo.extensions import db
from trazo.models.security import IntegrationVendor

from ...helpers import UNKNOWN_ID, error_detail, validation_errors

BASE = "/admin/integrations"
BULLETS = "\u2022" * 12


def _resend_config(resend, **extra):
    return {"api_key": resend.api_key, "from_email": "Trazo <mail@trazo.test>", "api_base": resend.url, **extra}


def _create(admin, vendor_type, category, config, **extra):
    response = admin.post(f"{BASE}/vendors", json={"vendor_type": vendor_type, "category": category,
                                                   "config": config, **extra})
    assert response.status_code == 201, response.json
    return response.json


def _activate(admin, vendor):
    assert admin.post(f"{BASE}/vendors/{vendor['id']}/test").json["success"] is True
    assert admin.put(f"{BASE}/vendors/{vendor['id']}/set-default").status_code == 200


def test_create_answers_field_names_only(app, admin, resend):
    body = _create(admin, "resend", "email", _resend_config(resend, surprise="dropped"), display_name="Mail")
    assert body["vendor_type"] == "resend" and body["category"] == "email" and body["display_name"] == "Mail"
    assert body["config_fields"] == ["api_base", "api_key", "from_email"]
    assert body["is_default"] is False and body["connection_tested"] is False and body["last_test_at"] is None
    assert resend.api_key not in str(body)
    with app.app_context():
        stored = db.session.get(IntegrationVendor, body["id"]).encrypted_config
    assert resend.api_key not in stored and "from_email" not in stored


def test_config_is_returned_masked(admin, resend):
    vendor = _create(admin, "resend", "email", _resend_config(resend))
    body = admin.get(f"{BASE}/vendors/{vendor['id']}/config").json
    assert body["vendor_id"] == vendor["id"]
    assert body["config"]["api_key"] == BULLETS + resend.api_key[-4:]
    assert body["config"]["from_email"] == "Trazo <mail@trazo.test>"
    for path in (f"{BASE}/vendors", f"{BASE}/vendors/{vendor['id']}/config", f"{BASE}/status"):
        assert resend.api_key not in admin.get(path).get_data(as_text=True)


def test_short_secrets_are_fully_hidden(admin):
    vendor = _create(admin, "smtp", "email", {"host": "127.0.0.1", "password": "hunter2", "from_email": "a@b.c"})
    assert admin.get(f"{BASE}/vendors/{vendor['id']}/config").json["config"]["password"] == BULLETS


def test_update_merges_and_resets_the_test(admin, resend):
    vendor = _create(admin, "resend", "email", _resend_config(resend))
    _activate(admin, vendor)
    masked = admin.get(f"{BASE}/vendors/{vendor['id']}/config").json["config"]
    # The browser client sends back only what changed; a masked value sent back changes nothing.
    same = admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {"api_key": masked["api_key"]}})
    assert same.status_code == 200 and same.json["connection_tested"] is True
    renamed = admin.put(f"{BASE}/vendors/{vendor['id']}", json={"display_name": "Resend (main)",
                                                                 "config": {"from_email": "ops@trazo.test"}})
    assert renamed.status_code == 200
    body = renamed.json
    assert body["display_name"] == "Resend (main)" and body["config_fields"] == ["api_base", "api_key", "from_email"]
    assert body["connection_tested"] is False and body["last_test_success"] is None
    config = admin.get(f"{BASE}/vendors/{vendor['id']}/config").json["config"]
    assert config["from_email"] == "ops@trazo.test" and config["api_key"].endswith(resend.api_key[-4:])
    detail = validation_errors(admin.put(f"{BASE}/vendors/{vendor['id']}", json={"config": {"api_key": None}}),
                               "config")
    assert detail[0]["msg"] == "Missing required fields for resend: api_key"


def test_create_validation(admin, resend):
    validation_errors(admin.post(f"{BASE}/vendors", json={"vendor_type": "resend", "category": "sms",
                                                          "config": {}}), "category")
    validation_errors(admin.post(f"{BASE}/vendors", json={"vendor_type": "mailgun", "category": "email",
                                                          "config": {}}), "vendor_type")
    validation_errors(admin.post(f"{BASE}/vendors", json={"vendor_type": "stripe", "category": "email",
                                                          "config": {}}), "category")
    validation_errors(admin.post(f"{BASE}/vendors", json={"vendor_type": "resend", "category": "email"}), "config")
    missing = validation_errors(admin.post(f"{BASE}/vendors", json={
        "vendor_type": "resend", "category": "email", "config": {"api_key": "re_x"}}, lang="es"), "config")
    assert missing[0]["msg"] == "Faltan campos obligatorios para resend: from_email"
    bad_port = validation_errors(admin.post(f"{BASE}/vendors", json={
        "vendor_type": "smtp", "category": "email", "config": {"host": "h", "port": 70000, "from_email": "a@b.c"}}),
        "config")
    assert bad_port[0]["loc"] == ["body", "config", "port"]
    validation_errors(admin.post(f"{BASE}/vendors", json={
        "vendor_type": "google", "category": "oauth",
        "config": {"client_id": "c", "client_secret": "s", "redirect_uri": "javascript:alert(1)"}}), "config")


def test_unknown_category_in_the_list_is_422(admin):
    validation_errors(admin.get(f"{BASE}/vendors", query_string={"category": "sms"}), "category", where="query")


def test_list_by_category(admin, resend, stripe_api):
    email = _create(admin, "resend", "email", _resend_config(resend))
    payment = _create(admin, "stripe", "payment", {"secret_key": stripe_api.secret_key, "publishable_key": "pk_test_1",
                                                   "webhook_secret": "whsec_1", "api_base": stripe_api.url})
    assert [v["id"] for v in admin.get(f"{BASE}/vendors").json] == [email["id"], payment["id"]]
    assert [v["id"] for v in admin.get(f"{BASE}/vendors", query_string={"category": "payment"}).json] == \
        [payment["id"]]


def test_routes_are_for_admins(client, user):
    for method, path in (("GET", f"{BASE}/status"), ("GET", f"{BASE}/vendors"), ("POST", f"{BASE}/vendors"),
                         ("PUT", f"{BASE}/vendors/{UNKNOWN_ID}"), ("DELETE", f"{BASE}/vendors/{UNKNOWN_ID}"),
                         ("GET", f"{BASE}/vendors/{UNKNOWN_ID}/config"), ("POST", f"{BASE}/vendors/{UNKNOWN_ID}/test"),
                         ("PUT", f"{BASE}/vendors/{UNKNOWN_ID}/set-default")):
        assert error_detail(user.request(method, path, json={}), 403) == "Admin access required"
        error_detail(client.request(method, path, json={}), 401)


@pytest.mark.parametrize("vendor_id", [UNKNOWN_ID, "nope", "1" * 200])
def test_unknown_vendors_are_404(admin, vendor_id):
    for method, path in (("PUT", f"{BASE}/vendors/{vendor_id}"), ("DELETE", f"{BASE}/vendors/{vendor_id}"),
                         ("GET", f"{BASE}/vendors/{vendor_id}/config"), ("POST", f"{BASE}/vendors/{vendor_id}/test"),
                         ("PUT", f"{BASE}/vendors/{vendor_id}/set-default")):
        assert error_detail(admin.request(method, path, json={}, lang="es"), 404) == \
            "Configuración de proveedor no encontrada"


def test_resend_test_is_an_authenticated_read(admin, resend):
    vendor = _create(admin, "resend", "email", _resend_config(resend))
    result = admin.post(f"{BASE}/vendors/{vendor['id']}/test").json
    assert result == {"success": True, "message": "Connection to Resend successful", "error_detail": None}
    assert resend.received("GET", "/domains")[0].bearer() == resend.api_key and resend.sent() == []
    bad = _create(admin, "resend", "email", _resend_config(resend, api_key="re_wrong_key_000"))
    failed = admin.post(f"{BASE}/vendors/{bad['id']}/test", lang="es").json
    assert failed["success"] is False and failed["message"] == "La prueba de conexión con Resend ha fallado"
    assert "401" in failed["error_detail"] and "re_wrong_key_000" not in failed["error_detail"]
    listed = {v["id"]: v for v in admin.get(f"{BASE}/vendors").json}
    assert listed[bad["id"]]["connection_tested"] is True and listed[bad["id"]]["last_test_success"] is False
    assert listed[vendor["id"]]["last_test_at"].endswith("+00:00")


def test_smtp_test_talks_to_the_server(admin, smtp_sink):
    good = _create(admin, "smtp", "email", {"host": "127.0.0.1", "port": smtp_sink.port, "from_email": "a@b.c"})
    assert admin.post(f"{BASE}/vendors/{good['id']}/test").json["success"] is True
    closed = _create(admin, "smtp", "email", {"host": "127.0.0.1", "port": "9", "from_email": "a@b.c"})
    assert admin.post(f"{BASE}/vendors/{closed['id']}/test").json["success"] is False


def test_stripe_test_reads_the_balance(admin, stripe_api):
    config = {"secret_key": stripe_api.secret_key, "publishable_key": "pk_test_1", "webhook_secret": "whsec_1",
              "api_base": stripe_api.url}
    good = _create(admin, "stripe", "payment", config)
    assert admin.post(f"{BASE}/vendors/{good['id']}/test").json["success"] is True
    assert stripe_api.received("GET", "/v1/balance")[-1].bearer() == stripe_api.secret_key
    bad = _create(admin, "stripe", "payment", {**config, "secret_key": "sk_test_wrong"})
    assert admin.post(f"{BASE}/vendors/{bad['id']}/test").json["success"] is False


def test_oauth_tests_exercise_the_client_credentials(admin, google_server, github_server):
    google_config = {"client_id": google_server.client_id, "client_secret": google_server.client_secret,
                     "redirect_uri": "http://localhost:5173/oauth/callback", "metadata_url": google_server.metadata_url}
    github_config = {"client_id": github_server.client_id, "client_secret": github_server.client_secret,
                     "redirect_uri": "http://localhost:5173/oauth/callback", "oauth_base": github_server.url,
                     "api_base": github_server.url}
    for vendor_type, config in (("google", google_config), ("github", github_config)):
        good = _create(admin, vendor_type, "oauth", config)
        assert admin.post(f"{BASE}/vendors/{good['id']}/test").json["success"] is True
        bad = _create(admin, vendor_type, "oauth", {**config, "client_secret": "wrong-secret"})
        assert admin.post(f"{BASE}/vendors/{bad['id']}/test").json["success"] is False


def test_set_default_needs_a_passed_test(app, admin, resend):
    vendor = _create(admin, "resend", "email", _resend_config(resend))
    assert error_detail(admin.put(f"{BASE}/vendors/{vendor['id']}/set-default", lang="es"), 400) == \
        "El proveedor debe probarse con éxito primero"
    with app.app_context():
        assert active_vendor_config("email") is None
    _activate(admin, vendor)
    with app.app_context():
        assert active_vendor_config("email") == ("resend", _resend_config(resend))
    second = _create(admin, "resend", "email", _resend_config(resend))
    _activate(admin, second)
    flags = {v["id"]: v["is_default"] for v in admin.get(f"{BASE}/vendors").json}
    assert flags == {vendor["id"]: False, second["id"]: True}


def test_status_and_delete(app, admin, resend, stripe_api):
    assert admin.get(f"{BASE}/status").json == {
        "email": {"configured_count": 0, "default_vendor": None, "has_default": False},
        "payment": {"configured_count": 0, "active_vendor": None, "has_active": False},
        "oauth": {"configured_count": 0, "active_providers": []}}
    first = _create(admin, "resend", "email", _resend_config(resend), display_name="First")
    second = _create(admin, "resend", "email", _resend_config(resend), display_name="Second")
    payment = _create(admin, "stripe", "payment", {"secret_key": stripe_api.secret_key, "publishable_key": "pk_1",
                                                   "webhook_secret": "whsec_1", "api_base": stripe_api.url})
    _activate(admin, first)
    _activate(admin, second)
    _activate(admin, payment)
    status = admin.get(f"{BASE}/status").json
    assert status["email"] == {"configured_count": 2, "default_vendor": "Second", "has_default": True}
    assert status["payment"] == {"configured_count": 1, "active_vendor": "Stripe", "has_active": True}
    with app.app_context():
        vendor_type, config = active_vendor_config("payment")
    assert vendor_type == "stripe" and set(config) >= {"secret_key", "publishable_key", "webhook_secret"}
    deleted = admin.delete(f"{BASE}/vendors/{second['id']}")
    assert deleted.status_code == 200 and deleted.json == {"message": "Vendor deleted successfully"}
    # The other tested vendor of the category takes over.
    assert admin.get(f"{BASE}/status").json["email"]["default_vendor"] == "First"
    error_detail(admin.delete(f"{BASE}/vendors/{second['id']}"), 404)


def test_e_mail_goes_through_the_default_vendor(admin, user, resend, smtp_sink):
    vendor = _create(admin, "resend", "email", _resend_config(resend))
    _activate(admin, vendor)
    smtp_sink.clear()
    response = user.post("/mfa/enable-email", lang="es")
    assert response.status_code == 200
    sent = resend.sent()
    assert len(sent) == 1 and sent[0]["to"] == [user.email] and sent[0]["from"] == "Trazo <mail@trazo.test>"
    assert sent[0]["subject"] == "Tu código de verificación de Trazo" and "<p" in sent[0]["html"]
    assert smtp_sink.to(user.email) == []


def test_e_mail_through_an_smtp_vendor(admin, user, smtp_sink):
    vendor = _create(admin, "smtp", "email", {"host": "127.0.0.1", "port": smtp_sink.port, "starttls": "false",
                                              "from_email": "Vendor <vendor@trazo.test>"})
    _activate(admin, vendor)
    smtp_sink.clear()
    user.post("/mfa/enable-email")
    assert smtp_sink.wait_for(user.email)["from"] == "vendor@trazo.test"
