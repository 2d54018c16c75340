"""Logs: every line names its request id ("-" outside requests), a text line is always one line (control
characters escaped), LOG_FORMAT=json writes one JSON object per line (the service and gunicorn's access and error
logs), access logs and Sentry never hold a whole share token or a files API path, and Sentry gets errors without
credentials."""
import gzip
import io
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.client import HTTPConnection
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from flask import Response

from trazo import create_app
from trazo.config import ConfigError
from trazo.logs import formatter

from ..fakes.base import LocalHttpServer, free_port

ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE_DATABASE = "postgresql+psycopg://postgres@127.0.0.1:9/none"
TEST_LOGGER = "trazo.tests.logging"


@pytest.fixture
def log_lines():
    """The lines written to the test logger through a handler with the service's formatter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger(TEST_LOGGER)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)

    def lines(log_format="text"):
        handler.setFormatter(formatter(log_format))
        return lambda: stream.getvalue().splitlines()

    yield lines
    logger.removeHandler(handler)
    logger.setLevel(logging.NOTSET)


@pytest.fixture
def logging_app(app_env):
    """An application of its own (behind one trusted proxy, which sends the request ids) with test-only routes
    that log (not routes of the service)."""
    application = create_app(env={**app_env, "TRUSTED_PROXY_COUNT": "1"})
    logger = logging.getLogger(TEST_LOGGER)

    @application.route("/log-here")
    def log_here():
        logger.warning("inside the view")
        worker = threading.Thread(target=logger.warning, args=("inside a thread the view started",))
        worker.start()
        worker.join()
        return {"ok": True}

    @application.route("/stream-then-fail")
    def stream_then_fail():
        def chunks():
            logger.warning("streaming the first chunk")
            yield "data: one\n\n"
            raise RuntimeError("the stream broke")

        return Response(chunks(), mimetype="text/event-stream")

    return application


def test_a_log_line_names_the_request_it_was_written_for(logging_app, log_lines):
    lines = log_lines("text")
    response = logging_app.test_client().get("/log-here", headers={"X-Request-ID": "trace-me-1"})
    assert response.status_code == 200 and response.json == {"ok": True}
    logging.getLogger(TEST_LOGGER).warning("outside any request")
    written = lines()
    assert len(written) == 3, written
    assert written[0].endswith(f"WARNING {TEST_LOGGER} [trace-me-1]: inside the view")
    assert written[1].endswith(f"WARNING {TEST_LOGGER} [-]: inside a thread the view started")
    assert written[2].endswith(f"WARNING {TEST_LOGGER} [-]: outside any request")


def test_a_streamed_body_logs_under_its_request_id_and_a_failure_after_the_headers_too(logging_app, caplog):
    response = logging_app.test_client().get("/stream-then-fail", headers={"X-Request-ID": "stream-9"},
                                             buffered=False)
    assert response.status_code == 200 and response.headers["X-Request-ID"] == "stream-9"
    with caplog.at_level(logging.INFO), pytest.raises(RuntimeError, match="the stream broke"):
        response.get_data()
    seen = [(record.name, record.getMessage(), record.request_id, record.exc_info is not None)
            for record in caplog.records]
    assert seen == [(TEST_LOGGER, "streaming the first chunk", "stream-9", False),
                    ("trazo.logs", "the response failed after its headers were sent", "stream-9", True)]


def test_the_json_format_writes_one_object_per_line_whatever_the_message_holds(log_lines):
    lines = log_lines("json")
    logger = logging.getLogger(TEST_LOGGER)
    logger.warning('a "quoted" value,\nthen a second line\r\tand a backslash \\ and ñ')
    try:
        raise ValueError("bad value")
    except ValueError:
        logger.exception("it failed")
    written = lines()
    assert len(written) == 2, written
    first, second = (json.loads(line) for line in written)
    assert list(first) == ["timestamp", "level", "logger", "message", "request_id"]
    assert first["message"] == 'a "quoted" value,\nthen a second line\r\tand a backslash \\ and ñ'
    assert first["level"] == "WARNING" and first["logger"] == TEST_LOGGER and first["request_id"] == "-"
    assert first["timestamp"].endswith("+00:00") and first["timestamp"][10] == "T"
    assert second["message"] == "it failed" and second["level"] == "ERROR"
    assert second["exception"].startswith("Traceback") and second["exception"].endswith("ValueError: bad value")


def test_a_text_log_line_escapes_control_characters_so_a_message_cannot_forge_a_line(log_lines):
    lines = log_lines("text")
    logger = logging.getLogger(TEST_LOGGER)
    forged = "2030-01-01 00:00:00,000 INFO trazo.web [-]: forged"
    logger.warning("path %s", f"/api/v1/x\n{forged}\r\x1b[31m\x7f\x85\u2028\u2029\tend \\ ñ")
    try:
        raise ValueError(f"bad\n{forged}")
    except ValueError:
        logger.exception("it failed")
    written = lines()
    assert len(written) == 2, written
    assert written[0].endswith(f"WARNING {TEST_LOGGER} [-]: path /api/v1/x\\n{forged}"
                               "\\r\\x1b[31m\\x7f\\x85\\u2028\\u2029\\tend \\\\ ñ")
    assert written[1].endswith(f"ValueError: bad\\n{forged}")
    assert "it failed\\nTraceback (most recent call last):\\n" in written[1]
    assert not any(line.startswith("2030") for line in written)


@pytest.mark.parametrize("name, value", [("LOG_FORMAT", "xml"), ("SENTRY_TRACES_SAMPLE_RATE", "2"),
                                         ("SENTRY_TRACES_SAMPLE_RATE", "often")])
def test_an_invalid_log_or_sentry_setting_refuses_to_start(app_env, name, value):
    with pytest.raises(ConfigError, match=name):
        create_app(env={**app_env, name: value})


# -- gunicorn with LOG_FORMAT=json ------------------------------------------------------------


def _wait_for_port(port, process, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"gunicorn exited: {process.communicate()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("gunicorn did not start listening")


def _get(port, path, headers):
    connection = HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, response.getheader("X-Request-ID"), response.read()
    finally:
        connection.close()


@pytest.fixture
def gunicorn(app_env, tmp_path):
    """Start a real gunicorn (gunicorn.conf.py, wsgi.py) in a LOG_FORMAT, behind one trusted proxy (the test,
    which sends request ids), with a database that is down: gunicorn(log_format) -> (port, process)."""
    processes = []

    def start(log_format):
        port = free_port()
        env = {**os.environ, **app_env, "DATABASE_URL": UNREACHABLE_DATABASE, "INSTANCE_PATH": str(tmp_path),
               "LOG_FORMAT": log_format, "HOST": "127.0.0.1", "PORT": str(port), "WEB_CONCURRENCY": "1",
               "GUNICORN_THREADS": "4", "RATELIMIT_STORAGE_URI": "memory://", "GUNICORN_ACCESSLOG": "-",
               "TRUSTED_PROXY_COUNT": "1"}
        process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py"], cwd=ROOT,
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        processes.append(process)
        _wait_for_port(port, process)
        return port, process

    yield start
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(30)


def _stop(process):
    process.send_signal(signal.SIGTERM)
    return process.communicate(timeout=30)


def test_gunicorn_writes_its_access_and_error_logs_and_the_services_as_json(gunicorn):
    port, process = gunicorn("json")
    agent = 'probe "quoted" \\ agent'
    status, request_id, body = _get(port, "/health?access_token=share-token-in-query",
                                    {"User-Agent": agent, "X-Request-ID": "lb-1"})
    assert (status, request_id, body) == (200, "lb-1", b'{"status":"ok"}\n')
    status, request_id, body = _get(port, "/api/v1/users/installation-status", {"User-Agent": "curl/8"})
    assert status == 503 and json.loads(body)["detail"] == "Service temporarily unavailable, try again shortly"
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)

    lines = [json.loads(line) for line in (stdout + stderr).splitlines() if line.strip()]  # every line is JSON
    access = [line for line in lines if line["logger"] == "gunicorn.access"]
    assert [{key: line[key] for key in ("method", "path", "status", "request_id", "user_agent")}
            for line in access] == [
        {"method": "GET", "path": "/health", "status": 200, "request_id": "lb-1", "user_agent": agent},
        {"method": "GET", "path": "/api/v1/users/installation-status", "status": 503,
         "request_id": request_id, "user_agent": "curl/8"}]
    for line in access:
        assert set(line) == {"timestamp", "level", "logger", "message", "request_id", "remote_addr", "method",
                             "path", "status", "bytes", "duration_ms", "user_agent"}
        assert line["remote_addr"] == "127.0.0.1" and isinstance(line["duration_ms"], float)
    assert access[0]["bytes"] == len(b'{"status":"ok"}\n')
    assert "share-token-in-query" not in stdout + stderr
    service = [line for line in lines if line["logger"] == "trazo.web"]
    assert [(line["level"], line["message"], line["request_id"]) for line in service] == [
        ("WARNING", "database unavailable: OperationalError", request_id)]
    assert any(line["logger"] == "gunicorn.error" and line["message"].startswith("Starting gunicorn")
               and line["request_id"] == "-" for line in lines)


def test_a_line_break_in_a_path_stays_inside_one_line_of_gunicorns_text_access_log(gunicorn):
    port, process = gunicorn("text")
    status, request_id, _body = _get(port, "/api/v1/x%0A127.0.0.1%20forged%0D%1B%5B2J", {"User-Agent": "curl/8"})
    assert status == 404
    stdout, stderr = _stop(process)
    access = [line for line in stdout.splitlines() if "forged" in line]
    assert len(access) == 1, stdout
    assert '"GET /api/v1/x\\n127.0.0.1 forged\\r\\x1b[2J HTTP/1.1" 404 ' in access[0]
    assert access[0].endswith(f'"curl/8" {request_id}')
    assert not any(line.startswith("127.0.0.1 forged") for line in (stdout + stderr).splitlines())


SHARE_TOKEN = "Zk3q9VtS1m0rXe4bN7cLh2WpYd8Ga5Uf6Jo0Ri3Kq1E"  # as secrets.token_urlsafe(32) makes them
PROJECT_ID = "0b9c3f4e-2d1a-4c5b-8e7f-6a5b4c3d2e1f"


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_gunicorns_access_log_shows_a_share_tokens_prefix_and_a_files_api_path_as_its_template(gunicorn,
                                                                                              log_format):
    port, process = gunicorn(log_format)
    for path in (f"/api/v1/shared/{SHARE_TOKEN}/image.png?theme=dark&access_token=secret-query",
                 f"/api/v1/shared/{SHARE_TOKEN}/info",
                 f"/api/v1/projects/{PROJECT_ID}/files/docs/secret-plan%20v2.mmd"):
        status, _request_id, _body = _get(port, path, {"User-Agent": "curl/8"})
        assert status in (401, 503)  # a wrong access token, or the database is down: logged all the same
    stdout, stderr = _stop(process)
    logged = stdout + stderr
    for secret in (SHARE_TOKEN, SHARE_TOKEN[:7], "secret-plan", "secret-query"):
        assert secret not in logged
    shown = ([json.loads(line)["path"] for line in stdout.splitlines()] if log_format == "json"
             else [line.split('"')[1].split(" ")[1] for line in stdout.splitlines()])
    # gthread logs a request once its answer is sent, so two threads may write their lines in either order
    assert sorted(shown) == [f"/api/v1/projects/{PROJECT_ID}/files/{{path}}",
                             f"/api/v1/shared/{SHARE_TOKEN[:6]}\u2026/image.png",
                             f"/api/v1/shared/{SHARE_TOKEN[:6]}\u2026/info"]


# -- Sentry ----------------------------------------------------------------------------------

SENTRY_RUN = """
import json, sys
import sentry_sdk
from trazo import create_app

