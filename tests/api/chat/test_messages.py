"""Chat messages without streaming: the reply pipeline against the fake providers, deletion, review status."""
import pytest

from ...fakes.ai_providers import Reply
from ...helpers import UNKNOWN_ID, error_detail, validation_errors
from .conftest import MERMAID, add_provider, message_body, new_diagram, new_session

MESSAGE_FIELDS = {"id", "session_id", "role", "content", "improved_code", "improvement_status",
                  "provider_used", "model_used", "generation_time", "created_at"}
NEW_CODE = "flowchart TD\n  A[Start] --> P[Pay]\n  P --> B[End]"
CODE_REPLY = f"Here is the new flow.\n<<<DIAGRAM>>>\n{NEW_CODE}\n<<<END_DIAGRAM>>>\nI added a payment step."


def send(client, session, **fields):
    return client.post(f"/chat-sessions/{session['id']}/messages", json=message_body(**fields))


def test_send_a_change_request_answers_the_proposed_diagram(user, session, ai):
    ai.openai.reply(text=CODE_REPLY)
    response = send(user, session)
    assert response.status_code == 201
    body = response.json
    assert set(body) == MESSAGE_FIELDS
    assert body["role"] == "assistant" and body["session_id"] == session["id"]
    assert body["improved_code"] == NEW_CODE and body["improvement_status"] == "pending"
    assert body["content"] == "Here is the new flow.\n\nI added a payment step."
    assert body["provider_used"] == "openai" and body["model_used"] == "gpt-test"
    assert isinstance(body["generation_time"], float) and body["generation_time"] >= 0
    sent = ai.openai.last
    assert sent["path"] == "/openai/v1/chat/completions" and sent["stream"] is False
    assert sent["json"]["model"] == "gpt-test" and sent["json"]["max_completion_tokens"] == 8192
    system, *turns = sent["json"]["messages"]
    assert system["role"] == "system" and MERMAID in system["content"] and "<<<DIAGRAM>>>" in system["content"]
    assert "MERMAID RULES" in system["content"] and "in English" in system["content"]
    assert turns == [{"role": "user", "content": "New request from the user: Add a payment step"}]
    detail = user.get(f"/chat-sessions/{session['id']}").json
    assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
    assert detail["messages"][1] == body
    assert detail["session"]["title"] == "Add a payment step" and detail["session"]["message_count"] == 2
    assert detail["session"]["last_provider"] == "openai" and detail["session"]["last_model"] == "gpt-test"


def test_a_question_gets_a_text_answer(user, session, ai):
    ai.openai.reply(text="It shows a start node that leads to an end node.")
    body = send(user, session, content="What does this diagram do?").json
    assert body["content"] == "It shows a start node that leads to an end node."
    assert body["improved_code"] is None and body["improvement_status"] is None


def test_a_text_answer_that_carries_a_diagram_becomes_a_proposal(user, session, ai):
    ai.openai.reply(text=f"Sure, like this:\n```mermaid\n{NEW_CODE}\n```")
    body = send(user, session, content="Could the flow have a payment?").json
    assert body["improved_code"] == NEW_CODE and body["content"] == "Sure, like this:"


def test_explain_never_proposes_code(user, session, ai):
    ai.openai.reply(text="The flow starts, then ends.")
    body = send(user, session, content="Go", preset_action="explain", language="es").json
    assert body["improved_code"] is None
    system = ai.openai.last["json"]["messages"][0]["content"]
    assert "explanation of the current diagram" in system and "in Spanish" in system
    assert "COMPLETE diagram" not in system


@pytest.mark.parametrize("preset, words", [("fix", "Repair the syntax errors"),
                                           ("improve_ui", "visual clarity"),
                                           ("improve_process", "process the diagram describes")])
def test_preset_actions_ask_for_a_whole_diagram(user, session, ai, preset, words):
    ai.openai.reply(text=f"<<<DIAGRAM>>>\n{NEW_CODE}\n<<<END_DIAGRAM>>>")
    body = send(user, session, content="Please", preset_action=preset).json
    assert body["improved_code"] == NEW_CODE
    system = ai.openai.last["json"]["messages"][0]["content"]
    assert words in system and "COMPLETE diagram" in system and "in English" in system


def test_think_blocks_never_reach_the_message(user, session, ai):
    ai.openai.reply(text=f"<think>The user wants a payment. I will add P.</think><<<DIAGRAM>>>\n{NEW_CODE}\n"
                         "<<<END_DIAGRAM>>>")
    body = send(user, session).json
    assert body["improved_code"] == NEW_CODE
    assert body["content"] == "The user wants a payment. I will add P."  # reasoning shown when nothing else


