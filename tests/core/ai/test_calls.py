"""Provider clients against fake servers speaking the three wire protocols: replies, streaming,
error classification, timeouts and truncation."""
import threading
import time

import pytest

from trazo.core.ai.calls import AIProviderError, ProviderConfig, complete, stream

from ...fakes.base import free_port

PROVIDERS = ("openai", "claude", "gemini")
HELLO = [{"role": "user", "content": "hi"}]


@pytest.fixture
def call_context(app, fake_providers):
    with app.test_request_context(headers={"Accept-Language": "en"}):
        yield fake_providers


def config(provider, **fields):
    return ProviderConfig(**{"provider": provider, "api_key": "key-0123456789", "model": "m-1", **fields})


def failure(call):
    with pytest.raises(AIProviderError) as caught:
        call()
    return caught.value


@pytest.mark.parametrize("provider", PROVIDERS)
def test_complete_sends_the_protocol_request_and_reads_the_reply(call_context, provider):
    fake = call_context.for_provider(provider)
    fake.reply(text="flowchart TD\n  A-->B")
    result = complete(config(provider), "be brief", HELLO + [{"role": "assistant", "content": "yes"}],
                      max_tokens=123, temperature=0.2)
    assert (result.text, result.truncated, result.tokens_used) == ("flowchart TD\n  A-->B", False, 18)
    sent = fake.last
    if provider == "openai":
        assert sent["path"] == "/openai/v1/chat/completions"
        assert sent["headers"]["Authorization"] == "Bearer key-0123456789"
        assert sent["json"]["messages"][0] == {"role": "system", "content": "be brief"}
        assert sent["json"]["max_completion_tokens"] == 123 and sent["json"]["temperature"] == 0.2
    elif provider == "claude":
        assert sent["path"] == "/v1/messages"
        assert sent["headers"]["x-api-key"] == "key-0123456789"
        assert sent["headers"]["anthropic-version"] == "2023-06-01"
        assert sent["json"]["system"] == "be brief" and sent["json"]["max_tokens"] == 123
        assert [turn["role"] for turn in sent["json"]["messages"]] == ["user", "assistant"]
    else:
        assert sent["path"] == "/v1beta/models/m-1:generateContent"
        assert sent["headers"]["x-goog-api-key"] == "key-0123456789" and "key=" not in sent["path"]
        assert sent["json"]["systemInstruction"] == {"parts": [{"text": "be brief"}]}
        assert [turn["role"] for turn in sent["json"]["contents"]] == ["user", "model"]
        assert sent["json"]["generationConfig"] == {"maxOutputTokens": 123, "temperature": 0.2}


@pytest.mark.parametrize("provider", ["deepseek", "minimax"])
def test_openai_protocol_providers_use_their_endpoint_and_max_tokens(call_context, provider):
    complete(config(provider), None, HELLO, max_tokens=50)
    sent = call_context.openai.last
    assert sent["path"] == f"/{provider}/v1/chat/completions"
    assert sent["json"]["max_tokens"] == 50 and "max_completion_tokens" not in sent["json"]
    assert "temperature" not in sent["json"] and sent["json"]["messages"] == HELLO


