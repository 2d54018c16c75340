"""A member who leaves or is removed loses their chat sessions on the workspace's diagrams, and their open
chat stream ends (docs/teams.md, "What leaving and deleting do")."""
import time

import pytest

from ...helpers import create_diagram, create_project, error_detail
from .conftest import MERMAID, add_provider, forget_requests, message_body, new_session, parse_sse

SLOW = {"chunks": [f"word{index} " for index in range(40)], "chunk_delay": 0.1}


@pytest.fixture
def team(user, other_user, make_team):
    return make_team(user, members=[(other_user, "viewer")])


@pytest.fixture
def team_diagram(user, team):
    project = create_project(user, name="Team project", workspace_id=team["id"])
    return create_diagram(user, project["id"], title="Team flow", diagram_type="mermaid", content=MERMAID)


@pytest.fixture
def member_ai(other_user, fake_providers):
    add_provider(other_user)
    forget_requests(fake_providers)
    return fake_providers


def _open_stream(client, session):
    response = client.post(f"/chat-sessions/{session['id']}/messages/stream",
                           json=message_body(content="Why?"), buffered=False)
    assert response.status_code == 200
    chunks = iter(response.response)
    return next(chunks), chunks


@pytest.mark.parametrize("how", ["removed", "left"])
def test_leaving_deletes_the_members_sessions_on_the_workspaces_diagrams_only(user, other_user, team, team_diagram,
                                                                               how):
    theirs = new_session(other_user, team_diagram["id"])
    owners = new_session(user, team_diagram["id"])
    own_project = create_project(other_user, name="Own")
    elsewhere = new_session(other_user, create_diagram(other_user, own_project["id"])["id"])
    if how == "removed":
        assert user.delete(f"/workspaces/{team['id']}/members/{other_user.id}").status_code == 200
    else:
        assert other_user.post(f"/workspaces/{team['id']}/leave").status_code == 200
    error_detail(other_user.get(f"/chat-sessions/{theirs['id']}"), 404)
    assert other_user.get(f"/chat-sessions/{elsewhere['id']}").status_code == 200
    assert user.get(f"/chat-sessions/{owners['id']}").status_code == 200
    assert user.get(f"/projects/{team_diagram['project_id']}").json["diagram_count"] == 1  # content untouched


def test_an_open_stream_ends_with_an_error_once_its_caller_is_removed(user, other_user, team, team_diagram,
                                                                      member_ai, configure):
    configure(SSE_ACCESS_CHECK_SECONDS=0.05)
    member_ai.openai.reply(**SLOW)
    session = new_session(other_user, team_diagram["id"])
    first, rest = _open_stream(other_user, session)
    assert user.delete(f"/workspaces/{team['id']}/members/{other_user.id}").status_code == 200
    started = time.monotonic()
    body = first.decode() + b"".join(rest).decode()
    assert time.monotonic() - started < 2  # long before the 4 s reply would have finished
    events, _comments = parse_sse(body)
    assert events[-1] == {"type": "error", "message": "You no longer have access to this chat session.",
                          "error_code": "access_ended"}
    assert "done" not in [event["type"] for event in events]


def test_the_ending_event_follows_the_language_of_the_request(user, other_user, team, team_diagram, member_ai,
                                                              configure):
    configure(SSE_ACCESS_CHECK_SECONDS=0.05)
    member_ai.openai.reply(**SLOW)
    session = new_session(other_user, team_diagram["id"])
    response = other_user.post(f"/chat-sessions/{session['id']}/messages/stream",
                               json=message_body(content="Why?"), buffered=False, lang="es")
    chunks = iter(response.response)
    first = next(chunks)
    assert other_user.post(f"/workspaces/{team['id']}/leave").status_code == 200
    events, _ = parse_sse(first.decode() + b"".join(chunks).decode())
    assert events[-1]["message"] == "Ya no tiene acceso a esta sesión de chat."


def test_a_stream_whose_access_holds_runs_to_its_end_through_many_checks(other_user, team, team_diagram, member_ai,
                                                                         configure, count_queries):
    configure(SSE_ACCESS_CHECK_SECONDS=0.05)
    member_ai.openai.reply(chunks=[f"w{index} " for index in range(8)], chunk_delay=0.1)
    session = new_session(other_user, team_diagram["id"])
    with count_queries() as counted:
        first, rest = _open_stream(other_user, session)
        events, _ = parse_sse(first.decode() + b"".join(rest).decode())
    assert events[-1]["type"] == "done"
    checks = [s for s in counted.statements if "chat_sessions" in s and "workspace_members" in s]
    assert len(checks) >= 5
