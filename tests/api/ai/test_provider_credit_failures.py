"""Provider failures the reference classifies by meaning, not by status (issue 26 item 3): a quota or balance
error is `no_credits` (402, the text speaks of credits), a model the provider does not know is
`model_unavailable` (tests/api/chat/test_provider_credit_failures.py: the same in a chat stream)."""
import pytest

from ...helpers import add_provider, error_detail

GENERATE = {"description": "A two step flow from start to end", "diagram_type": "mermaid"}
OPENAI_QUOTA = {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                          "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}
DEEPSEEK_BALANCE = {"error": {"message": "Insufficient Balance", "type": "unknown_error", "param": None,
                              "code": "invalid_request_error"}}
ANTHROPIC_CREDITS = {"type": "error", "error": {"type": "invalid_request_error", "message": (
    "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or "
    "purchase credits.")}, "request_id": "req_011CXfake"}
DEEPSEEK_NO_MODEL = {"error": {"message": "Model Not Exist", "type": "invalid_request_error", "param": None,
                               "code": "invalid_request_error"}}
# (provider, fake server, status, body, label)
NO_CREDITS = [("openai", "openai", 429, OPENAI_QUOTA, "OpenAI"),
              ("deepseek", "openai", 402, DEEPSEEK_BALANCE, "DeepSeek"),
              ("claude", "anthropic", 400, ANTHROPIC_CREDITS, "Anthropic Claude")]


@pytest.mark.parametrize(("provider", "server", "status", "body", "label"), NO_CREDITS,
                         ids=[case[0] for case in NO_CREDITS])
def test_a_quota_or_balance_error_is_no_credits_and_speaks_of_credits(user, fake_providers, provider, server,
                                                                       status, body, label):
    add_provider(user, provider)
    fake_providers.reset()
    getattr(fake_providers, server).reply(status=status, error=body, headers={"Retry-After": "20"})
    response = user.post("/ai/generate-diagram", json=GENERATE, lang="es")
    detail = error_detail(response, 402, error_code="no_credits")
    assert detail == f"Tu cuenta de {label} no tiene créditos. Añade créditos o usa otro proveedor."
    assert "Retry-After" not in response.headers


def test_a_deepseek_model_not_exist_is_model_unavailable(user, fake_providers):
    add_provider(user, "deepseek", model="deepseek-gone")
    fake_providers.reset()
    fake_providers.openai.reply(status=400, error=DEEPSEEK_NO_MODEL)
    detail = error_detail(user.post("/ai/generate-diagram", json=GENERATE, lang="es"), 400,
                          error_code="model_unavailable")
    assert detail == "El modelo deepseek-gone no está disponible en DeepSeek para esta clave API."

