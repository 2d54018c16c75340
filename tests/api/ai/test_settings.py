"""AI settings and provider entries: /ai/settings, /ai/providers, /ai/test-provider."""
from sqlalchemy import select

from trazo.core import crypto
from trazo.extensions import db
from trazo.models.ai import AIProvider, AISettings

from ...helpers import PASSWORD, add_provider, error_detail, validation_errors

KEY = "sk-test-0123456789"


def test_settings_start_empty_with_auto_fix_on(user):
    response = user.get("/ai/settings")
    assert response.status_code == 200
    body = response.json
    assert body["user_id"] == user.id and body["providers"] == [] and body["default_provider"] is None
    assert body["auto_fix_generated"] is True and body["auto_generate_on_save"] is False
    assert body["created_at"].endswith("+00:00")


def test_every_settings_route_needs_a_token(client):
    for method, path in [("get", "/ai/settings"), ("put", "/ai/settings/default-provider"),
                         ("put", "/ai/settings/auto-fix"), ("post", "/ai/providers"), ("put", "/ai/providers/0"),
                         ("delete", "/ai/providers/0"), ("post", "/ai/test-provider")]:
        response = getattr(client, method)(path, json={})
        assert error_detail(response, 401) == "Not authenticated", path


def test_adding_a_provider_checks_the_key_and_masks_it(user, fake_providers):
    response = user.post("/ai/providers", json={"provider": "openai", "api_key": KEY, "display_name": "Work"})
    assert response.status_code == 201
    [entry] = response.json["providers"]
    assert entry["api_key"] == "sk-t...789" and entry["model"] == "gpt-6-luna"
    assert entry["is_default"] is True and entry["is_active"] is True and entry["index"] == 0
    assert entry["display_name"] == "Work" and entry["parameters"] == {} and entry["base_url"] is None
    assert response.json["default_provider"] == "openai"
    probe = fake_providers.openai.last
    assert probe["path"] == "/openai/v1/chat/completions"
    assert probe["headers"]["Authorization"] == f"Bearer {KEY}"
    assert probe["json"]["messages"][-1] == {"role": "user", "content": "OK"}


def test_keys_are_encrypted_at_rest(app, user, fake_providers):
    add_provider(user, "claude", api_key="sk-ant-secret-value-1")
    with app.app_context():
        stored = db.session.scalar(select(AIProvider))
        assert "sk-ant-secret" not in stored.api_key_encrypted
        assert crypto.decrypt(stored.api_key_encrypted) == "sk-ant-secret-value-1"


def test_a_rejected_key_is_not_saved(user, fake_providers):
    fake_providers.anthropic.reply(status=401, error="invalid x-api-key")
    response = user.post("/ai/providers", json={"provider": "claude", "api_key": KEY}, lang="es")
    assert error_detail(response, 400, error_code="invalid_key") == \
        "Anthropic Claude rechazó la clave API. Revisa la clave en tus ajustes de IA."
    assert user.get("/ai/settings").json["providers"] == []
    fake_providers.gemini.reply(status=429, error="quota", headers={"Retry-After": "9"})
    response = user.post("/ai/providers", json={"provider": "gemini", "api_key": KEY})
    assert error_detail(response, 429, error_code="rate_limited")
    assert response.headers["Retry-After"] == "9"


def test_provider_input_is_validated(user, fake_providers):
    cases = [({"api_key": KEY}, "provider"), ({"provider": "skynet", "api_key": KEY}, "provider"),
             ({"provider": "openai", "api_key": "short"}, "api_key"), ({"provider": "openai"}, "api_key"),
             ({"provider": "ollama", "model": "llama3"}, "base_url"),
             ({"provider": "ollama", "base_url": "ftp://host/v1", "model": "llama3"}, "base_url"),
             ({"provider": "openai_compatible", "base_url": "http://127.0.0.1:1/v1"}, "model"),
             ({"provider": "openai", "api_key": KEY, "parameters": {"temperature": 5}}, "parameters"),
             ({"provider": "openai", "api_key": KEY, "is_default": "maybe"}, "is_default")]
    for body, field in cases:
        validation_errors(user.post("/ai/providers", json=body), field)
    assert fake_providers.openai.requests == []


