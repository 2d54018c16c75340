"""Chat replies built to make the reply parser backtrack are read within a second at the largest size."""
import time

import pytest

from trazo.services.ai.replies import carries_diagram, has_start_marker, split_reply

from ...hostile_texts import AI_MAX_RESPONSE_BYTES, SHAPES, hostile, largest_reply
from .conftest import message_body, parse_sse, wait_for_streams


@pytest.mark.parametrize("read", [
    lambda text: split_reply(text, "mermaid"), lambda text: split_reply(text, "dbml"),
    lambda text: split_reply(text, "plantuml"), lambda text: carries_diagram(text, "mermaid"), has_start_marker,
], ids=["split mermaid", "split dbml", "split plantuml", "carries_diagram", "has_start_marker"])
def test_the_reply_parser_takes_under_a_second_on_every_hostile_reply(read):
    spent = {}
    for shape in SHAPES:
        started = time.thread_time()
        read(hostile(shape, AI_MAX_RESPONSE_BYTES))
        spent[shape] = time.thread_time() - started
    assert max(spent.values()) < 1, spent


EMPTY = {"type": "error", "message": "The AI answered without any usable content. Try again.",
         "error_code": "empty_response"}


@pytest.mark.parametrize(("shape", "last"), [("blank lines", EMPTY), ("spaces after a slash", "done"),
                                             ("marker fragments", "done"), ("start markers", "done")])
def test_a_streamed_hostile_reply_of_the_largest_size_ends_within_a_second(user, session, ai, shape, last):
    ai.openai.reply(chunks=[largest_reply(shape)])
    started = time.process_time()
    response = user.post(f"/chat-sessions/{session['id']}/messages/stream", json=message_body())
    events, _comments = parse_sse(response.get_data(as_text=True))
    wait_for_streams()
    spent = time.process_time() - started
    assert response.status_code == 200 and events[0] == {"type": "mode", "mode": "code"}
    assert events[-1]["type"] == "done" if last == "done" else events[-1] == last, events[-1]
    assert spent < 1, spent
