"""The client's chat panel, replayed: sessions of a diagram, the model picker, the SSE consumer (language in
the body, events dispatched on `type`), the non-streamed send, accepting a proposal, deleting messages."""
import threading

import pytest

from ..helpers import add_provider
from .browser import reads, shown_detail, sse_events

SESSION = ("id", "diagram_id", "title", "status", "parent_session_id", "last_provider", "last_model", "created_at",
           "updated_at", "message_count")
MESSAGE = ("id", "session_id", "role", "content", "improved_code", "improvement_status", "provider_used",
           "model_used", "generation_time", "created_at")
MERMAID = "flowchart TD\n  A[Start] --> B[End]"
REPLY = ["I added a payment step.\n", "<<<DIAGRAM>>>\n", "flowchart TD\n  A[Start] --> P[Pay]\n  P --> B[End]\n",
         "<<<END_DIAGRAM>>>"]
NO_PROVIDER = {"en": "No AI provider is configured.", "es": "No hay proveedor de IA configurado."}


@pytest.fixture(autouse=True)
def finished_streams():
    """Chat stream workers write to the database at the end: let them finish before the tables are emptied."""
    yield
    for thread in threading.enumerate():
        if thread.name == "chat-stream":
            thread.join(10)


@pytest.fixture
def diagram(ada):
    project = ada.api("POST", "/projects", json={"name": "Chat"}).get_json()
    response = ada.api("POST", f"/projects/{project['id']}/diagrams",
                       json={"title": "Checkout", "content": MERMAID, "diagram_type": "mermaid"})
    return response.get_json()


@pytest.fixture
def session(ada, diagram):
    response = ada.api("POST", "/chat-sessions", json={"diagram_id": diagram["id"]})
    assert response.status_code == 201
    return reads(response.get_json(), *SESSION)


@pytest.fixture
def ai(ada, fake_providers):
    add_provider(ada.web.signed_in(ada.token), "openai", model="gpt-test")
    fake_providers.reset()
    return fake_providers


def _body(language="en", **fields):
    """What the chat panel sends (provider/model/preset only when chosen)."""
    return {"content": "Add a payment step", "diagram_code": MERMAID, "diagram_type": "mermaid",
            "language": language, **fields}


def test_the_panel_lists_renames_picks_a_model_and_deletes_sessions(ada, diagram, session):
    assert session["message_count"] == 0 and session["status"] == "active"
    listed = ada.api("GET", "/chat-sessions", query_string={"diagram_id": diagram["id"]})
    assert listed.status_code == 200 and [reads(s, *SESSION)["id"] for s in listed.get_json()] == [session["id"]]
    renamed = ada.api("PUT", f"/chat-sessions/{session['id']}", json={"title": "Payments"})
    assert renamed.status_code == 200 and reads(renamed.get_json(), *SESSION)["title"] == "Payments"
    model = ada.api("PUT", f"/chat-sessions/{session['id']}/model", json={"provider": "openai", "model": "gpt-test"})
    assert model.status_code == 200 and reads(model.get_json(), *SESSION)["last_model"] == "gpt-test"
    opened = ada.api("GET", f"/chat-sessions/{session['id']}")
    assert opened.status_code == 200 and reads(opened.get_json(), "session", "messages")["messages"] == []
    assert ada.api("DELETE", f"/chat-sessions/{session['id']}").status_code == 200
    assert shown_detail(ada.api("GET", f"/chat-sessions/{session['id']}"), 404)


