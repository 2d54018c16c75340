"""The error answers providers really send, served by the fake servers and classified into the
reference's codes (checked through POST /ai/test-provider, which reports the code it found)."""
import pytest

KEY = "sk-test-0123456789"


def openai_error(message, kind="invalid_request_error", code=None):
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def anthropic_error(kind, message):
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_011CXfake"}


def gemini_error(status, code, message, reason=None):
    error = {"code": status, "message": message, "status": code}
    if reason:
        error["details"] = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason,
                             "domain": "googleapis.com"}]
    return {"error": error}


def minimax_error(kind, message, status):
    return {"type": "error", "error": {"type": kind, "message": message, "http_code": str(status)},
            "request_id": "05b2c4f5fake"}


BODIES = [
    ("openai", 401, openai_error("Incorrect API key provided: sk-test-***6789. You can find your API key at "
                                 "https://platform.openai.com/account/api-keys.", code="invalid_api_key"),
     "invalid_key"),
    ("openai", 429, openai_error("You exceeded your current quota, please check your plan and billing details.",
                                 "insufficient_quota", "insufficient_quota"), "no_credits"),
    ("openai", 429, openai_error("Rate limit reached for gpt-4.1-mini in organization org-fake on requests per min "
                                 "(RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.", "requests",
                                 "rate_limit_exceeded"), "rate_limited"),
    ("openai", 404, openai_error("The model `m-x` does not exist or you do not have access to it.",
                                 code="model_not_found"), "model_unavailable"),
    ("openai", 500, openai_error("The server had an error while processing your request. Sorry about that!",
                                 "server_error"), "provider_error"),
    ("claude", 401, anthropic_error("authentication_error", "invalid x-api-key"), "invalid_key"),
    ("claude", 400, anthropic_error("invalid_request_error", "Your credit balance is too low to access the "
                                    "Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."),
     "no_credits"),
    ("claude", 404, anthropic_error("not_found_error", "model: m-x"), "model_unavailable"),
    ("claude", 429, anthropic_error("rate_limit_error", "Number of request tokens has exceeded your per-minute "
                                    "rate limit; see the response headers for current usage."), "rate_limited"),
    ("claude", 529, anthropic_error("overloaded_error", "Overloaded"), "provider_error"),
    ("gemini", 400, gemini_error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
                                 "API_KEY_INVALID"), "invalid_key"),
    ("gemini", 403, gemini_error(403, "PERMISSION_DENIED", "Permission denied: Consumer 'api_key:AIza' has been "
                                 "suspended.", "CONSUMER_SUSPENDED"), "invalid_key"),
    ("gemini", 404, gemini_error(404, "NOT_FOUND", "models/m-x is not found for API version v1beta, or is not "
                                 "supported for generateContent. Call ListModels to see the list of available "
                                 "models and their supported methods."), "model_unavailable"),
    ("gemini", 429, gemini_error(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
     "rate_limited"),
    ("gemini", 503, gemini_error(503, "UNAVAILABLE", "The service is currently unavailable."), "provider_error"),
    ("deepseek", 400, openai_error("Model Not Exist"), "model_unavailable"),
    ("deepseek", 401, openai_error("Authentication Fails, Your api key: ****6789 is invalid", "authentication_error"),
     "invalid_key"),
    ("deepseek", 402, openai_error("Insufficient Balance", "unknown_error"), "no_credits"),
    ("deepseek", 429, openai_error("Rate Limit Reached", "rate_limit_error"), "rate_limited"),
    ("deepseek", 503, openai_error("Server Overloaded", "server_error"), "provider_error"),
    ("minimax", 401, minimax_error("authorized_error", "login fail: Please carry the API secret key in the "
                                   "'Authorization' field of the request header (1004)", 401), "invalid_key"),
    ("minimax", 500, minimax_error("insufficient_balance_error", "insufficient balance (1008)", 500), "no_credits"),
    ("minimax", 400, minimax_error("bad_request_error", "invalid params, unknown model 'm-x' (2013)", 400),
     "model_unavailable"),
    ("minimax", 429, minimax_error("rate_limit_error", "rate limit exceeded (1002)", 429), "rate_limited"),
]


@pytest.mark.parametrize(("provider", "status", "body", "code"), BODIES,
                         ids=[f"{b[0]}-{b[1]}-{b[3]}" for b in BODIES])
def test_real_provider_error_bodies_are_classified(user, fake_providers, provider, status, body, code):
    fake_providers.for_provider(provider).reply(status=status, error=body)
    response = user.post("/ai/test-provider", json={"provider": provider, "api_key": KEY, "model": "m-x"})
    assert response.status_code == 200
    result = response.json
    assert (result["valid"], result["error_code"], result["provider_name"]) == (False, code, provider)
    if code == "model_unavailable":
        assert "m-x" in result["message"]


def test_a_missing_model_is_model_unavailable_on_the_generation_routes_too(with_provider, fake_providers):
    fake_providers.openai.reply(status=400, error=openai_error("Model Not Exist"))
    response = with_provider.post("/ai/generate-diagram", json={"description": "A two step flow from start to end"})
    assert response.status_code == 400
    assert response.json == {"detail": "The model gpt-test is not available at OpenAI for this API key.",
                             "error_code": "model_unavailable"}


@pytest.mark.parametrize(("status", "body", "code"), [
    (404, {"error": "model \"llama9\" not found, try pulling it first"}, "model_unavailable"),
    (500, {"error": "llama runner process has terminated: exit status 2"}, "provider_error")])
def test_a_self_hosted_server_is_classified_by_its_status(user, fake_providers, status, body, code):
    fake_providers.openai.reply(status=status, error=body)
    base_url = fake_providers.openai.url.replace("/v1", "/ollama/v1")
    response = user.post("/ai/test-provider", json={"provider": "ollama", "base_url": base_url, "model": "llama9"})
    assert (response.json["valid"], response.json["error_code"]) == (False, code)
    assert "llama runner" not in response.json["message"]