def test_a_truncated_reply_is_not_applied(user, session, ai):
    ai.openai.reply(text=f"<<<DIAGRAM>>>\n{NEW_CODE}", truncated=True)
    body = send(user, session).json
    assert body["role"] == "assistant" and body["improved_code"] is None
    assert "cut off" in body["content"]
    ai.openai.reply(text=f"<<<DIAGRAM>>>\n{NEW_CODE}", truncated=True)
    assert "cortó" in user.post(f"/chat-sessions/{session['id']}/messages", json=message_body(),
                                lang="es").json["content"]


@pytest.mark.parametrize("status, lang, expected", [
    (401, "en", "rejected the API key"), (429, "en", "limiting the requests"),
    (402, "en", "no credits"), (500, "en", "HTTP 500")])
def test_provider_failures_are_saved_as_error_messages(user, session, ai, status, lang, expected):
    ai.openai.reply(status=status, error="boom")
    response = user.post(f"/chat-sessions/{session['id']}/messages", json=message_body(), lang=lang)
    assert response.status_code == 201
    assert response.json["role"] == "error" and expected in response.json["content"]
    assert response.json["improved_code"] is None and response.json["provider_used"] is None
    roles = [m["role"] for m in user.get(f"/chat-sessions/{session['id']}").json["messages"]]
    assert roles == ["user", "error"]


def test_an_empty_reply_is_an_error_message(user, session, ai):
    ai.openai.reply(text="<think>only thoughts</think>")
    body = send(user, session, content="What is this?").json
    assert body["role"] == "error" and "without any usable content" in body["content"]


def test_without_a_provider_the_message_is_kept_and_the_answer_is_404(user, session, fake_providers):
    response = send(user, session)
    assert error_detail(response, 404) == "No AI provider is configured."
    assert [m["role"] for m in user.get(f"/chat-sessions/{session['id']}").json["messages"]] == ["user"]


def test_the_body_chooses_provider_and_model(user, session, ai):
    ai.openai.reply(text="Fine.")
    assert send(user, session, content="Hi?", model="gpt-other").json["model_used"] == "gpt-other"
    assert ai.openai.last["json"]["model"] == "gpt-other"
    response = send(user, session, content="Hi?", provider="claude")
    assert "Claude" in error_detail(response, 404)


def test_the_sessions_chosen_model_is_used(user, session, ai):
    assert user.put(f"/chat-sessions/{session['id']}/model",
                    json={"provider": "openai", "model": "gpt-chosen"}).status_code == 200
    ai.openai.reply(text="Fine.")
    assert send(user, session, content="Hi?").json["model_used"] == "gpt-chosen"
    # A chosen provider that is not configured (any more) falls back to the default one.
    user.put(f"/chat-sessions/{session['id']}/model", json={"provider": "gemini", "model": "g"})
    ai.openai.reply(text="Fine.")
    assert send(user, session, content="Hi?").json["model_used"] == "gpt-test"


def test_history_carries_the_summary_and_the_last_turns(user, session, ai):
    for number in range(4):
        ai.openai.reply(text=f"Answer {number}.")
        send(user, session, content=f"Question {number}?")
    ai.openai.reply(text="Last.")
    send(user, session, content="Final question?")
    turns = ai.openai.last["json"]["messages"][1:]
    assert [turn["role"] for turn in turns] == ["user", "assistant"] * 3 + ["user"]
    context = turns[1]["content"]
    assert context.startswith("[Conversation context]")
    assert "User asked: Question 0? / AI answered: Answer 0." in context
    assert "User asked: Question 3? / AI answered: Answer 3." in context
    assert [turn["content"] for turn in turns[2:]] == ["Question 2?", "Answer 2.", "Question 3?", "Answer 3.",
                                                      "New request from the user: Final question?"]
    assert "summary" not in user.get(f"/chat-sessions/{session['id']}").json["session"]


