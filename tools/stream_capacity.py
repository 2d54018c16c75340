"""How many chat streams one instance keeps open while GET /health still answers quickly.

Starts the service as `make run` does (gunicorn -c gunicorn.conf.py, APP_ENV=development) on a
temporary SQLite database, with OPENAI_BASE_URL pointed at a fake OpenAI server on 127.0.0.1 that
streams one token a second. Then it opens chat streams step by step (POST
/api/v1/chat-sessions/{id}/messages/stream, each read continuously by its own client thread) and
after each step times sequential GET /health requests.

    .venv/bin/python tools/stream_capacity.py [--steps 0,8,16,...] [--threads 32] [--workers 1]

--threads/--workers set GUNICORN_THREADS/WEB_CONCURRENCY for the run (default: gunicorn.conf.py's).
Rate limits stay on (in memory); the streams are spread over several users so the per-user limit
on chat sends (30 a minute) is never what stops a stream.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
PASSWORD = "Capacity-Check-2026!"
PROBE_TIMEOUT = 2
STREAMS_PER_USER = 25  # below the per-user limit of 30 chat sends a minute
DIAGRAM = "flowchart TD\n  A[Start] --> B{Paid?}\n  B -->|yes| C[Ship]\n  B -->|no| D[Remind]"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _SlowOpenAI(BaseHTTPRequestHandler):
    """OpenAI chat completions: a quick JSON answer, or an SSE stream of one token per interval."""

    protocol_version = "HTTP/1.1"
    interval = 1.0
    tokens = 600

    def log_message(self, *_args):
        pass

    def _json(self, payload):
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._json({"object": "list", "data": [{"id": "gpt-capacity", "object": "model"}]})

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if not request.get("stream"):
            self._json({"choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": "OK"}}]})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for number in range(self.tokens):
                event = {"choices": [{"index": 0, "delta": {"content": f"word{number} "}, "finish_reason": None}]}
                self._chunk(f"data: {json.dumps(event)}\n\n")
                time.sleep(self.interval)
            self._chunk('data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
                        "data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass  # the service closed the stream
        self.close_connection = True

    def _chunk(self, text):
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


class FakeOpenAI:
    def __init__(self, interval):
        handler = type("Handler", (_SlowOpenAI,), {"interval": interval})
        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
        self.server.daemon_threads = True
        self.server.request_queue_size = 1024
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Service:
    """The service under gunicorn with the project's gunicorn.conf.py, as `make run` starts it."""

    def __init__(self, openai_url, threads=None, workers=None):
        self.workdir = tempfile.mkdtemp(prefix="trazo-capacity-")
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.env = {key: value for key, value in os.environ.items()
                    if not key.startswith(("GUNICORN_", "WEB_CONCURRENCY", "RATELIMIT_"))}
        self.env.update({"APP_ENV": "development", "HOST": "127.0.0.1", "PORT": str(self.port),
                         "DATABASE_URL": f"sqlite:///{self.workdir}/capacity.db",
                         "INSTANCE_PATH": f"{self.workdir}/instance", "OPENAI_BASE_URL": openai_url,
                         "TRUSTED_PROXY_COUNT": "1", "GUNICORN_ACCESSLOG": "", "GUNICORN_LOGLEVEL": "warning"})
        if threads:
            self.env["GUNICORN_THREADS"] = str(threads)
        if workers:
            self.env["WEB_CONCURRENCY"] = str(workers)
        subprocess.run([str(BIN / "flask"), "--app", "wsgi", "db", "upgrade"], cwd=ROOT, env=self.env, check=True,
                       capture_output=True)
        self.log = open(f"{self.workdir}/gunicorn.log", "wb")
        self.process = subprocess.Popen([str(BIN / "gunicorn"), "-c", "gunicorn.conf.py"], cwd=ROOT, env=self.env,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self._wait_ready()

    def _wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited; see {self.log.name}")
            try:
                if requests.get(f"{self.base_url}/health", timeout=1).ok:
                    return
            except requests.RequestException:
                time.sleep(0.2)
        raise RuntimeError("the service did not start in time")

    def log_tail(self, lines=30):
        self.log.flush()
        return "\n".join(Path(self.log.name).read_text(errors="replace").splitlines()[-lines:])

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _ok(response, status=200):
    if response.status_code != status:
        raise RuntimeError(f"{response.request.method} {response.url}: {response.status_code} {response.text[:300]}")
    return response.json()


def prepare_sessions(base_url, users):
    """Users with an OpenAI provider (on the fake server), a diagram and a chat session: [(token, session id)]."""
    api = f"{base_url}/api/v1"
    prepared = []
    for number in range(users):
        email = f"capacity{number}@example.com"
        # One client address per user (TRUSTED_PROXY_COUNT=1), as behind nginx: sign-up limits are per address.
        origin = {"X-Forwarded-For": f"10.77.{number // 250}.{number % 250 + 1}"}
        _ok(requests.post(f"{api}/users/register", json={"email": email, "password": PASSWORD}, headers=origin,
                          timeout=30), 201)
        token = _ok(requests.post(f"{api}/users/login", json={"email": email, "password": PASSWORD},
                                  headers=origin, timeout=30))["access_token"]
        auth = {"Authorization": f"Bearer {token}"}
        _ok(requests.post(f"{api}/ai/providers", headers=auth, timeout=30, json={
            "provider": "openai", "api_key": "sk-capacity-0123456789", "model": "gpt-capacity"}), 201)
        project = _ok(requests.post(f"{api}/projects", headers=auth, json={"name": "Capacity"}, timeout=30), 201)
        diagram = _ok(requests.post(f"{api}/projects/{project['id']}/diagrams", headers=auth, timeout=30,
                                    json={"title": "Flow", "diagram_type": "mermaid", "content": DIAGRAM}), 201)
        session = _ok(requests.post(f"{api}/chat-sessions", headers=auth, json={"diagram_id": diagram["id"]},
                                    timeout=30), 201)
        prepared.append((token, session["id"]))
    return prepared


class ChatStream(threading.Thread):
    """One client reading a chat stream continuously; `opened` is set when its first event arrives."""

    def __init__(self, url, token):
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.opened = threading.Event()
        self.ended = threading.Event()
        self.error = None
        self.response = None

    def run(self):
        body = {"content": "What does this diagram show?", "diagram_code": DIAGRAM, "diagram_type": "mermaid"}
        try:
            self.response = requests.post(self.url, json=body, stream=True, timeout=(5, 300),
                                          headers={"Authorization": f"Bearer {self.token}"})
            if self.response.status_code != 200:
                self.error = f"HTTP {self.response.status_code}"
                return
            for line in self.response.iter_lines():
                if line.startswith(b"data: "):
                    self.opened.set()
        except (requests.RequestException, AttributeError) as exc:
            self.error = self.error or type(exc).__name__
        finally:
            self.ended.set()

    def stop(self):
        if self.response is not None:
            self.response.close()


def health_latencies(base_url, probes):
    """Milliseconds of sequential GET /health probes; None for one that failed or took over PROBE_TIMEOUT."""
    latencies = []
    for _probe in range(probes):
        started = time.perf_counter()
        try:
            ok = requests.get(f"{base_url}/health", timeout=PROBE_TIMEOUT).ok
        except requests.RequestException:
            ok = False
        latencies.append((time.perf_counter() - started) * 1000 if ok else None)
        if latencies.count(None) >= 3:
            break  # the instance is saturated; more probes only add waiting
        time.sleep(0.02)
    return latencies


def measure(base_url, sessions, steps, probes, threshold_ms, open_timeout):
    streams, rows, capacity = [], [], 0
    for target in steps:
        while len(streams) < target:
            token, session_id = sessions[len(streams) // STREAMS_PER_USER]
            stream = ChatStream(f"{base_url}/api/v1/chat-sessions/{session_id}/messages/stream", token)
            stream.start()
            streams.append(stream)
        deadline = time.monotonic() + open_timeout
        for stream in streams:
            stream.opened.wait(max(0.0, deadline - time.monotonic()))
        open_now = sum(stream.opened.is_set() and not stream.ended.is_set() for stream in streams)
        latencies = health_latencies(base_url, probes)
        answered = sorted(value for value in latencies if value is not None)
        p50 = statistics.median(answered) if answered else None
        p95 = answered[max(0, int(len(answered) * 0.95) - 1)] if answered else None
        failed = len(latencies) - len(answered)
        healthy = not failed and p95 is not None and p95 < threshold_ms
        rows.append((target, open_now, p50, p95, answered[-1] if answered else None, failed))
        print(f"streams requested {target:4d} | open {open_now:4d} | /health p50 {_ms(p50)} p95 {_ms(p95)} "
              f"max {_ms(rows[-1][4])} | failed {failed}", flush=True)
        if not healthy or open_now < target:
            break  # saturated: larger steps cannot do better
        capacity = target
    for stream in streams:
        stream.stop()
    return capacity, rows


def _ms(value):
    return f"{value:8.1f} ms" if value is not None else "     n/a   "


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", default="0,8,16,24,28,30,31,32,33,40,48")
    parser.add_argument("--threads", type=int, help="GUNICORN_THREADS for this run")
    parser.add_argument("--workers", type=int, help="WEB_CONCURRENCY for this run")
    parser.add_argument("--probes", type=int, default=20, help="GET /health requests per step")
    parser.add_argument("--threshold-ms", type=float, default=100.0)
    parser.add_argument("--open-timeout", type=float, default=3.0, help="seconds a new stream may take to start")
    parser.add_argument("--token-interval", type=float, default=1.0, help="seconds between streamed tokens")
    args = parser.parse_args(argv)
    steps = sorted({int(step) for step in args.steps.split(",")})

    fake = FakeOpenAI(args.token_interval)
    service = Service(fake.url, args.threads, args.workers)
    try:
        sessions = prepare_sessions(service.base_url, -(-steps[-1] // STREAMS_PER_USER) or 1)
        threads = service.env.get("GUNICORN_THREADS", "32 (gunicorn.conf.py default)")
        workers = service.env.get("WEB_CONCURRENCY", "1 (gunicorn.conf.py default with memory:// limits)")
        print(f"gunicorn gthread: workers={workers} threads={threads}; a token every {args.token_interval}s; "
              f"{args.probes} sequential GET /health per step", flush=True)
        capacity, _rows = measure(service.base_url, sessions, steps, args.probes, args.threshold_ms,
                                  args.open_timeout)
    except RuntimeError:
        print(service.log_tail(), file=sys.stderr)
        raise
    finally:
        service.stop()
        fake.stop()
    print(f"RESULT: {capacity} concurrent open chat streams with /health p95 under {args.threshold_ms:.0f} ms "
          f"(largest step measured: {steps[-1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
