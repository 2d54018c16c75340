"""Fixtures of the chat area: a diagram, a session, a provider on the fake servers (tests/conftest.py), SSE
parsing."""
import json
import threading

import pytest

from ...helpers import create_diagram, create_project

MERMAID = "flowchart TD\n  A[Start] --> B[End]"


def new_diagram(client, **fields):
    project = create_project(client, name="Chat project")
    return create_diagram(client, project["id"], title="Checkout", diagram_type="mermaid", content=MERMAID,
                          **fields)


def new_session(client, diagram_id, **fields):
    response = client.post("/chat-sessions", json={"diagram_id": diagram_id, **fields})
    assert response.status_code == 201, response.json
    return response.json


def add_provider(client, provider="openai", model="gpt-test"):
    response = client.post("/ai/providers", json={"provider": provider, "api_key": "sk-test-0123456789",
                                                  "model": model})
    assert response.status_code == 201, response.json


def forget_requests(servers):
    for server in (servers.openai, servers.anthropic, servers.gemini):
        server.reset()


def message_body(**fields):
    return {"content": "Add a payment step", "diagram_code": MERMAID, "diagram_type": "mermaid", **fields}


def parse_sse(text):
    """(events, comments) of an SSE body: each `data:` JSON in order, and each comment line."""
    events, comments = [], []
    for block in text.split("\n\n"):
        for line in block.splitlines():
            if line.startswith("data: "):
                events.append(json.loads(line[len("data: "):]))
            elif line.startswith(":"):
                comments.append(line)
            elif line:
                raise AssertionError(f"unexpected SSE line {line!r}")
    return events, comments


def wait_for_streams(timeout=10):
    """Wait until every chat stream worker has finished (they write to the database at the end)."""
    for thread in threading.enumerate():
        if thread.name == "chat-stream":
            thread.join(timeout)
            assert not thread.is_alive(), "a chat stream worker is still running"


@pytest.fixture(autouse=True)
def finished_streams():
    yield
    wait_for_streams()


@pytest.fixture
def diagram(user):
    return new_diagram(user)


@pytest.fixture
def session(user, diagram):
    return new_session(user, diagram["id"])


@pytest.fixture
def ai(user, fake_providers):
    """`user` with an OpenAI provider (default) on the fake server; answers the fake servers."""
    add_provider(user)
    forget_requests(fake_providers)
    return fake_providers
