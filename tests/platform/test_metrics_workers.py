"""GET /metrics under a real gunicorn with two workers (the project's gunicorn.conf.py): the scrape adds up
what every worker counted, and a worker that dies stops counting in the live gauges but keeps its counts."""
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from ..api.chat.conftest import MERMAID, message_body
from ..fakes.base import free_port
from ..helpers import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "workers-metrics-token-0123456789abcdef"
SERVED = {"route": "/", "method": "GET", "status": "200"}
PID_FILE = re.compile(r"_(\d+)\.db$")
STALE = "counter_4242.db"  # a previous run's file: gunicorn must start from an empty directory


def _wait(condition, seconds, what):
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if result := condition():
            return result
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


class Gunicorn:
    def __init__(self, directory, env):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.metrics_dir = directory / "metrics"
        self.metrics_dir.mkdir()
        (self.metrics_dir / STALE).write_bytes(b"left over")
        self.log = (directory / "gunicorn.log").open("wb")
        env = {**env, "PORT": str(self.port), "PROMETHEUS_MULTIPROC_DIR": str(self.metrics_dir)}
        # No control socket: its default path is shared by every gunicorn this user runs.
        command = [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--no-control-socket"]
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def workers(self):
        """Pids of the live workers (children of the master)."""
        pids = set()
        for path in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = path.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid and fields[0] != "Z":
                pids.add(int(path.parent.name))
        return pids

    def files(self, pid):
        return {path.name for path in self.metrics_dir.iterdir() if PID_FILE.search(path.name)
                and int(PID_FILE.search(path.name).group(1)) == pid}

    def own_value(self, pid, kind, name, **labels):
        """A value as one worker's own file holds it."""
        for metric in MultiProcessCollector.merge([str(self.metrics_dir / f"{kind}_{pid}.db")], accumulate=False):
            for sample in metric.samples:
                if sample.name == name and sample.labels == labels:
                    return sample.value
        return 0.0

    def scrape(self):
        response = requests.get(f"{self.base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
        assert response.status_code == 200, response.text[:300]
        values = {}
        for family in text_string_to_metric_families(response.text):
            for sample in family.samples:
                values[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
        return lambda name, **labels: values.get((name, tuple(sorted(labels.items()))), 0.0)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self.log.close()


@pytest.fixture
def gunicorn(tmp_path, app_env, provider_servers):
    """Two workers on the suite's database (its tables exist), limits in Redis when the suite has it."""
    env = {**os.environ, **app_env, "WEB_CONCURRENCY": "2", "GUNICORN_THREADS": "8", "GUNICORN_ACCESSLOG": "",
           "METRICS_TOKEN": TOKEN, "OPENAI_BASE_URL": provider_servers.openai.url,
           "RATELIMIT_STORAGE_URI": os.environ.get("TEST_REDIS_URL") or "memory://"}
    server = Gunicorn(tmp_path, env)
    try:
        _wait(lambda: _answers(server.base), 60, "gunicorn to answer")
        _wait(lambda: len(server.workers()) == 2 and all(server.files(pid) for pid in server.workers()), 30,
              "both workers to start")
        yield server
    finally:
        server.stop()
        provider_servers.reset()


def _answers(base):
    try:
        return requests.get(f"{base}/health", timeout=2).status_code == 200
    except requests.RequestException:  # not listening yet, or no worker has booted
        return False


def _get_root(base):
    response = requests.get(f"{base}/", headers={"Connection": "close"}, timeout=10)
    assert response.status_code == 200 and response.json()["name"] == "Trazo"


def _chat_session(base, email):
    """A signed-in user with a provider and a chat session: (its headers, the session's stream URL)."""
    api = f"{base}/api/v1"
    assert requests.post(f"{api}/users/register", json={"email": email, "password": PASSWORD,
                                                        "full_name": "Scraper"}, timeout=30).status_code == 201
    token = requests.post(f"{api}/users/login", json={"email": email, "password": PASSWORD}, timeout=30).json()
    auth = {"Authorization": f"Bearer {token['access_token']}"}

    def post(path, body, status=201):
        response = requests.post(f"{api}{path}", json=body, headers=auth, timeout=30)
        assert response.status_code == status, response.text
        return response.json()

    post("/ai/providers", {"provider": "openai", "api_key": "sk-test-0123456789", "model": "gpt-test"})
    project = post("/projects", {"name": "Workers"})
    diagram = post(f"/projects/{project['id']}/diagrams", {"title": "D", "diagram_type": "mermaid",
                                                           "content": MERMAID})
    session = post("/chat-sessions", {"diagram_id": diagram["id"]})
    return auth, f"{api}/chat-sessions/{session['id']}/messages/stream"


def test_two_workers_report_one_sum_and_a_dead_workers_live_gauges_go(gunicorn, provider_servers):
    assert not (gunicorn.metrics_dir / STALE).exists()
    first, second = sorted(gunicorn.workers())
    sent = 0
    with ThreadPoolExecutor(16) as pool:
        # The kernel hands each new connection to either worker: send until both have served some.
        while sent < 2000 and not all(gunicorn.own_value(pid, "counter", "trazo_http_requests_total", **SERVED)
                                      for pid in (first, second)):
            list(pool.map(lambda _n: _get_root(gunicorn.base), range(40)))
            sent += 40
    served = {pid: gunicorn.own_value(pid, "counter", "trazo_http_requests_total", **SERVED) for pid in (first, second)}
    assert all(served.values()) and sum(served.values()) == sent, served
    for pid in (first, second):
        assert {f"counter_{pid}.db", f"histogram_{pid}.db", f"gauge_livesum_{pid}.db"} <= gunicorn.files(pid)
    for _ in range(4):  # whichever worker answers the scrape, it reports both
        scraped = gunicorn.scrape()
        assert scraped("trazo_http_requests_total", **SERVED) == sent
        assert scraped("trazo_http_request_duration_seconds_count", route="/", method="GET") == sent

    auth, stream_url = _chat_session(gunicorn.base, "scraper@example.com")
    provider_servers.openai.reply(chunks=[f"word{n} " for n in range(400)], chunk_delay=0.05)  # 20 s
    stream = requests.post(stream_url, json=message_body(), headers=auth, stream=True, timeout=30)
    try:
        lines = stream.iter_lines()  # kept: dropping the iterator would close the connection
        assert stream.status_code == 200 and next(lines).startswith(b"data: ")
        assert gunicorn.scrape()("trazo_sse_streams_open") == 1
        streaming = [pid for pid in (first, second)
                     if gunicorn.own_value(pid, "gauge_livesum", "trazo_sse_streams_open") == 1]
        assert len(streaming) == 1
        os.kill(streaming[0], signal.SIGKILL)  # a crash: no finally runs in that worker
        _wait(lambda: len(gunicorn.workers() - {first, second}) == 1 and len(gunicorn.workers()) == 2, 30,
              "gunicorn to replace the killed worker")
    finally:
        stream.close()
    dead = streaming[0]
    _wait(lambda: f"gauge_livesum_{dead}.db" not in gunicorn.files(dead), 10, "the dead worker's gauges to go")
    assert f"counter_{dead}.db" in gunicorn.files(dead)  # what it counted stays
    after = gunicorn.scrape()
    assert after("trazo_sse_streams_open") == 0
    assert after("trazo_http_requests_total", **SERVED) == sent
