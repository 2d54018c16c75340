"""Inputs and replies built to make a parser backtrack: each is read within a second at the largest size."""
import time

import pytest

from trazo.core.content.validation import MAX_CHECKED_CHARS, syntax_problems
from trazo.services.ai.prompts.convert import read_convert_reply
from trazo.services.ai.prompts.fix import read_fix_reply
from trazo.services.ai.text import extract_code
from trazo.services.ai.transport import sse_data
from trazo.services.render.diagnostics import clean_message, find_line

from ...helpers import error_detail
from ...hostile_texts import AI_MAX_RESPONSE_BYTES, SHAPES, hostile, largest_reply

LARGEST_CODE = 200_000  # diagram_code of POST /diagrams/convert


def cpu_seconds(call, *args):
    started = time.thread_time()
    call(*args)
    return time.thread_time() - started


@pytest.fixture
def english(app):
    with app.test_request_context(headers={"Accept-Language": "en"}):
        yield


@pytest.mark.parametrize("source", ["mermaid", "plantuml"])
def test_the_data_model_check_of_convert_reads_the_largest_code_within_a_second(with_provider, fake_providers,
                                                                                 source):
    body = {"diagram_code": hostile("newlines", LARGEST_CODE), "source_type": source, "target_type": "dbml"}
    started = time.thread_time()
    detail = error_detail(with_provider.post("/diagrams/convert", json=body), 422)
    assert time.thread_time() - started < 1
    assert detail == ("Only data models (entity-relationship diagrams, entities or SQL tables) can be converted "
                      "to DBML.")
    assert fake_providers.openai.requests == []


@pytest.mark.parametrize("shape", SHAPES)
def test_convert_reads_a_hostile_reply_of_the_largest_size_within_a_second(with_provider, fake_providers, shape):
    fake_providers.openai.reply(text=largest_reply(shape))
    body = {"diagram_code": "flowchart TD\n  A --> B", "source_type": "mermaid", "target_type": "plantuml"}
    started = time.thread_time()
    response = with_provider.post("/diagrams/convert", json=body)
    assert time.thread_time() - started < 1
    if shape == "start markers":  # empty fences only: no code at all
        assert error_detail(response, 502)["error"] == "empty_response"
    else:
        assert error_detail(response, 422) == ("openai (gpt-test) could not convert this diagram to plantuml. "
                                               "The original was not changed.")


@pytest.mark.parametrize("read", [extract_code, read_fix_reply, read_convert_reply])
def test_reply_readers_take_under_a_second_on_every_hostile_reply(read):
    spent = {shape: cpu_seconds(read, hostile(shape, AI_MAX_RESPONSE_BYTES)) for shape in SHAPES}
    assert max(spent.values()) < 1, spent


@pytest.mark.parametrize("diagram_type", ["mermaid", "plantuml", "d2", "dbml"])
def test_the_validator_takes_under_a_second_on_every_hostile_code_it_reads(english, diagram_type):
    spent = {shape: cpu_seconds(syntax_problems, hostile(shape, MAX_CHECKED_CHARS), diagram_type)
             for shape in SHAPES}
    assert max(spent.values()) < 1, spent


def test_the_validator_refuses_longer_code_unread(english):
    assert syntax_problems("flowchart TD\n" + "  A --> B\n" * MAX_CHECKED_CHARS, "mermaid") == [
        f"The diagram code is too long to check (more than {MAX_CHECKED_CHARS} characters)."]


@pytest.mark.parametrize("read", [clean_message, find_line])
def test_renderer_error_readers_take_under_a_second_on_every_hostile_text(read):
    spent = {shape: cpu_seconds(read, hostile(shape, AI_MAX_RESPONSE_BYTES)) for shape in SHAPES}
    assert max(spent.values()) < 1, spent


@pytest.mark.parametrize(("text", "line"), [
    ("Error 400: syntax error in line 7 near 'x'", 7),
    ("Error: \nERROR\n\n  12 \nSome diagram description contains errors", 12),
    ("ERROR\nnot a number\nERROR\n\n3\n", 3),
    ("ERROR\n0\nerr.d2:4:2: unexpected", 4),
    ("<stdin>:3:5: bad token", 3),
    ("nothing to point at", None),
])
def test_find_line_reads_each_renderers_convention(text, line):
    assert find_line(text) == line


class _Trickled:
    """A streamed answer as the transport reads it: what arrived, one small piece at a time."""

    def __init__(self, pieces):
        self.pieces = pieces

    def chunks(self):
        return iter(self.pieces)


def test_a_stream_of_one_long_line_in_small_pieces_is_read_in_linear_time():
    pieces = [b"data: " + b"x" * 10] + [b"y" * 16] * (AI_MAX_RESPONSE_BYTES // 16) + [b"\n\ndata: [DONE]\n\n"]
    started = time.thread_time()
    events = list(sse_data(_Trickled(pieces)))
    assert time.thread_time() - started < 1  # every piece rescanned all that was pending before
    assert len(events) == 2 and events[1] == "[DONE]" and len(events[0]) == 10 + AI_MAX_RESPONSE_BYTES // 16 * 16
