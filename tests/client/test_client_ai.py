"""The client's AI calls, replayed: the AI settings page (providers, default, auto-fix, key test) and the
editor's generation, improvement and description actions, against provider servers on 127.0.0.1."""
import pytest

from .browser import reads, shown_detail

KEY = "sk-test-0123456789"
SETTINGS = ("user_id", "providers", "auto_generate_on_save", "auto_fix_generated", "default_provider",
            "created_at", "updated_at")
PROVIDER = ("provider", "api_key", "model", "is_active", "is_default", "parameters", "display_name", "created_at",
            "updated_at")
MERMAID = "flowchart TD\n  A[Start] --> B[End]"
GENERATION = [
    ("/ai/generate-diagram", {"description": "A login flow with two steps", "diagram_type": "mermaid",
                              "language": "en"}),
    ("/ai/improve-diagram", {"diagram_code": MERMAID, "improvement_request": "Add a payment step",
                             "diagram_type": "mermaid", "language": "en"}),
    ("/ai/generate-description", {"diagram_code": MERMAID, "diagram_type": "mermaid", "language": "en"}),
    ("/ai/refine-description", {"diagram_code": MERMAID, "diagram_type": "mermaid",
                                "current_description": "Two steps.", "refinement_request": "Shorter please",
                                "language": "en"}),
]


def _add(tab, provider="openai", **fields):
    response = tab.api("POST", "/ai/providers", json={"provider": provider, "api_key": KEY, **fields})
    assert response.status_code == 201, response.get_json()
    return reads(response.get_json(), *SETTINGS)


@pytest.fixture
def ai(ada, fake_providers):
    """ada with an OpenAI provider (model gpt-test), added from the settings page."""
    _add(ada, "openai", model="gpt-test", display_name="Work")
    fake_providers.reset()
    return fake_providers


def test_the_settings_page_adds_edits_defaults_and_removes_providers(ada, fake_providers):
    empty = ada.api("GET", "/ai/settings")
    assert empty.status_code == 200
    assert reads(empty.get_json(), *SETTINGS)["providers"] == [] and empty.get_json()["auto_fix_generated"] is True
    first = _add(ada, "openai", model="gpt-test", display_name="Work", parameters={}, is_default=False)
    [entry] = first["providers"]
    assert reads(entry, *PROVIDER)["api_key"] == "sk-t...789" and entry["is_default"] is True
    second = _add(ada, "claude", display_name="Claude")
    assert [p["provider"] for p in second["providers"]] == ["openai", "claude"]
    edited = ada.api("PUT", "/ai/providers/1", json={"model": "claude-haiku-4-5", "is_active": True})
    assert edited.status_code == 200 and reads(edited.get_json(), *SETTINGS)["providers"][1]["model"] == \
        "claude-haiku-4-5"
    default = ada.api("PUT", "/ai/settings/default-provider", json={"provider": "claude"})
    assert default.status_code == 200 and reads(default.get_json(), *SETTINGS)["default_provider"] == "claude"
    auto_fix = ada.api("PUT", "/ai/settings/auto-fix", json={"enabled": False})
    assert auto_fix.status_code == 200 and reads(auto_fix.get_json(), *SETTINGS)["auto_fix_generated"] is False
    removed = ada.api("DELETE", "/ai/providers/1")
    assert removed.status_code == 200
    assert [p["provider"] for p in reads(removed.get_json(), *SETTINGS)["providers"]] == ["openai"]
    assert removed.get_json()["default_provider"] == "openai"


def test_a_wrong_key_is_shown_as_text_with_a_code_beside_it(ada, fake_providers):
    for language, provider, server in (("en", "openai", fake_providers.openai),
                                       ("es", "claude", fake_providers.anthropic)):
        ada.language = language
        server.reply(status=401, error="Incorrect API key provided")
        response = ada.api("POST", "/ai/providers", json={"provider": provider, "api_key": KEY})
        assert response.status_code == 400
        body = response.get_json()
        assert set(body) == {"detail", "error_code"} and body["error_code"] == "invalid_key"
        assert isinstance(body["detail"], str) and body["detail"]
    assert ada.api("GET", "/ai/settings").get_json()["providers"] == []


