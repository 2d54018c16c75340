"""What the browser client needs from the AI routes: a text `detail` it can render (with a sibling
`error_code`), 404 when no provider is configured, an empty diagram to generate from, and errors in
the language the body asks for."""
import pytest

from ...fakes.base import free_port
from ...helpers import add_provider, error_detail
from .test_generation import DESCRIBE, GENERATE, IMPROVE, MERMAID, REFINE

FENCED = f"```mermaid\n{MERMAID}\n```"
NO_PROVIDER = {"en": "No active AI provider configured. Please add an API key in settings.",
               "es": "No hay ningún proveedor de IA activo. Añade una clave API en los ajustes."}
NO_PROVIDER_SHORT = {"en": "No active AI provider configured.", "es": "No hay ningún proveedor de IA activo."}
ROUTES = [("/ai/generate-diagram", GENERATE, NO_PROVIDER), ("/ai/improve-diagram", IMPROVE, NO_PROVIDER),
          ("/ai/generate-description", DESCRIBE, NO_PROVIDER), ("/ai/refine-description", REFINE, NO_PROVIDER_SHORT)]


def test_a_rejected_key_answers_a_text_detail_and_an_error_code(user, fake_providers):
    fake_providers.anthropic.reply(status=401, error="invalid x-api-key")
    response = user.post("/ai/providers", json={"provider": "claude", "api_key": "sk-ant-0123456789"}, lang="es")
    assert error_detail(response, 400, error_code="invalid_key") == \
        "Anthropic Claude rechazó la clave API. Revisa la clave en tus ajustes de IA."
    fake_providers.openai.reply(status=401, error="Incorrect API key provided")
    response = user.post("/ai/providers", json={"provider": "openai", "api_key": "sk-0123456789"})
    assert response.json == {"detail": "OpenAI rejected the API key. Check the key in your AI settings.",
                             "error_code": "invalid_key"}
    assert user.get("/ai/settings").json["providers"] == []


def test_an_unreachable_provider_answers_a_text_detail(user, fake_providers):
    add_provider(user, "openai_compatible", api_key="", base_url=fake_providers.openai.url, model="local")
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    fake_providers.openai.reply(status=500, error="the GPUs are on fire")
    response = user.put("/ai/providers/0", json={"model": "other"})
    assert error_detail(response, 502, error_code="provider_error") == \
        "OpenAI-compatible server answered with an error (HTTP 500)."
    response = user.put("/ai/providers/0", json={"base_url": nowhere})
    assert error_detail(response, 502, error_code="provider_error") == \
        "OpenAI-compatible server could not be reached. Try again later."


@pytest.mark.parametrize(("path", "body", "texts"), ROUTES)
def test_generation_without_a_provider_is_404_for_the_add_provider_dialog(user, fake_providers, path, body, texts):
    assert error_detail(user.post(path, json=body), 404) == texts["en"]
    assert error_detail(user.post(path, json=body, lang="es"), 404) == texts["es"]
    add_provider(user, "openai")
    user.put("/ai/providers/0", json={"is_active": False})
    assert error_detail(user.post(path, json=body), 404) == texts["en"]
    fake_providers.reset()
    response = user.post(path, json={**body, "provider": "claude"})
    assert error_detail(response, 404) == \
        "No active Anthropic Claude provider is configured. Add it in the AI settings."
    assert fake_providers.openai.requests == [] and fake_providers.anthropic.requests == []


def test_improve_diagram_with_an_empty_diagram_generates_from_the_request(with_provider, fake_providers):
    fake_providers.openai.reply(text=FENCED)
    response = with_provider.post("/ai/improve-diagram", json={**IMPROVE, "diagram_code": ""})
    assert response.status_code == 200, response.json
    assert response.json["diagram_code"] == MERMAID and response.json["original_code"] == ""
    assert response.json["improvement_applied"] == "Add labels"
    request = fake_providers.openai.last["json"]["messages"][1]["content"]
    assert "Add labels" in request and "```mermaid\n\n```" not in request


@pytest.mark.parametrize(("language", "header", "expected"), [("en", "es", "en"), ("es", "en", "es")])
def test_the_body_language_wins_over_accept_language_for_errors(user, language, header, expected):
    response = user.post("/ai/generate-diagram", json={**GENERATE, "language": language}, lang=header)
    assert error_detail(response, 404) == NO_PROVIDER[expected]
    response = user.post("/ai/generate-diagram", json={"language": language}, lang=header)
    message = error_detail(response, 422)[0]["msg"]
    assert message == {"en": "Missing data for required field.", "es": "Falta un dato obligatorio."}[expected]


def test_without_a_body_language_accept_language_decides(with_provider, fake_providers):
    fake_providers.openai.reply(status=402, error="Insufficient Balance")
    response = with_provider.post("/ai/generate-diagram", json=GENERATE, lang="es")
    assert error_detail(response, 402, error_code="no_credits") == \
        "Tu cuenta de OpenAI no tiene créditos. Añade créditos o usa otro proveedor."


def test_truncated_and_empty_code_replies_keep_the_object_detail(with_provider, fake_providers):
    fake_providers.openai.reply(text="```mermaid\nflowchart TD\n  A -->", truncated=True)
    detail = error_detail(with_provider.post("/ai/generate-diagram", json=GENERATE), 422)
    assert detail["error"] == "response_truncated" and isinstance(detail["message"], str)
    fake_providers.openai.reply(text="## Overview", truncated=True)
    response = with_provider.post("/ai/generate-description", json=DESCRIBE)
    assert isinstance(error_detail(response, 422, error_code="response_truncated"), str)
