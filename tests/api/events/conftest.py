"""Change feed fixtures (docs/events.md): a team workspace with a member of each role and a diagram in it, and
streams opened over HTTP and read with a deadline.

The test client reads an answer's first chunk when the request is made, so a stream that has nothing to say
would hold `get` until its first keep-alive: the keep-alive is short here (KEEPALIVE). On Redis, delivery
goes through a listener thread, so reading always waits with a deadline instead of assuming an event is
already queued. Every stream opened through `follow` is closed after the test, and the worker's hub must
then hold no subscription (a stream that leaks its subscription fails its test).
"""
import json
import time
from dataclasses import dataclass

import pytest

from trazo.core.events.streams import feed

from ...helpers import create_diagram, create_project, error_detail, validation_errors

KEEPALIVE = 0.1  # seconds between keep-alive comments (SSE_KEEPALIVE_SECONDS) in these tests
WAIT = 8.0  # seconds a test waits for an event before failing
ROLES = ("viewer", "commenter", "editor", "admin")


@dataclass(frozen=True)
class Event:
    id: str | None
    name: str | None
    data: object

    @property
    def author(self):
        return self.data.get("author")


def parse_block(block):
    """(an Event, or None for a comment block) of one SSE block; an unknown line fails the test."""
    event_id = name = data = None
    comment = False
    for line in block.split("\n"):
        if line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            assert data is None, f"two data lines in one event: {block!r}"
            data = json.loads(line[6:])
        elif line.startswith(":"):
            comment = True
        elif line:
            raise AssertionError(f"unexpected SSE line {line!r}")
    if comment and name is None and data is None:
        assert block == ": keep-alive", block
        return None
    assert data is not None, f"an event without data: {block!r}"
    return Event(event_id, name, data)


class Stream:
    """An open feed stream: its answer, and its events read in order, each read bounded by a deadline."""

    def __init__(self, response):
        self.response = response
        self._chunks = iter(response.response)
        self._text = ""
        self._events = []  # parsed, not yet handed out
        self.keep_alives = 0
        self.ended = False

    @property
    def headers(self):
        return self.response.headers

    def _pull(self):
        try:
            chunk = next(self._chunks)
        except StopIteration:
            self.ended = True
            return
        self._text += chunk.decode() if isinstance(chunk, bytes) else chunk
        *blocks, self._text = self._text.split("\n\n")
        for block in blocks:
            event = parse_block(block)
            if event is None:
                self.keep_alives += 1
            else:
                self._events.append(event)

    def next(self, timeout=WAIT):
        """The next event (keep-alives skipped); fails when none comes within `timeout` or the stream ends."""
        deadline = time.monotonic() + timeout
        while not self._events:
            assert not self.ended, "the stream ended"
            assert time.monotonic() < deadline, f"no event within {timeout} s"
            self._pull()
        return self._events.pop(0)

    def rest(self, timeout=WAIT):
        """Every event until the stream ends (fails when it is still open after `timeout`)."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            if self._events:
                seen.append(self._events.pop(0))
                continue
            if self.ended:
                return seen
            assert time.monotonic() < deadline, f"the stream was still open after {timeout} s: {seen}"
            self._pull()

    def replayed(self):
        """The events a resumed stream starts with: its first chunk holds every replayed event at once."""
        assert not self._events and not self._text, "read the replay first"
        self._pull()
        seen, self._events = self._events, []
        return seen

    def quiet(self, seconds):
        """The events that arrive within `seconds` (keep-alives go on meanwhile)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.ended:
            self._pull()
        seen, self._events = self._events, []
        return seen

    def close(self):
        self.response.close()


@dataclass
class Team:
    id: str
    owner: object
    members: dict  # role -> client; "owner" too
    project: dict
    diagram: dict

    def __getitem__(self, role):
        return self.members[role]


@pytest.fixture
def team(app, user, make_user, make_team):
    """A team workspace owned by `user` ("Test User") with one member of each other role (named after it), a
    project and a diagram in it made by the owner."""
    members = {role: make_user(full_name=role.title()) for role in ROLES}
    workspace = make_team(user, members=[(client, role) for role, client in members.items()])
    project = create_project(user, name="Shared", workspace_id=workspace["id"])
    diagram = create_diagram(user, project["id"], title="Flow", content="graph TD\n  A --> B")
    return Team(workspace["id"], user, {**members, "owner": user}, project, diagram)


def diagram_path(diagram_id):
    return f"/diagrams/{diagram_id}/events"


def workspace_path(workspace_id):
    return f"/workspaces/{workspace_id}/events"


@pytest.fixture
def hub(app):
    return feed(app).hub


@pytest.fixture
def request_stream(app, configure, hub):
    """request_stream(client, path, last_event_id=None, ticket=None, **kwargs) -> the unbuffered answer
    (closed after the test, whatever its status)."""
    configure(SSE_KEEPALIVE_SECONDS=KEEPALIVE)
    opened = []

    def send(client, path, last_event_id=None, ticket=None, **kwargs):
        headers = dict(kwargs.pop("headers", {}))
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        if ticket is not None:
            kwargs["query_string"] = {"ticket": ticket}
        response = client.get(path, headers=headers, buffered=False, **kwargs)
        opened.append(response)
        return response

    yield send
    for response in opened:
        response.close()
    assert hub.open_count() == 0, "a closed stream left its subscription in the hub"


@pytest.fixture
def follow(request_stream):
    """follow(client, path, ...) -> an open Stream (asserts 200 and the SSE headers)."""

    def open_stream(client, path, **kwargs):
        response = request_stream(client, path, **kwargs)
        assert response.status_code == 200, (response.status_code, response.get_data(as_text=True)[:300])
        assert response.mimetype == "text/event-stream"
        assert response.headers["Cache-Control"] == "no-cache" and response.headers["X-Accel-Buffering"] == "no"
        return Stream(response)

    return open_stream


@pytest.fixture
def feeds(follow, team):
    """feeds(client=viewer) -> (the team diagram's stream, the team workspace's stream), both opened by the
    viewer unless told otherwise."""

    def open_both(client=None, diagram_id=None):
        client = client or team["viewer"]
        return (follow(client, diagram_path(diagram_id or team.diagram["id"])),
                follow(client, workspace_path(team.id)))

    return open_both


def refused(response, status, **kwargs):
    """The detail of a stream route's refusal. A stream that opened instead fails at once: its body never
    ends, so reading it (as error_detail does to explain a wrong status) would hang the test."""
    assert response.status_code != 200, "the stream opened"
    if status == 422:
        return validation_errors(response, **kwargs)
    return error_detail(response, status, **kwargs)


def id_key(event_id):
    """An event id (`<milliseconds>-<sequence>`) as a tuple that orders like the ids of one feed."""
    milliseconds, sequence = event_id.split("-")
    return int(milliseconds), int(sequence)


def person(client):
    return {"id": client.id, "full_name": client.profile["full_name"]}


def ticket(client, **body):
    response = client.post("/events/tickets", json=body)
    assert response.status_code == 201, response.json
    assert set(response.json) == {"ticket", "expires_in"}, response.json
    return response.json["ticket"]