def test_auto_fix_re_asks_until_the_code_is_valid(user, session, ai):
    ai.openai.reply(text="Done.\n<<<DIAGRAM>>>\nA[Start] --> B[End]\n<<<END_DIAGRAM>>>")
    ai.openai.reply(text=f"<<<DIAGRAM>>>\n{NEW_CODE}\n<<<END_DIAGRAM>>>")
    body = send(user, session).json
    assert body["improved_code"] == NEW_CODE and body["content"] == "Done."
    assert len(ai.openai.requests) == 2
    retry_turns = ai.openai.last["json"]["messages"]
    assert retry_turns[-2]["role"] == "assistant" and "A[Start] --> B[End]" in retry_turns[-2]["content"]
    assert retry_turns[-1]["role"] == "user" and "syntax errors" in retry_turns[-1]["content"]


def test_auto_fix_gives_up_after_two_retries(user, session, ai):
    broken = "<<<DIAGRAM>>>\nA --> B\n<<<END_DIAGRAM>>>"
    for _ in range(4):
        ai.openai.reply(text=broken)
    body = send(user, session).json
    assert body["improved_code"] == "A --> B" and len(ai.openai.requests) == 3


def test_auto_fix_can_be_switched_off(user, session, ai):
    assert user.put("/ai/settings/auto-fix", json={"enabled": False}).status_code == 200
    ai.openai.reply(text="<<<DIAGRAM>>>\nA --> B\n<<<END_DIAGRAM>>>")
    assert send(user, session).json["improved_code"] == "A --> B"
    assert len(ai.openai.requests) == 1


def test_auto_fix_skips_types_it_cannot_check(user, session, ai):
    ai.openai.reply(text="<<<DIAGRAM>>>\nTable users {\n  id int\n<<<END_DIAGRAM>>>")
    body = send(user, session, diagram_type="dbml", diagram_code="Table a {\n id int\n}").json
    assert body["improved_code"] == "Table users {\n  id int" and len(ai.openai.requests) == 1


def test_a_long_conversation_moves_to_a_new_session(user, session, ai):
    for number in range(2):
        ai.openai.reply(text=f"Answer {number}.")
        send(user, session, content=f"Question {number}? " + "x" * 4900)
    ai.openai.reply(text="Summary of the talk.")
    ai.openai.reply(text="Fine.")
    body = send(user, session, content="One more?", diagram_code="%% big\n" + "A-->B\n" * 33_000).json
    assert body["role"] == "assistant" and body["session_id"] != session["id"]
    summary_call, chat_call = ai.openai.requests[-2:]
    assert "Question 0?" in summary_call["json"]["messages"][-1]["content"]
    assert "Summary of the talk." in chat_call["json"]["messages"][2]["content"]
    old = user.get(f"/chat-sessions/{session['id']}").json
    new = user.get(f"/chat-sessions/{body['session_id']}").json
    assert old["session"]["status"] == "finalized" and old["session"]["message_count"] == 4
    assert new["session"]["parent_session_id"] == session["id"] and new["session"]["status"] == "active"
    assert [m["role"] for m in new["messages"]] == ["user", "assistant"]
    assert new["messages"][0]["content"] == "One more?"
    response = user.post(f"/chat-sessions/{session['id']}/messages", json=message_body(), lang="es")
    assert error_detail(response, 400) == "No se pueden enviar mensajes a una sesión finalizada"


@pytest.mark.parametrize("fields, field", [
    ({"content": ""}, "content"), ({"content": "   "}, "content"), ({"content": "x" * 5001}, "content"),
    ({"content": None}, "content"), ({"diagram_code": None}, "diagram_code"),
    ({"diagram_type": "visio"}, "diagram_type"), ({"provider": "skynet"}, "provider"),
    ({"preset_action": "dance"}, "preset_action")])
def test_send_validates_the_body(user, session, ai, fields, field):
    response = send(user, session, **fields)
    validation_errors(response, field)
    assert ai.openai.requests == []


def test_send_to_another_users_session_is_404(user, other_user, session, ai):
    response = other_user.post(f"/chat-sessions/{session['id']}/messages", json=message_body())
    assert error_detail(response, 404) == "Chat session not found"
    assert user.get(f"/chat-sessions/{session['id']}").json["messages"] == [] and ai.openai.requests == []


def test_sends_are_limited_per_user(app, user, other_user, session, ai, monkeypatch):
    monkeypatch.setitem(app.config, "RATE_LIMIT_AI", "2/minute")
    ai.openai.default = Reply(text="Fine.")
    assert send(user, session, content="One?").status_code == 201
    streamed = user.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body(content="Two?"))
    assert streamed.status_code == 200
    streamed.get_data()
    response = user.post(f"/chat-sessions/{session['id']}/messages", json=message_body(), lang="es")
    assert "Demasiadas" in error_detail(response, 429)
    assert int(response.headers["Retry-After"]) > 0
    response = user.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body())
    assert error_detail(response, 429) and response.headers["Retry-After"]
    add_provider(other_user)
    theirs = new_session(other_user, new_diagram(other_user)["id"])
    assert send(other_user, theirs, content="Mine?").status_code == 201


