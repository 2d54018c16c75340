"""gunicorn.conf.py: request limits against slow or oversized requests, access and error lines that keep query
strings (and the share access tokens in them), whole share tokens and files API paths out, one line per record,
and a start-up warning when forwarded addresses are trusted on an address anyone can reach."""
import logging
import re
import runpy
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from gunicorn.config import Config

CONF = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"
SERVER_ENV = ("HOST", "PORT", "TRUSTED_PROXY_COUNT", "GUNICORN_TIMEOUT", "GUNICORN_GRACEFUL_TIMEOUT",
              "GUNICORN_KEEPALIVE", "RATELIMIT_STORAGE_URI")


@pytest.fixture
def load_conf(monkeypatch):
    """Read gunicorn.conf.py as gunicorn does, under the given environment."""

    def load(**env):
        for name in SERVER_ENV:
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return runpy.run_path(str(CONF))

    return load


@pytest.fixture
def gunicorn_loggers():
    """gunicorn's loggers as they were: a gunicorn logger object replaces their handlers and propagation."""
    loggers = [logging.getLogger(name) for name in ("gunicorn.error", "gunicorn.access")]
    saved = [(logger.handlers[:], logger.propagate, logger.level) for logger in loggers]
    yield
    for logger, (handlers, propagate, level) in zip(loggers, saved, strict=True):
        for handler in logger.handlers:
            if handler not in handlers:
                handler.close()
        logger.handlers[:] = handlers
        logger.propagate, logger.level = propagate, level


def _server(*addresses):
    return SimpleNamespace(cfg=SimpleNamespace(address=list(addresses)), log=logging.getLogger("gunicorn.error"))


def test_request_lines_headers_and_idle_connections_are_bounded(load_conf):
    conf = load_conf()
    assert conf["limit_request_line"] == 4094
    assert conf["limit_request_fields"] == 50
    assert conf["limit_request_field_size"] == 8190
    assert conf["keepalive"] == 5
    assert conf["timeout"] == 60 and conf["graceful_timeout"] == 30


def test_the_access_log_records_the_path_without_the_query_string(load_conf):
    log_format = load_conf()["access_log_format"]
    atoms = set(re.findall(r"%\((\w)\)s", log_format))
    assert "U" in atoms and "m" in atoms and "s" in atoms
    # r is the request line (with the query string), q the query string, f the referrer (another URL)
    assert not atoms & {"r", "q", "f"}
    # the only header it names is the request id of the answer
    assert re.findall(r"%\((\{[^}]*\}\w)\)s", log_format) == ["{x-request-id}o"]


def test_the_access_log_line_of_a_shared_diagram_read_holds_no_access_token_and_no_whole_share_token(
        load_conf, gunicorn_loggers):
    conf = load_conf()
    config = Config()
    config.set("access_log_format", conf["access_log_format"])
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/api/v1/shared/link-token/diagram",
               "QUERY_STRING": "access_token=secret-access-token", "SERVER_PROTOCOL": "HTTP/1.1",
               "RAW_URI": "/api/v1/shared/link-token/diagram?access_token=secret-access-token",
               "REMOTE_ADDR": "127.0.0.1", "HTTP_REFERER": "https://app.example/s?access_token=secret-access-token"}
    request, response = SimpleNamespace(headers=[]), SimpleNamespace(status="200 OK", sent=12,
                                                                     headers=[("X-Request-ID", "req-7")])
    atoms = conf["logger_class"](config).atoms(response, request, environ, timedelta(milliseconds=7))
    for line in (config.access_log_format % atoms, config.access_log_format.replace("%(U)s", "%(r)s") % atoms):
        assert "GET /api/v1/shared/link-t\u2026/diagram HTTP/1.1" in line and " 200 " in line
        assert line.endswith(" req-7")
        assert "secret-access-token" not in line and "link-token" not in line


def test_gunicorns_error_line_for_a_failed_request_is_one_line_without_its_query_or_share_token(
        load_conf, gunicorn_loggers, tmp_path):
    config = Config()
    config.set("errorlog", str(tmp_path / "error.log"))
    logger = load_conf()["logger_class"](config)
    try:
        raise RuntimeError("the body broke\n[2030-01-01 00:00:00 +0000] [1] [INFO] forged")
    except RuntimeError:
        logger.exception("Error handling request %s %s", "GET",
                         "/api/v1/shared/link-token/image.png?access_token=secret-access-token")
    lines = (tmp_path / "error.log").read_text().splitlines()
    assert len(lines) == 1, lines
    assert "[ERROR] Error handling request GET /api/v1/shared/link-t\u2026/image.png\\nTraceback" in lines[0]
    assert lines[0].endswith("RuntimeError: the body broke\\n[2030-01-01 00:00:00 +0000] [1] [INFO] forged")
    assert "secret-access-token" not in lines[0] and "link-token" not in lines[0]


@pytest.mark.parametrize("address", [("0.0.0.0", 8000), ("::", 8000), ("203.0.113.7", 8000)])
def test_a_public_bind_with_trusted_proxies_warns_at_start_up(load_conf, caplog, address):
    conf = load_conf(TRUSTED_PROXY_COUNT="1")
    with caplog.at_level(logging.WARNING, logger="gunicorn.error"):
        conf["when_ready"](_server(address))
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "TRUSTED_PROXY_COUNT=1" in warnings[0].getMessage() and address[0] in warnings[0].getMessage()


@pytest.mark.parametrize("env, address", [
    ({"TRUSTED_PROXY_COUNT": "1"}, ("127.0.0.1", 8000)),
    ({"TRUSTED_PROXY_COUNT": "1"}, ("::1", 8000)),
    ({"TRUSTED_PROXY_COUNT": "1"}, ("localhost", 8000)),
    ({"TRUSTED_PROXY_COUNT": "1"}, "/run/trazo.sock"),
    ({"TRUSTED_PROXY_COUNT": "0"}, ("0.0.0.0", 8000)),
    ({}, ("0.0.0.0", 8000)),
])
def test_a_loopback_bind_or_no_trusted_proxy_starts_without_a_warning(load_conf, caplog, env, address):
    conf = load_conf(**env)
    with caplog.at_level(logging.WARNING, logger="gunicorn.error"):
        conf["when_ready"](_server(address))
    assert [record for record in caplog.records if record.levelno >= logging.WARNING] == []


def test_the_default_bind_is_the_loopback_address(load_conf):
    assert load_conf()["bind"] == "127.0.0.1:8000"
    assert load_conf(HOST="0.0.0.0", PORT="9000")["bind"] == "0.0.0.0:9000"
