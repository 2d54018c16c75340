"""The streamed reply (SSE): headers, events in order, errors in the stream, keep-alive, disconnects."""
import time

import pytest

from ...helpers import error_detail, validation_errors
from .conftest import add_provider, forget_requests, message_body, parse_sse, wait_for_streams

NEW_CODE = "flowchart TD\n  A[Start] --> P[Pay]\n  P --> B[End]"
CODE_CHUNKS = ["I added a payment step.\n", "<<<DIA", "GRAM>>>\n", "flowchart TD\n", "  A[Start] --> P[Pay]\n",
               "  P --> B[End]\n", "<<<END_DIAGRAM>>>"]


def stream(client, session, lang=None, **fields):
    return client.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body(**fields), lang=lang)


def events_of(response):
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache" and response.headers["X-Accel-Buffering"] == "no"
    return parse_sse(response.get_data(as_text=True))


def types(events):
    return [event["type"] for event in events]


def test_a_change_request_streams_mode_phases_tokens_and_done(user, session, ai):
    ai.openai.reply(chunks=CODE_CHUNKS)
    events, _comments = events_of(stream(user, session))
    assert events[0] == {"type": "mode", "mode": "code"}
    assert events[1] == {"type": "phase", "phase": "Thinking…"}
    assert events[2] == {"type": "phase", "phase": "Analyzing your diagram…"}
    # The phase comes as soon as the start marker is complete, even when it arrives in pieces.
    assert types(events[3:-1]) == ["token", "token", "phase", *["token"] * 5]
    assert events[5] == {"type": "phase", "phase": "Generating code…"} and events[4]["content"] == "<<<DIA"
    assert "".join(e["content"] for e in events if e["type"] == "token") == "".join(CODE_CHUNKS)
    done = events[-1]
    assert set(done) == {"type", "message_id", "provider_used", "model_used", "generation_time", "session_id",
                         "truncated", "improved_code"}
    assert done["improved_code"] == NEW_CODE and done["truncated"] is False
    assert done["provider_used"] == "openai" and done["model_used"] == "gpt-test"
    assert done["session_id"] == session["id"] and isinstance(done["generation_time"], float)
    assert ai.openai.last["stream"] is True and ai.openai.last["json"]["max_completion_tokens"] == 8192
    saved = user.get(f"/chat-sessions/{session['id']}").json["messages"]
    assert [m["role"] for m in saved] == ["user", "assistant"]
    assert saved[1]["id"] == done["message_id"] and saved[1]["improved_code"] == NEW_CODE
    assert saved[1]["content"] == "I added a payment step." and saved[1]["improvement_status"] == "pending"


def test_phase_labels_follow_the_request_language(user, session, ai):
    ai.openai.reply(chunks=CODE_CHUNKS)
    events, _ = events_of(stream(user, session, lang="es"))
    phases = [e["phase"] for e in events if e["type"] == "phase"]
    assert phases == ["Pensando…", "Analizando tu diagrama…", "Generando código…"]


def test_a_question_streams_text(user, session, ai):
    ai.openai.reply(text="It is a two-step flow.")
    events, _ = events_of(stream(user, session, content="What does it show?"))
    assert events[0] == {"type": "mode", "mode": "text"}
    assert types(events) == ["mode", "phase", "phase", "token", "token", "token", "done"]
    assert "improved_code" not in events[-1] and "thinking_content" not in events[-1]


def test_a_text_answer_with_a_diagram_switches_to_code_before_done(user, session, ai):
    ai.openai.reply(chunks=["Like so:\n", "```mermaid\n", NEW_CODE, "\n```"])
    events, _ = events_of(stream(user, session, content="Is a payment step possible?"))
    assert events[0]["mode"] == "text"
    assert events[-2] == {"type": "mode", "mode": "code"}
    assert events[-1]["type"] == "done" and events[-1]["improved_code"] == NEW_CODE


def test_think_text_is_never_streamed_as_tokens(user, session, ai):
    ai.openai.reply(chunks=["<thi", "nk>secret plan</th", "ink>", "The answer."])
    events, _ = events_of(stream(user, session, content="Why?"))
    tokens = "".join(e["content"] for e in events if e["type"] == "token")
    assert tokens == "The answer." and events[-1]["thinking_content"] == "secret plan"


def test_a_provider_error_before_streaming_is_a_terminal_error_event(user, session, ai):
    ai.openai.reply(status=429, error="slow down", headers={"Retry-After": "7"})
    events, _ = events_of(stream(user, session, lang="es"))
    assert types(events) == ["mode", "phase", "error"]
    assert events[-1]["error_code"] == "rate_limited" and isinstance(events[-1]["message"], str)
    saved = user.get(f"/chat-sessions/{session['id']}").json["messages"]
    assert [m["role"] for m in saved] == ["user", "error"] and saved[1]["content"] == events[-1]["message"]


def test_an_error_in_the_middle_of_the_stream_ends_it(user, session, ai):
    ai.openai.reply(chunks=["Partial ", "answer"], stream_error={"message": "Model overloaded", "code": 503})
    events, _ = events_of(stream(user, session, content="Why?"))
    assert types(events) == ["mode", "phase", "phase", "token", "token", "error"]
    assert events[-1]["error_code"] == "provider_error" and "Model overloaded" in events[-1]["message"]
    assert [m["role"] for m in user.get(f"/chat-sessions/{session['id']}").json["messages"]] == ["user", "error"]


def test_anthropic_stream_errors_are_classified(user, session, ai):
    add_provider(user, provider="claude", model="claude-test")
    forget_requests(ai)
    ai.anthropic.reply(chunks=["Hi"], stream_error={"type": "overloaded_error", "message": "Overloaded"})
    events, _ = events_of(stream(user, session, content="Why?", provider="claude"))
    assert types(events)[-1] == "error" and "done" not in types(events)
    assert ai.anthropic.last["json"]["model"] == "claude-test" and ai.anthropic.last["json"]["stream"] is True


