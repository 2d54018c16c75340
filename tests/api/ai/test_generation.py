"""Stateless generation routes: generate/improve a diagram, generate/refine a description."""
import pytest

from ...helpers import add_provider, error_detail, validation_errors

MERMAID = "flowchart TD\n  A[\"Start\"] --> B[\"End\"]"
FENCED = f"Sure!\n```mermaid\n{MERMAID}\n```\nDone."
GENERATE = {"description": "A two step flow from start to end", "diagram_type": "mermaid"}
IMPROVE = {"diagram_code": "flowchart TD\n  A --> B", "improvement_request": "Add labels", "diagram_type": "mermaid"}
DESCRIBE = {"diagram_code": MERMAID, "diagram_type": "mermaid"}
REFINE = {**DESCRIBE, "current_description": "## Overview\nA flow.", "refinement_request": "Shorter"}
ROUTES = [("/ai/generate-diagram", GENERATE), ("/ai/improve-diagram", IMPROVE),
          ("/ai/generate-description", DESCRIBE), ("/ai/refine-description", REFINE)]


def test_generate_diagram_returns_the_extracted_code(with_provider, fake_providers):
    fake_providers.openai.reply(text=f"<think>planning</think>{FENCED}")
    response = with_provider.post("/ai/generate-diagram", json={**GENERATE, "language": "es"})
    assert response.status_code == 200
    body = response.json
    assert body["diagram_code"] == MERMAID
    assert (body["provider_used"], body["model_used"]) == ("openai", "gpt-test")
    assert isinstance(body["generation_time"], float) and body["generation_time"] >= 0
    sent = fake_providers.openai.last["json"]
    assert sent["model"] == "gpt-test" and sent["max_completion_tokens"] == 8192 and sent["temperature"] == 0.2
    system, request = sent["messages"][0]["content"], sent["messages"][1]["content"]
    assert "MERMAID RULES" in system and "in Spanish" in system
    assert request.endswith(GENERATE["description"])


@pytest.mark.parametrize(("headers", "language"), [({"lang": "es-ES,en;q=0.1"}, "Spanish"), ({}, "English")])
def test_content_language_falls_back_to_accept_language(with_provider, fake_providers, headers, language):
    fake_providers.openai.reply(text=FENCED)
    assert with_provider.post("/ai/generate-diagram", json=GENERATE, **headers).status_code == 200
    assert f"in {language}" in fake_providers.openai.last["json"]["messages"][0]["content"]


def test_code_failing_the_syntax_check_is_repaired_once(with_provider, fake_providers):
    fake_providers.openai.reply(text="```mermaid\nA --> B\n```")
    fake_providers.openai.reply(text=FENCED)
    response = with_provider.post("/ai/generate-diagram", json=GENERATE)
    assert response.json["diagram_code"] == MERMAID
    retry = fake_providers.openai.requests[1]["json"]["messages"]
    assert [turn["role"] for turn in retry] == ["system", "user", "assistant", "user"]
    assert "must start with its type" in retry[-1]["content"]


def test_without_auto_fix_the_first_answer_stands(with_provider, fake_providers):
    with_provider.put("/ai/settings/auto-fix", json={"enabled": False})
    fake_providers.openai.reply(text="```mermaid\nA --> B\n```")
    response = with_provider.post("/ai/generate-diagram", json=GENERATE)
    assert response.json["diagram_code"] == "A --> B" and len(fake_providers.openai.requests) == 1


def test_improve_diagram_sends_the_current_code(with_provider, fake_providers):
    fake_providers.openai.reply(text=FENCED)
    response = with_provider.post("/ai/improve-diagram", json=IMPROVE)
    assert response.status_code == 200
    assert response.json["diagram_code"] == MERMAID
    assert response.json["original_code"] == IMPROVE["diagram_code"]
    assert response.json["improvement_applied"] == "Add labels"
    request = fake_providers.openai.last["json"]["messages"][1]["content"]
    assert "```mermaid\nflowchart TD\n  A --> B\n```" in request and "Add labels" in request


def test_generate_description_is_cleaned_markdown(with_provider, fake_providers):
    fake_providers.openai.reply(text="<think>hmm</think>```markdown\n## Overview\nA **flow**.\n```")
    response = with_provider.post("/ai/generate-description", json={**DESCRIBE, "language": "en"})
    assert response.status_code == 200
    assert response.json["description"] == "## Overview\nA **flow**."
    assert response.json["tokens_used"] == 18 and response.json["provider_used"] == "openai"
    sent = fake_providers.openai.last["json"]
    assert "temperature" not in sent and "in English" in sent["messages"][1]["content"]


def test_refine_description_sends_the_current_text(with_provider, fake_providers):
    fake_providers.openai.reply(text="## Overview\nShort.")
    response = with_provider.post("/ai/refine-description", json=REFINE, lang="es")
    assert response.status_code == 200 and response.json["description"] == "## Overview\nShort."
    request = fake_providers.openai.last["json"]["messages"][1]["content"]
    assert "## Overview\nA flow." in request and "Shorter" in request and "in Spanish" in request


@pytest.mark.parametrize(("path", "body"), ROUTES)
def test_generation_routes_need_a_token(client, path, body):
    assert error_detail(client.post(path, json=body), 401) == "Not authenticated"