def test_self_hosted_servers_are_reached_at_their_base_url_without_a_key(call_context):
    base_url = call_context.openai.url.replace("/v1", "/ollama/v1")
    complete(config("ollama", api_key="", base_url=base_url), None, HELLO)
    assert call_context.openai.last["path"] == "/ollama/v1/chat/completions"
    assert "Authorization" not in call_context.openai.last["headers"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_truncated_replies_are_reported(call_context, provider):
    call_context.for_provider(provider).reply(text="flowchart TD\n  A-->", truncated=True)
    result = complete(config(provider), None, HELLO)
    assert result.truncated is True and result.text == "flowchart TD\n  A-->"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_stream_yields_deltas_as_they_arrive(call_context, provider):
    fake = call_context.for_provider(provider)
    fake.reply(chunks=["Hel", "lo ", "wor", "ld"], chunk_delay=0.12)
    with stream(config(provider), "sys", HELLO) as deltas:
        first = next(deltas)
        first_at = time.monotonic()
        rest = list(deltas)
    assert [first, *rest] == ["Hel", "lo ", "wor", "ld"]
    assert time.monotonic() - first_at > 0.3, "the first delta must not wait for the whole reply"
    assert deltas.truncated is False
    assert fake.last["stream"] is True
    if provider == "gemini":
        assert fake.last["path"] == "/v1beta/models/m-1:streamGenerateContent?alt=sse"
    else:
        assert fake.last["json"]["stream"] is True


@pytest.mark.parametrize("provider", PROVIDERS)
def test_stream_reports_truncation_once_exhausted(call_context, provider):
    call_context.for_provider(provider).reply(text="graph TD\n  A-->B", truncated=True)
    deltas = stream(config(provider), None, HELLO)
    assert "".join(deltas) == "graph TD\n  A-->B"
    assert deltas.truncated is True


@pytest.mark.parametrize("provider", PROVIDERS)
def test_close_stops_the_upstream_reply(call_context, provider):
    fake = call_context.for_provider(provider)
    fake.reply(chunks=["x"] * 400, chunk_delay=0.01)
    deltas = stream(config(provider), None, HELLO)
    assert next(deltas) == "x"
    deltas.close()
    assert fake.disconnected.wait(5), "the provider kept streaming after close()"


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("status", "code", "answer"), [
    (401, "invalid_key", 400), (403, "invalid_key", 400), (402, "no_credits", 402),
    (404, "model_unavailable", 400), (429, "rate_limited", 429), (500, "provider_error", 502),
    (503, "provider_error", 502)])
def test_http_errors_are_classified(call_context, provider, status, code, answer):
    call_context.for_provider(provider).reply(status=status, error="upstream says no")
    error = failure(lambda: complete(config(provider), None, HELLO))
    assert (error.code, error.status) == (code, answer)
    assert error.error_code == code and error.detail == error.message and error.message
    streamed = call_context.for_provider(provider)
    streamed.reply(status=status, error="upstream says no")
    assert failure(lambda: stream(config(provider), None, HELLO)).code == code


def test_error_bodies_are_classified_by_their_hints(call_context):
    fake = call_context.openai
    fake.reply(status=429, error={"error": {"message": "You exceeded your quota", "code": "insufficient_quota"}})
    assert failure(lambda: complete(config("openai"), None, HELLO)).code == "no_credits"
    fake.reply(status=400, error={"error": {"message": "Incorrect API key provided"}})
    assert failure(lambda: complete(config("openai"), None, HELLO)).code == "invalid_key"
    fake.reply(status=400, error={"error": {"message": "The model `m-1` does not exist"}})
    error = failure(lambda: complete(config("openai"), None, HELLO))
    assert error.code == "model_unavailable" and "m-1" in error.message
    call_context.gemini.reply(status=400, error="API key not valid. Please pass a valid API key.")
    assert failure(lambda: complete(config("gemini"), None, HELLO)).code == "invalid_key"
    call_context.anthropic.reply(status=400, error="Your credit balance is too low")
    assert failure(lambda: complete(config("claude"), None, HELLO)).code == "no_credits"


def test_rate_limits_carry_the_provider_retry_after(call_context):
    call_context.anthropic.reply(status=429, error="slow down", headers={"Retry-After": "17"})
    error = failure(lambda: complete(config("claude"), None, HELLO))
    assert error.headers == {"Retry-After": "17"}
    call_context.anthropic.reply(status=429, error="slow down")
    assert int(failure(lambda: complete(config("claude"), None, HELLO)).headers["Retry-After"]) > 0