def test_delete_a_message(user, session, ai):
    ai.openai.reply(text="Fine.")
    reply = send(user, session, content="Hi?").json
    response = user.delete(f"/chat-sessions/{session['id']}/messages/{reply['id']}", lang="es")
    assert response.status_code == 200 and response.json == {"message": "Mensaje eliminado"}
    response = user.delete(f"/chat-sessions/{session['id']}/messages/{reply['id']}")
    assert error_detail(response, 404) == "Message not found"
    assert [m["role"] for m in user.get(f"/chat-sessions/{session['id']}").json["messages"]] == ["user"]


def test_a_message_of_another_session_is_404(user, session, diagram, ai):
    ai.openai.reply(text="Fine.")
    reply = send(user, session, content="Hi?").json
    sibling = new_session(user, diagram["id"])
    for method, path, body in [("delete", f"/chat-sessions/{sibling['id']}/messages/{reply['id']}", None),
                               ("put", f"/chat-sessions/{sibling['id']}/messages/{reply['id']}/status",
                                {"status": "accepted"})]:
        assert error_detail(getattr(user, method)(path, json=body), 404) == "Message not found"
    assert error_detail(user.delete(f"/chat-sessions/{session['id']}/messages/{UNKNOWN_ID}"), 404)
    assert len(user.get(f"/chat-sessions/{session['id']}").json["messages"]) == 2


def test_accept_or_reject_a_proposal_once(user, session, ai):
    ai.openai.reply(text=CODE_REPLY)
    proposal = send(user, session).json
    path = f"/chat-sessions/{session['id']}/messages/{proposal['id']}/status"
    response = user.put(path, json={"status": "accepted"})
    assert response.status_code == 200
    assert response.json == {**proposal, "improvement_status": "accepted"}
    assert error_detail(user.put(path, json={"status": "rejected"}, lang="es"), 400) == "El mensaje ya fue aceptado"
    ai.openai.reply(text=CODE_REPLY)
    second = send(user, session).json
    path = f"/chat-sessions/{session['id']}/messages/{second['id']}/status"
    assert user.put(path, json={"status": "rejected"}).json["improvement_status"] == "rejected"
    assert error_detail(user.put(path, json={"status": "accepted"}), 400) == "The message was already rejected"


def test_status_needs_a_proposal(user, session, ai):
    ai.openai.reply(text="Fine.")
    reply = send(user, session, content="Hi?").json
    response = user.put(f"/chat-sessions/{session['id']}/messages/{reply['id']}/status", json={"status": "accepted"})
    assert error_detail(response, 400) == "The message has no improved code"


@pytest.mark.parametrize("body", [{}, {"status": "maybe"}, {"status": None}])
def test_status_validates_the_body(user, session, body):
    validation_errors(user.put(f"/chat-sessions/{session['id']}/messages/{UNKNOWN_ID}/status", json=body), "status")


def test_provider_usage_counts_replies_of_my_sessions(user, other_user, session, diagram, ai):
    ai.openai.reply(text="One.")
    send(user, session, content="Hi?")
    ai.openai.reply(text="Two.")
    send(user, new_session(user, diagram["id"]), content="Hi?", model="gpt-other")
    ai.openai.reply(status=500)
    send(user, session, content="Hi?")
    assert user.get("/chat-sessions/stats/provider-usage").json == {"provider_counts": {"openai": 2},
                                                                    "total_messages": 2}
    assert other_user.get("/chat-sessions/stats/provider-usage").json == {"provider_counts": {},
                                                                          "total_messages": 0}


def test_the_first_message_names_an_untitled_session(user, diagram, ai):
    untitled, named = new_session(user, diagram["id"]), new_session(user, diagram["id"], title="Mine")
    for session in (untitled, named):
        ai.openai.reply(text="Fine.")
        send(user, session, content="Please add a payment step between the cart and the shipping screen\nThanks")
    assert user.get(f"/chat-sessions/{untitled['id']}").json["session"]["title"] == \
        "Please add a payment step between the cart and…"
    assert user.get(f"/chat-sessions/{named['id']}").json["session"]["title"] == "Mine"