def test_self_hosted_providers_keep_their_server(user, fake_providers):
    base_url = fake_providers.openai.url.replace("/v1", "/ollama/v1")
    body = add_provider(user, "ollama", api_key="", base_url=base_url + "/", model="llama3")
    [entry] = body["providers"]
    assert entry["base_url"] == base_url and entry["api_key"] == "" and entry["model"] == "llama3"
    assert fake_providers.openai.last["path"] == "/ollama/v1/chat/completions"


def test_cloud_providers_ignore_a_base_url(user, fake_providers):
    body = add_provider(user, "deepseek", base_url="http://10.0.0.1/v1")
    assert body["providers"][0]["base_url"] is None
    assert fake_providers.openai.last["path"] == "/deepseek/v1/chat/completions"


def test_the_default_moves_with_is_default_and_with_deletion(user, fake_providers):
    add_provider(user, "openai")
    body = add_provider(user, "claude", is_default=True)
    assert [p["is_default"] for p in body["providers"]] == [False, True] and body["default_provider"] == "claude"
    body = user.put("/ai/settings/default-provider", json={"provider": "openai"}).json
    assert [p["is_default"] for p in body["providers"]] == [True, False] and body["default_provider"] == "openai"
    response = user.delete("/ai/providers/0")
    assert response.status_code == 200
    assert [(p["provider"], p["is_default"], p["index"]) for p in response.json["providers"]] == [("claude", True, 0)]
    body = user.delete("/ai/providers/0").json
    assert body["providers"] == [] and body["default_provider"] is None


def test_updating_without_a_new_key_does_not_call_the_provider(user, fake_providers):
    add_provider(user, "openai")
    fake_providers.reset()
    response = user.put("/ai/providers/0", json={"display_name": "Team", "is_active": False,
                                                 "parameters": {"max_tokens": 2000}, "model": ""})
    assert response.status_code == 200
    entry = response.json["providers"][0]
    assert (entry["display_name"], entry["is_active"], entry["parameters"]) == ("Team", False, {"max_tokens": 2000})
    assert entry["model"] == "openai-model" and fake_providers.openai.requests == []


def test_a_new_key_or_model_is_checked_before_it_is_saved(user, fake_providers):
    add_provider(user, "gemini")
    response = user.put("/ai/providers/0", json={"api_key": "AIza-new-key-123", "model": "gemini-x"})
    assert response.status_code == 200
    assert response.json["providers"][0]["api_key"] == "AIza...123"
    assert fake_providers.gemini.last["path"] == "/v1beta/models/gemini-x:generateContent"
    assert fake_providers.gemini.last["headers"]["x-goog-api-key"] == "AIza-new-key-123"
    fake_providers.gemini.reply(status=404, error="models/gone is not found")
    response = user.put("/ai/providers/0", json={"model": "gone"})
    assert error_detail(response, 400, error_code="model_unavailable")
    assert user.get("/ai/settings").json["providers"][0]["model"] == "gemini-x"


def test_provider_index_out_of_range_is_404(user, other_user, fake_providers):
    add_provider(other_user, "openai")
    for index in ("0", "1", "-1", "abc", "99999999999"):
        assert error_detail(user.put(f"/ai/providers/{index}", json={"display_name": "x"}), 404)
        assert error_detail(user.delete(f"/ai/providers/{index}"), 404)
    add_provider(user, "openai")
    assert error_detail(user.delete("/ai/providers/1", lang="es"), 404) == "Proveedor en el índice 1 no encontrado"
    assert error_detail(user.delete("/ai/providers/1"), 404) == "Provider at index 1 not found"
    assert len(other_user.get("/ai/settings").json["providers"]) == 1