env, headers = json.load(sys.stdin)
app = create_app(env=env)

@app.route("/explode")  # a test-only route on this process's application
def explode():
    raise RuntimeError("the test route failed")

response = app.test_client().get("/explode?access_token=share-token-in-query", headers=headers)
sentry_sdk.flush(10)
print(json.dumps({"status": response.status_code, "body": response.get_json()}))
"""
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.bearer-signature-secret"


class _EnvelopeSink(BaseHTTPRequestHandler):
    received = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.received.append((self.path, body.decode()))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *_args):
        pass


def _events(envelopes):
    events = []
    for _path, envelope in envelopes:
        lines = envelope.split("\n")
        for header, payload in zip(lines[1::2], lines[2::2], strict=False):
            if json.loads(header).get("type") == "event":
                events.append(json.loads(payload))
    return events


def test_sentry_gets_one_event_with_the_request_id_and_no_credentials(app_env, tmp_path):
    _EnvelopeSink.received = []
    sink = LocalHttpServer(_EnvelopeSink).start()
    try:
        dsn = f"http://key@127.0.0.1:{sink.httpd.server_port}/1"
        env = {**app_env, "INSTANCE_PATH": str(tmp_path), "SENTRY_DSN": dsn, "TRUSTED_PROXY_COUNT": "1"}
        headers = {"Authorization": f"Bearer {BEARER}", "X-Share-Access": "share-password-secret",
                   "Cookie": "session=cookie-secret", "X-Request-ID": "sentry-7"}
        run = subprocess.run([sys.executable, "-c", SENTRY_RUN], input=json.dumps([env, headers]), cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    finally:
        sink.stop()
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == {
        "status": 500, "body": {"detail": "Internal server error", "request_id": "sentry-7"}}
    assert all(path == "/api/1/envelope/" for path, _ in _EnvelopeSink.received)
    events = _events(_EnvelopeSink.received)
    assert len(events) == 1, events
    event = events[0]
    assert [value["type"] for value in event["exception"]["values"]] == ["RuntimeError"]
    assert event["exception"]["values"][0]["value"] == "the test route failed"
    assert event["tags"]["request_id"] == "sentry-7" and event["environment"] == "testing"
    assert event["request"]["url"].endswith("/explode") and "query_string" not in event["request"]
    assert {name.lower() for name in event["request"]["headers"]} >= {"x-request-id"}
    payloads = "".join(body for _path, body in _EnvelopeSink.received)
    for secret in ("bearer-signature-secret", "share-password-secret", "cookie-secret", "share-token-in-query"):
        assert secret not in payloads


SENTRY_PATHS_RUN = """
import json, sys
from http.client import HTTPConnection
import sentry_sdk
from flask import request
from trazo import create_app

