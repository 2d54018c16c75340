"""What the browser client needs from the chat send routes: 404 (or a stream ending in an error event)
when no AI provider is configured, the user's message kept, and errors in the body's language."""
import pytest

from ...helpers import error_detail
from .conftest import message_body, parse_sse

NO_PROVIDER = {"en": "No AI provider is configured.", "es": "No hay proveedor de IA configurado."}
THINKING = {"en": "Thinking…", "es": "Pensando…"}


def send(client, session, lang=None, **fields):
    return client.post(f"/chat-sessions/{session['id']}/messages", json=message_body(**fields), lang=lang)


def stream(client, session, lang=None, **fields):
    return client.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body(**fields), lang=lang)


def history(client, session):
    return [(m["role"], m["content"]) for m in client.get(f"/chat-sessions/{session['id']}").json["messages"]]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_sending_without_a_provider_is_404_and_keeps_the_message(user, session, fake_providers, lang):
    assert error_detail(send(user, session, lang=lang), 404) == NO_PROVIDER[lang]
    assert history(user, session) == [("user", "Add a payment step")]


@pytest.mark.parametrize("lang", ["en", "es"])
def test_streaming_without_a_provider_ends_with_an_error_event(user, session, fake_providers, lang):
    response = stream(user, session, language=lang)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    events, _comments = parse_sse(response.get_data(as_text=True))
    assert events == [{"type": "mode", "mode": "code"}, {"type": "phase", "phase": THINKING[lang]},
                      {"type": "error", "message": NO_PROVIDER[lang], "error_code": "no_provider"}]
    assert history(user, session) == [("user", "Add a payment step")]


def test_a_provider_type_that_is_not_configured_is_404(user, session, ai):
    response = send(user, session, provider="claude")
    assert error_detail(response, 404) == \
        "No active Anthropic Claude provider is configured. Add it in the AI settings."
    assert ai.openai.requests == [] and ai.anthropic.requests == []


@pytest.mark.parametrize(("language", "header"), [("en", "es"), ("es", "en")])
def test_the_body_language_words_the_errors_of_both_send_routes(user, session, fake_providers, language, header):
    assert error_detail(send(user, session, lang=header, language=language), 404) == NO_PROVIDER[language]
    events, _comments = parse_sse(stream(user, session, lang=header, language=language).get_data(as_text=True))
    assert (events[1]["phase"], events[-1]["message"]) == (THINKING[language], NO_PROVIDER[language])
    response = user.post("/chat-sessions/unknown/messages", json=message_body(language=language), lang=header)
    assert error_detail(response, 404) == {"en": "Chat session not found", "es": "Sesión no encontrada"}[language]


def test_a_provider_failure_in_the_stream_follows_the_body_language(user, session, ai):
    ai.openai.reply(status=401, error="Incorrect API key provided")
    events, _comments = parse_sse(stream(user, session, lang="es", language="en").get_data(as_text=True))
    assert events[-1] == {"type": "error", "error_code": "invalid_key",
                          "message": "OpenAI rejected the API key. Check the key in your AI settings."}
    assert history(user, session)[-1] == ("error", events[-1]["message"])