def test_update_input_is_validated(user, fake_providers):
    add_provider(user, "openai")
    validation_errors(user.put("/ai/providers/0", json={"api_key": "short"}), "api_key")
    validation_errors(user.put("/ai/providers/0", json={"is_active": None}), "is_active")
    validation_errors(user.put("/ai/providers/0", json={"parameters": {"top_p": 3}}), "parameters")


def test_default_provider_must_be_configured(user, fake_providers):
    detail = error_detail(user.put("/ai/settings/default-provider", json={"provider": "claude"}, lang="es"), 404)
    assert detail == "El proveedor claude no está configurado"
    validation_errors(user.put("/ai/settings/default-provider", json={"provider": "hal9000"}), "provider")
    validation_errors(user.put("/ai/settings/default-provider", json={}), "provider")


def test_auto_fix_switch(user):
    response = user.put("/ai/settings/auto-fix", json={"enabled": False})
    assert response.status_code == 200 and response.json["auto_fix_generated"] is False
    assert user.get("/ai/settings").json["auto_fix_generated"] is False
    validation_errors(user.put("/ai/settings/auto-fix", json={}), "enabled")
    validation_errors(user.put("/ai/settings/auto-fix", json={"enabled": "perhaps"}), "enabled")


def test_test_provider_reports_without_saving(user, fake_providers):
    response = user.post("/ai/test-provider", json={"provider": "minimax", "api_key": KEY, "model": "M-1"})
    assert response.status_code == 200
    assert response.json == {"valid": True, "message": "API key is valid", "provider_name": "minimax",
                             "error_code": None}
    assert fake_providers.openai.last["path"] == "/minimax/v1/chat/completions"
    assert user.get("/ai/settings").json["providers"] == []
    for status, code in ((401, "invalid_key"), (402, "no_credits"), (429, "rate_limited"), (404, "model_unavailable"),
                         (500, "provider_error")):
        fake_providers.anthropic.reply(status=status, error="nope")
        response = user.post("/ai/test-provider", json={"provider": "claude", "api_key": KEY})
        assert response.status_code == 200 and response.json["valid"] is False
        assert response.json["error_code"] == code and response.json["provider_name"] == "claude"


def test_test_provider_reports_a_timeout_as_a_provider_error(app, user, fake_providers):
    app.config["AI_TIMEOUT"] = 1
    fake_providers.openai.reply(delay=1.5)
    response = user.post("/ai/test-provider", json={"provider": "openai", "api_key": KEY}, lang="es")
    assert response.json["error_code"] == "provider_error"
    assert response.json["message"] == "OpenAI no respondió a tiempo. Inténtalo de nuevo más tarde."
    validation_errors(user.post("/ai/test-provider", json={"api_key": KEY}), "provider")
    validation_errors(user.post("/ai/test-provider", json={"provider": "openai"}), "api_key")


def test_calls_to_providers_are_rate_limited_per_user(app, user, other_user, fake_providers):
    app.config["RATE_LIMIT_AI"] = "2/minute"
    try:
        for _ in range(2):
            assert user.post("/ai/test-provider", json={"provider": "openai", "api_key": KEY}).status_code == 200
        response = user.post("/ai/test-provider", json={"provider": "openai", "api_key": KEY})
        assert error_detail(response, 429) and int(response.headers["Retry-After"]) > 0
        assert other_user.post("/ai/test-provider", json={"provider": "openai", "api_key": KEY}).status_code == 200
    finally:
        app.config["RATE_LIMIT_AI"] = "30/minute"


def test_deleting_the_account_removes_the_ai_settings(app, user, fake_providers):
    add_provider(user, "openai")
    response = user.delete("/users/me", json={"confirmation_phrase": "delete me", "password": PASSWORD})
    assert response.status_code == 200
    with app.app_context():
        assert db.session.scalar(select(AIProvider)) is None and db.session.scalar(select(AISettings)) is None