def test_provider_errors_quote_the_provider_reason(call_context):
    call_context.openai.reply(status=500, error="the GPUs are on fire " + "x" * 1000)
    error = failure(lambda: complete(config("openai"), None, HELLO))
    assert "HTTP 500" in error.message and "the GPUs are on fire" in error.message
    assert len(error.message) < 420


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_slow_provider_times_out(app, call_context, provider):
    app.config["AI_TIMEOUT"] = 1
    call_context.for_provider(provider).reply(delay=1.6)
    started = time.monotonic()
    error = failure(lambda: complete(config(provider), None, HELLO))
    assert (error.code, error.status) == ("timeout", 504)
    assert time.monotonic() - started < 1.5


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stream_that_goes_silent_times_out(app, call_context, provider):
    app.config["AI_TIMEOUT"] = 1
    call_context.for_provider(provider).reply(text="abcdefghijklmnopqrstuvwxyz", stall_after=4, delay=1.6)
    received = []
    with pytest.raises(AIProviderError) as caught, stream(config(provider), None, HELLO) as deltas:
        for delta in deltas:
            received.append(delta)
    assert (caught.value.code, caught.value.status) == ("timeout", 504)
    assert received, "the deltas before the silence are delivered"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_errors_inside_a_stream_are_raised(call_context, provider):
    error_event = {"type": "rate_limit_error", "message": "Too many tokens"}
    if provider != "claude":
        error_event = {"code": 429, "message": "Too many tokens"}
    call_context.for_provider(provider).reply(chunks=["part"], stream_error=error_event)
    received = []
    with pytest.raises(AIProviderError) as caught:
        for delta in stream(config(provider), None, HELLO):
            received.append(delta)
    assert received == ["part"] and caught.value.code == "rate_limited"


def test_a_refused_temperature_is_retried_once_without_it(call_context):
    fake = call_context.anthropic
    fake.reply(status=400, error="temperature is not supported by this model")
    fake.reply(text="done")
    assert complete(config("claude"), None, HELLO, temperature=0.2).text == "done"
    assert "temperature" in fake.requests[0]["json"] and "temperature" not in fake.requests[1]["json"]
    fake.reply(status=400, error="temperature is not supported by this model")
    assert failure(lambda: complete(config("claude"), None, HELLO)).code == "provider_error"
    assert len(fake.requests) == 3


def test_unreadable_answers_and_unreachable_servers_are_provider_errors(call_context):
    call_context.openai.reply(raw="<html>gateway</html>")
    error = failure(lambda: complete(config("openai"), None, HELLO))
    assert (error.code, error.status) == ("provider_error", 502)
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    error = failure(lambda: complete(config("openai_compatible", base_url=nowhere), None, HELLO))
    assert (error.code, error.status) == ("provider_error", 502)


def test_error_messages_follow_the_request_language(app, fake_providers):
    fake_providers.openai.reply(status=401, error="bad key")
    with app.test_request_context(headers={"Accept-Language": "es"}):
        error = failure(lambda: complete(config("openai"), None, HELLO))
    assert error.message == "OpenAI rechazó la clave API. Revisa la clave en tus ajustes de IA."


@pytest.mark.parametrize("provider", PROVIDERS)
def test_close_from_another_thread_wakes_a_blocked_read(call_context, provider):
    first_text_event = {"claude": 3}.get(provider, 0)  # Anthropic opens with three bookkeeping events
    call_context.for_provider(provider).reply(chunks=["one", "two"], stall_after=first_text_event + 1, delay=4)
    deltas = stream(config(provider), None, HELLO)
    received, finished = [], threading.Event()

    def read():
        received.extend(deltas)
        finished.set()

    threading.Thread(target=read, daemon=True).start()
    time.sleep(0.3)
    assert not finished.is_set(), "the reader should be waiting for the silent provider"
    started = time.monotonic()
    deltas.close()
    assert finished.wait(2) and time.monotonic() - started < 1, "the reader stayed blocked after close()"
    assert received == ["one"]