env, paths, port = json.load(sys.stdin)
app = create_app(env=env)

@app.before_request  # a test-only hook on this process's application: every request fails after a call out
def call_out_then_fail():
    connection = HTTPConnection("127.0.0.1", port, timeout=5)  # an outgoing call: an http breadcrumb
    connection.request("GET", request.path + "?access_token=query-in-a-breadcrumb")
    connection.getresponse().read()
    connection.close()
    raise RuntimeError("the test hook failed")

statuses = [app.test_client().get(path).status_code for path in paths]
sentry_sdk.flush(10)
print(json.dumps(statuses))
"""


def test_sentry_events_hold_neither_a_whole_share_token_nor_a_files_api_path(app_env, tmp_path):
    _EnvelopeSink.received = []
    sink = LocalHttpServer(_EnvelopeSink).start()
    paths = [f"/api/v1/shared/{SHARE_TOKEN}/image.png?access_token=secret-query",
             f"/api/v1/projects/{PROJECT_ID}/files/docs/secret-plan.mmd"]
    try:
        port = sink.httpd.server_port
        env = {**app_env, "INSTANCE_PATH": str(tmp_path), "SENTRY_DSN": f"http://key@127.0.0.1:{port}/1"}
        run = subprocess.run([sys.executable, "-c", SENTRY_PATHS_RUN], input=json.dumps([env, paths, port]),
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    finally:
        sink.stop()
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == [500, 500]
    events = _events(_EnvelopeSink.received)
    assert len(events) == 2, events
    shown = [f"/api/v1/shared/{SHARE_TOKEN[:6]}\u2026/image.png", f"/api/v1/projects/{PROJECT_ID}/files/{{path}}"]
    assert [event["request"]["url"] for event in events] == [f"http://localhost{path}" for path in shown]
    calls = [[crumb["data"]["url"] for crumb in event["breadcrumbs"]["values"] if crumb.get("type") == "http"]
             for event in events]
    assert calls == [[f"http://127.0.0.1:{port}{path}"] for path in shown]
    payloads = "".join(body for _path, body in _EnvelopeSink.received)
    for secret in (SHARE_TOKEN, SHARE_TOKEN[:7], "secret-plan", "secret-query", "query-in-a-breadcrumb"):
        assert secret not in payloads
