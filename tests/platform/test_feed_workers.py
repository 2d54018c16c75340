"""The change feed across processes (docs/events.md): two real gunicorn instances of one worker each, on one
database and one Redis. A save answered by one reaches the streams another holds (its listener's channel),
and a stream reopened on the first with Last-Event-ID replays what came after that id (the Redis streams).
A stream's answer starts at once, before any event or keep-alive."""
import json
import os

import pytest
import redis
import requests

from ..helpers import PASSWORD
from .test_metrics_workers import Gunicorn, _answers, _wait

REDIS_URL = os.environ.get("TEST_REDIS_URL") or "redis://127.0.0.1:6379/12"
UPDATED = "diagram.updated"


def _redis_refusal():
    """Why REDIS_URL cannot be used, or None."""
    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        return f"the feed across workers needs Redis; {REDIS_URL} is not reachable ({error}); set TEST_REDIS_URL"
    return None


@pytest.fixture(scope="module")
def instances(tmp_path_factory, app, app_env):
    """Instances A and B, one worker each, on the suite's database (`app` made its tables) and REDIS_URL.
    A stream the test closed holds its thread until its next keep-alive (15 s): the instances stop together,
    after a graceful timeout of 2 s."""
    if refusal := _redis_refusal():
        pytest.skip(refusal)
    env = {**os.environ, **app_env, "WEB_CONCURRENCY": "1", "GUNICORN_THREADS": "8", "GUNICORN_ACCESSLOG": "",
           "GUNICORN_GRACEFUL_TIMEOUT": "2", "RATELIMIT_STORAGE_URI": REDIS_URL, "RATELIMIT_ENABLED": "false"}
    servers = []
    try:
        for name in ("a", "b"):
            servers.append(Gunicorn(tmp_path_factory.mktemp(f"gunicorn-{name}"), env))
        for server in servers:
            _wait(lambda server=server: _answers(server.base), 60, "gunicorn to answer")
        yield servers
    finally:
        for server in servers:
            server.process.terminate()
        for server in servers:
            server.stop()


class Api:
    """A signed-in user of one instance."""

    def __init__(self, base, email):
        self.api = f"{base}/api/v1"
        self.session = requests.Session()
        self.call("POST", "/users/register", {"email": email, "password": PASSWORD, "full_name": "Feed"}, 201)
        token = self.call("POST", "/users/login", {"email": email, "password": PASSWORD}, 200)["access_token"]
        self.session.headers["Authorization"] = f"Bearer {token}"

    def call(self, method, path, body, status):
        response = self.session.request(method, self.api + path, json=body, timeout=30)
        assert response.status_code == status, response.text
        return response.json()


class Stream:
    """A feed stream read event by event: {"id", "event", "data"} with `data` parsed. Every read, the answer's
    headers first, waits at most 5 s: the headers come once the server registered the stream, before any
    event or keep-alive (every 15 s), so a save sent after they came reaches the stream."""

    def __init__(self, url, session, last_event_id=None):
        headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
        self.response = session.get(url, headers=headers, stream=True, timeout=(5, 5))
        assert self.response.status_code == 200, self.response.text
        self._lines = self.response.iter_lines(decode_unicode=True)

    def next_event(self, name):
        """The next event called `name`."""
        fields = {}
        for line in self._lines:
            if line and not line.startswith(":"):
                key, _colon, value = line.partition(": ")
                fields[key] = value
            elif not line and fields:
                event, fields = fields, {}
                if event.get("event") == name:
                    return {**event, "data": json.loads(event["data"])}
        pytest.fail(f"the stream ended before a {name} event")

    def close(self):
        self.response.close()


def test_a_save_on_one_instance_reaches_the_other_and_a_reconnect_on_the_first_resumes(instances):
    a, b = instances
    editor = Api(a.base, "feed-workers@example.com")
    project = editor.call("POST", "/projects", {"name": "Feed"}, 201)
    diagram = editor.call("POST", f"/projects/{project['id']}/diagrams",
                          {"title": "D", "diagram_type": "mermaid", "content": "graph TD\n  A --> B"}, 201)
    feeds = (f"diagrams/{diagram['id']}", f"workspaces/{project['workspace_id']}")
    streams = [Stream(f"{b.base}/api/v1/{feed}/events", editor.session) for feed in feeds]
    try:
        saves = [editor.call("PUT", f"/diagrams/{diagram['id']}", {"content": f"graph TD\n  A --> C{n}"}, 200)
                 for n in range(2)]
        seen = [[stream.next_event(UPDATED) for _save in saves] for stream in streams]
    finally:
        for stream in streams:
            stream.close()
    for events in seen:
        assert [(event["data"]["diagram_id"], event["data"]["version"]) for event in events] == [
            (diagram["id"], save["version"]) for save in saves]
    first, second = seen[0]
    assert saves[1]["version"] > saves[0]["version"] > diagram["version"]

    resumed = Stream(f"{a.base}/api/v1/diagrams/{diagram['id']}/events", editor.session, first["id"])
    try:
        replayed = resumed.next_event(UPDATED)
    finally:
        resumed.close()
    assert replayed["id"] == second["id"] and replayed["data"] == second["data"]