def test_a_truncated_stream_is_done_without_code(user, session, ai):
    ai.openai.reply(chunks=["<<<DIAGRAM>>>\n", "flowchart TD\n  A --> B"], truncated=True)
    events, _ = events_of(stream(user, session))
    done = events[-1]
    assert done["type"] == "done" and done["truncated"] is True and "improved_code" not in done
    saved = user.get(f"/chat-sessions/{session['id']}").json["messages"][-1]
    assert saved["improved_code"] is None and "cut off" in saved["content"]


def test_auto_fix_in_the_stream_announces_validation(user, session, ai):
    ai.openai.reply(chunks=["<<<DIAGRAM>>>\n", "A --> B\n", "<<<END_DIAGRAM>>>"])
    ai.openai.reply(text=f"<<<DIAGRAM>>>\n{NEW_CODE}\n<<<END_DIAGRAM>>>")
    events, _ = events_of(stream(user, session))
    assert events[-2] == {"type": "phase", "phase": "Validating syntax…"}
    assert events[-1]["improved_code"] == NEW_CODE
    assert [request["stream"] for request in ai.openai.requests] == [True, False]


def test_keep_alive_comments_fill_silences(app, user, session, ai, monkeypatch):
    monkeypatch.setitem(app.config, "SSE_KEEPALIVE_SECONDS", 0.1)
    ai.openai.reply(text="Slow answer.", delay=0.6)
    response = stream(user, session, content="Why?")
    events, comments = events_of(response)
    assert len(comments) >= 3 and set(comments) == {": keep-alive"}
    assert types(events) == ["mode", "phase", "phase", "token", "token", "done"]
    body = response.get_data(as_text=True)
    assert body.index(": keep-alive") < body.index("Analyzing")


def test_no_keep_alive_while_events_flow(user, session, ai):
    ai.openai.reply(text="Quick answer.")
    _events, comments = events_of(stream(user, session, content="Why?"))
    assert comments == []


def test_a_client_that_stops_reading_stops_the_provider(user, session, ai):
    ai.openai.reply(chunks=[f"word{n} " for n in range(200)], chunk_delay=0.05)
    response = user.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body(content="Why?"),
                         buffered=False)
    assert response.status_code == 200
    received = ""
    for chunk in response.response:
        received += chunk.decode() if isinstance(chunk, bytes) else chunk
        if received.count('"type":"token"') >= 3:
            break
    response.close()
    assert ai.openai.disconnected.wait(5), "the upstream connection stayed open"
    wait_for_streams()
    saved = user.get(f"/chat-sessions/{session['id']}").json["messages"]
    assert [m["role"] for m in saved] == ["user"]


def test_deleting_the_session_during_the_stream_ends_it_with_an_error(user, session, ai):
    ai.openai.reply(chunks=["one ", "two ", "three"], chunk_delay=0.2)
    response = user.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body(content="Why?"),
                         buffered=False)
    chunks = iter(response.response)
    first = next(chunks)
    assert b'"mode"' in first
    assert user.delete(f"/chat-sessions/{session['id']}").status_code == 200
    rest = b"".join(chunks).decode()
    events, _ = parse_sse(first.decode() + rest)
    assert events[-1] == {"type": "error", "message": "Chat session not found", "error_code": "not_found"}


def test_checks_happen_before_the_first_byte(user, other_user, session, ai):
    assert error_detail(stream(other_user, session), 404) == "Chat session not found"
    validation_errors(stream(user, session, content=""), "content")
    response = user.post(f"/chat-sessions/{session['id']}/messages/stream", data="{not json",
                         content_type="application/json")
    validation_errors(response)
    assert ai.openai.requests == []


def test_without_a_provider_the_stream_reports_it_after_mode_and_phase(user, session, fake_providers):
    events, _ = events_of(stream(user, session))
    assert types(events) == ["mode", "phase", "error"]
    assert events[-1] == {"type": "error", "message": "No AI provider is configured.", "error_code": "no_provider"}
    assert [m["role"] for m in user.get(f"/chat-sessions/{session['id']}").json["messages"]] == ["user"]


@pytest.mark.parametrize("lang, expected", [("en", "Chat session not found"), ("es", "Sesión no encontrada")])
def test_unknown_session_stream_is_a_json_404(user, lang, expected, ai):
    response = user.post("/chat-sessions/nope/messages/stream", json=message_body(), lang=lang)
    assert error_detail(response, 404) == expected



def test_a_silent_provider_is_dropped_as_soon_as_the_client_leaves(user, session, ai):
    ai.openai.reply(chunks=["one ", "two "], stall_after=2, delay=4)
    response = user.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body(content="Why?"),
                         buffered=False)
    received = ""
    for chunk in response.response:
        received += chunk.decode()
        if received.count('"type":"token"') == 2:
            break
    left = time.monotonic()
    response.close()
    wait_for_streams()
    assert time.monotonic() - left < 1.5, "the worker kept waiting for the silent provider"


def test_gemini_streams_through_its_own_protocol(user, session, ai):
    add_provider(user, provider="gemini", model="gemini-test")
    forget_requests(ai)
    ai.gemini.reply(text="A two-step flow.")
    events, _ = events_of(stream(user, session, content="What is it?", provider="gemini"))
    assert "".join(e["content"] for e in events if e["type"] == "token") == "A two-step flow."
    assert events[-1]["provider_used"] == "gemini" and events[-1]["model_used"] == "gemini-test"
    assert "streamGenerateContent" in ai.gemini.last["path"] and ai.openai.requests == []