@pytest.mark.parametrize(("path", "body"), ROUTES)
def test_generation_needs_a_configured_provider(user, path, body):
    detail = error_detail(user.post(path, json=body, lang="es"), 404)
    assert detail.startswith("No hay ningún proveedor de IA activo.")
    assert error_detail(user.post(path, json=body), 404).startswith("No active AI provider configured")


@pytest.mark.parametrize(("path", "body"), ROUTES)
def test_provider_index_out_of_range_is_404(with_provider, other_user, fake_providers, path, body):
    for index in (1, -1):
        assert error_detail(with_provider.post(path, json={**body, "provider_index": index}), 404)
    add_provider(other_user, "claude")
    assert error_detail(other_user.post(path, json={**body, "provider_index": 1}), 404)
    assert fake_providers.openai.requests == []


def test_the_provider_can_be_chosen_by_index_or_type(with_provider, fake_providers):
    add_provider(with_provider, "claude", model="claude-test")
    fake_providers.anthropic.reply(text=FENCED)
    response = with_provider.post("/ai/generate-diagram", json={**GENERATE, "provider_index": 1})
    assert (response.json["provider_used"], response.json["model_used"]) == ("claude", "claude-test")
    fake_providers.gemini.reply(text=FENCED)
    add_provider(with_provider, "gemini", model="gem-test")
    response = with_provider.post("/ai/generate-diagram", json={**GENERATE, "provider": "gemini"})
    assert response.json["provider_used"] == "gemini"
    assert error_detail(with_provider.post("/ai/generate-diagram", json={**GENERATE, "provider": "deepseek"}), 404)
    with_provider.put("/ai/providers/1", json={"is_active": False})
    assert error_detail(with_provider.post("/ai/generate-diagram", json={**GENERATE, "provider_index": 1}), 400)


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/ai/generate-diagram", {**GENERATE, "description": "short"}, "description"),
    ("/ai/generate-diagram", {**GENERATE, "diagram_type": "freehand"}, "diagram_type"),
    ("/ai/generate-diagram", {**GENERATE, "language": "fr"}, "language"),
    ("/ai/generate-diagram", {**GENERATE, "provider_index": "first"}, "provider_index"),
    ("/ai/generate-diagram", {**GENERATE, "provider": "hal9000"}, "provider"),
    ("/ai/improve-diagram", {**IMPROVE, "improvement_request": "x"}, "improvement_request"),
    ("/ai/improve-diagram", {"improvement_request": "Add labels", "diagram_type": "mermaid"}, "diagram_code"),
    ("/ai/generate-description", {"diagram_code": MERMAID}, "diagram_type"),
    ("/ai/generate-description", {**DESCRIBE, "diagram_type": "hieroglyphs"}, "diagram_type"),
    ("/ai/refine-description", {**REFINE, "refinement_request": "no"}, "refinement_request"),
    ("/ai/refine-description", {**DESCRIBE, "refinement_request": "Shorter"}, "current_description"),
])
def test_generation_input_is_validated(with_provider, fake_providers, path, body, field):
    validation_errors(with_provider.post(path, json=body), field)
    assert fake_providers.openai.requests == []


def test_a_truncated_reply_is_422_response_truncated(with_provider, fake_providers):
    fake_providers.openai.reply(text="```mermaid\nflowchart TD\n  A -->", truncated=True)
    detail = error_detail(with_provider.post("/ai/generate-diagram", json=GENERATE), 422)
    assert detail["error"] == "response_truncated" and detail["message"]
    fake_providers.openai.reply(text="## Overview", truncated=True)
    assert error_detail(with_provider.post("/ai/generate-description", json=DESCRIBE), 422,
                        error_code="response_truncated")


def test_a_reply_without_code_is_502_empty_response(with_provider, fake_providers):
    fake_providers.openai.reply(text="<think>I could draw a flowchart, but")
    detail = error_detail(with_provider.post("/ai/improve-diagram", json=IMPROVE, lang="es"), 502)
    assert detail == {"error": "empty_response",
                      "message": "La IA respondió sin contenido utilizable. Inténtalo de nuevo."}


@pytest.mark.parametrize(("status", "code", "answer"), [
    (401, "invalid_key", 400), (402, "no_credits", 402), (429, "rate_limited", 429), (500, "provider_error", 502)])
def test_provider_failures_keep_their_code(with_provider, fake_providers, status, code, answer):
    fake_providers.openai.reply(status=status, error="nope", headers={"Retry-After": "5"})
    response = with_provider.post("/ai/refine-description", json=REFINE)
    assert error_detail(response, answer, error_code=code)
    if answer == 429:
        assert response.headers["Retry-After"] == "5"


def test_a_slow_provider_is_504(app, with_provider, fake_providers):
    app.config["AI_TIMEOUT"] = 1
    fake_providers.openai.reply(delay=1.5)
    assert error_detail(with_provider.post("/ai/generate-diagram", json=GENERATE), 504, error_code="timeout")


def test_generation_is_rate_limited_per_user(app, with_provider, fake_providers):
    app.config["RATE_LIMIT_AI"] = "2/minute"
    try:
        fake_providers.openai.default.text = FENCED
        for _ in range(2):
            assert with_provider.post("/ai/generate-diagram", json=GENERATE).status_code == 200
        response = with_provider.post("/ai/generate-diagram", json=GENERATE, lang="es")
        assert error_detail(response, 429).startswith("Demasiadas")
        assert int(response.headers["Retry-After"]) > 0
    finally:
        app.config["RATE_LIMIT_AI"] = "30/minute"