def test_a_wrong_new_key_on_update_is_shown_as_text(ada, ai):
    ai.openai.reply(status=401, error="Incorrect API key provided")
    response = ada.api("PUT", "/ai/providers/0", json={"api_key": "sk-wrong-0123456789"})
    assert response.status_code == 400
    assert isinstance(response.get_json()["detail"], str) and response.get_json()["error_code"] == "invalid_key"


def test_the_key_test_button_reads_valid_message_and_code(ada, fake_providers):
    ok = ada.api("POST", "/ai/test-provider", json={"provider": "openai", "api_key": KEY, "model": "gpt-test"})
    assert ok.status_code == 200
    body = reads(ok.get_json(), "valid", "message", "error_code", "provider_name")
    assert body["valid"] is True and body["error_code"] is None and body["provider_name"] == "openai"
    fake_providers.openai.reply(status=402, error="insufficient_quota")
    bad = ada.api("POST", "/ai/test-provider", json={"provider": "openai", "api_key": KEY})
    assert bad.status_code == 200
    body = reads(bad.get_json(), "valid", "message", "error_code", "provider_name")
    assert body["valid"] is False and body["error_code"] == "no_credits" and isinstance(body["message"], str)


# -- generation --------------------------------------------------------------------------------

def test_generate_diagram_reads_the_code(ada, ai):
    ai.openai.reply(text="```mermaid\nflowchart TD\n  L[Login] --> H[Home]\n```")
    response = ada.api("POST", "/ai/generate-diagram", json=GENERATION[0][1])
    assert response.status_code == 200, response.get_json()
    body = reads(response.get_json(), "diagram_code", "provider_used", "model_used", "generation_time")
    assert body["diagram_code"] == "flowchart TD\n  L[Login] --> H[Home]" and body["model_used"] == "gpt-test"


def test_improve_reads_the_code_and_the_echoes(ada, ai):
    ai.openai.reply(text="```mermaid\nflowchart TD\n  A[Start] --> P[Pay] --> B[End]\n```")
    response = ada.api("POST", "/ai/improve-diagram", json=GENERATION[1][1])
    assert response.status_code == 200, response.get_json()
    body = reads(response.get_json(), "diagram_code", "original_code", "improvement_applied", "provider_used",
                 "model_used", "generation_time")
    assert body["original_code"] == MERMAID and body["improvement_applied"] == "Add a payment step"


def test_improve_from_an_empty_editor_is_accepted(ada, ai):
    ai.openai.reply(text="```mermaid\nflowchart TD\n  A[Start] --> B[End]\n```")
    response = ada.api("POST", "/ai/improve-diagram", json={**GENERATION[1][1], "diagram_code": ""})
    assert response.status_code == 200, response.get_json()
    body = reads(response.get_json(), "diagram_code", "original_code", "improvement_applied")
    assert body["original_code"] == "" and body["diagram_code"] == MERMAID


def test_descriptions_are_generated_and_refined(ada, ai):
    ai.openai.reply(text="## Overview\n\nA **login** flow.")
    generated = ada.api("POST", "/ai/generate-description", json=GENERATION[2][1])
    assert generated.status_code == 200, generated.get_json()
    body = reads(generated.get_json(), "description", "provider_used", "model_used")
    assert body["description"].startswith("## Overview")
    ai.openai.reply(text="A login flow.")
    refined = ada.api("POST", "/ai/refine-description", json=GENERATION[3][1])
    assert refined.status_code == 200
    assert reads(refined.get_json(), "description", "provider_used", "model_used", "generation_time")[
        "description"] == "A login flow."


@pytest.mark.parametrize(("path", "body"), GENERATION)
def test_without_an_active_provider_generation_is_a_404_with_text(ada, path, body):
    assert shown_detail(ada.api("POST", path, json=body), 404)


@pytest.mark.parametrize(("path", "body"), GENERATION)
def test_with_the_only_provider_switched_off_generation_is_a_404(ada, ai, path, body):
    assert ada.api("PUT", "/ai/providers/0", json={"is_active": False}).status_code == 200
    assert shown_detail(ada.api("POST", path, json=body), 404)