def test_the_stream_consumer_reads_mode_phases_tokens_and_done(ada, session, ai):
    ai.openai.reply(chunks=REPLY)
    events = sse_events(ada.stream(f"/chat-sessions/{session['id']}/messages/stream",
                                   _body(provider="openai", model="gpt-test")))
    kinds = [event["type"] for event in events]
    assert kinds[0] == "mode" and kinds[-1] == "done" and "phase" in kinds and "token" in kinds
    assert events[0]["mode"] in ("text", "code")
    assert all(isinstance(e["phase"], str) for e in events if e["type"] == "phase")
    assert "".join(e["content"] for e in events if e["type"] == "token") == "".join(REPLY)
    done = reads(events[-1], "message_id", "provider_used", "model_used", "generation_time", "improved_code")
    assert done["improved_code"].startswith("flowchart TD") and done["model_used"] == "gpt-test"
    messages = ada.api("GET", f"/chat-sessions/{session['id']}").get_json()["messages"]
    assert [reads(m, *MESSAGE)["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["id"] == done["message_id"] and messages[1]["improvement_status"] == "pending"
    accepted = ada.api("PUT", f"/chat-sessions/{session['id']}/messages/{done['message_id']}/status",
                       json={"status": "accepted"})
    assert accepted.status_code == 200 and reads(accepted.get_json(), *MESSAGE)["improvement_status"] == "accepted"
    stats = ada.api("GET", "/chat-sessions/stats/provider-usage")
    assert stats.status_code == 200
    assert reads(stats.get_json(), "provider_counts", "total_messages")["provider_counts"] == {"openai": 1}


def test_phase_labels_follow_the_language_in_the_body(ada, session, ai):
    ai.openai.reply(chunks=REPLY)
    events = sse_events(ada.stream(f"/chat-sessions/{session['id']}/messages/stream", _body("es")))
    assert [e["phase"] for e in events if e["type"] == "phase"][0] == "Pensando…"


@pytest.mark.parametrize("language", ["en", "es"])
def test_without_a_provider_the_stream_ends_with_an_error_event(ada, session, language):
    events = sse_events(ada.stream(f"/chat-sessions/{session['id']}/messages/stream", _body(language)))
    assert [event["type"] for event in events] == ["mode", "phase", "error"]
    assert events[-1]["message"] == NO_PROVIDER[language]
    messages = ada.api("GET", f"/chat-sessions/{session['id']}").get_json()["messages"]
    assert [(m["role"], m["content"]) for m in messages][0] == ("user", "Add a payment step")


def test_the_body_language_wins_over_accept_language_in_stream_errors(ada, session):
    response = ada.stream(f"/chat-sessions/{session['id']}/messages/stream", _body("es"),
                          headers={"Accept-Language": "en"})
    error = sse_events(response)[-1]
    assert (error["type"], error["message"]) == ("error", NO_PROVIDER["es"])
    response = ada.stream(f"/chat-sessions/{session['id']}/messages/stream", _body("en"),
                          headers={"Accept-Language": "es"})
    error = sse_events(response)[-1]
    assert (error["type"], error["message"]) == ("error", NO_PROVIDER["en"])


def test_a_provider_failure_is_an_error_event_with_a_text_message(ada, session, ai):
    ai.openai.reply(status=429, error="slow down")
    events = sse_events(ada.stream(f"/chat-sessions/{session['id']}/messages/stream", _body()))
    assert events[-1]["type"] == "error" and isinstance(events[-1]["message"], str)
    assert "done" not in [event["type"] for event in events]


def test_a_stream_to_an_unknown_session_is_plain_json_the_consumer_shows(ada, session):
    ada.api("DELETE", f"/chat-sessions/{session['id']}")
    response = ada.stream(f"/chat-sessions/{session['id']}/messages/stream", _body())
    assert shown_detail(response, 404)


def test_the_non_streamed_send_answers_the_saved_reply(ada, session, ai):
    ai.openai.reply(text="".join(REPLY))
    response = ada.api("POST", f"/chat-sessions/{session['id']}/messages",
                       json=_body(preset_action="improve_process"))
    assert response.status_code == 201, response.get_json()
    message = reads(response.get_json(), *MESSAGE)
    assert message["role"] == "assistant" and message["improved_code"].startswith("flowchart TD")
    removed = ada.api("DELETE", f"/chat-sessions/{session['id']}/messages/{message['id']}")
    assert removed.status_code == 200 and isinstance(reads(removed.get_json(), "message")["message"], str)


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_non_streamed_send_without_a_provider_is_a_404_with_text(ada, session, language):
    response = ada.api("POST", f"/chat-sessions/{session['id']}/messages", json=_body(language))
    assert shown_detail(response, 404) == NO_PROVIDER[language]
