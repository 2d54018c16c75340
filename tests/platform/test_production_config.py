"""Production refuses weak secrets and never writes a reset link or a code into the log."""
import base64
import logging
import time

import pytest

from trazo import create_app
from trazo.config import ConfigError

STRONG = {"SECRET_KEY": "s" * 32, "JWT_SECRET_KEY": "j" * 32,
          "ENCRYPTION_KEYS": base64.urlsafe_b64encode(b"e" * 32).decode()}
WEAK = {"SECRET_KEY": "a", "JWT_SECRET_KEY": "b", "ENCRYPTION_KEYS": "notakey"}


def _production(app_env, **changes):
    return {**app_env, **STRONG, "APP_ENV": "production", **changes}


def _console_mail(env):
    return {name: value for name, value in env.items() if name not in ("EMAIL_BACKEND", "SMTP_HOST", "SMTP_PORT")}


@pytest.mark.parametrize("name", sorted(WEAK))
def test_production_refuses_to_start_with_a_weak_secret(app_env, name):
    with pytest.raises(ConfigError, match=name):
        create_app(env=_production(app_env, **{name: WEAK[name]}))


@pytest.mark.parametrize("name", sorted(WEAK))
def test_the_refusal_names_the_setting_but_never_its_value(app_env, name):
    with pytest.raises(ConfigError, match=name) as refused:
        create_app(env=_production(app_env, **{name: "tiny-C0FFEE"}))
    assert "C0FFEE" not in str(refused.value)


def test_production_refuses_a_second_encryption_key_that_is_not_a_fernet_key(app_env):
    keys = f"{STRONG['ENCRYPTION_KEYS']},{'x' * 44}"
    with pytest.raises(ConfigError, match="ENCRYPTION_KEYS") as refused:
        create_app(env=_production(app_env, ENCRYPTION_KEYS=keys))
    assert "x" * 44 not in str(refused.value)


def test_production_counts_bytes_so_a_31_byte_secret_is_refused_and_32_bytes_start(app_env):
    with pytest.raises(ConfigError, match="JWT_SECRET_KEY"):
        create_app(env=_production(app_env, JWT_SECRET_KEY="j" * 31))
    started = create_app(env=_production(app_env, JWT_SECRET_KEY="ñ" * 16))
    assert started.test_client().get("/health").json == {"status": "ok"}


def test_a_production_environment_with_strong_secrets_starts_without_an_e_mail_warning(app_env, caplog):
    with caplog.at_level(logging.WARNING, logger="trazo"):
        production = create_app(env=_production(app_env))
    assert production.test_client().get("/").json["environment"] == "production"
    assert not [record for record in caplog.records if "e-mail" in record.getMessage().lower()]


def test_production_warns_at_start_up_when_e_mail_goes_to_the_log(app_env, caplog):
    with caplog.at_level(logging.WARNING, logger="trazo"):
        create_app(env=_console_mail(_production(app_env)))
    warnings = [record.getMessage() for record in caplog.records
                if record.levelno == logging.WARNING and "SMTP_HOST" in record.getMessage()]
    assert warnings and "not delivered" in warnings[0]


def _wait_for_record(caplog, text, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = [record.getMessage() for record in caplog.records if text in record.getMessage()]
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"nothing logged containing {text!r}")


def test_the_console_backend_in_production_never_logs_a_reset_link(app_env, make_user, caplog):
    account = make_user()
    production = create_app(env=_console_mail(_production(app_env)))
    production.config["OUTBOX_DELIVERY"] = "inline"  # no sender thread of this app left polling the test database
    with caplog.at_level(logging.INFO):
        response = production.test_client().post("/api/v1/users/reset-password-request",
                                                  json={"email": account.email}, buffered=True)
        assert response.status_code == 200
        assert response.json == {"message": "If the email exists, a reset link has been sent"}
        logged = _wait_for_record(caplog, account.email)
    assert "Reset your Trazo password" in logged[0] and "withheld" in logged[0]
    everything = "\n".join(record.getMessage() for record in caplog.records)
    assert "reset-password?" not in everything and "token=" not in everything


def test_the_console_backend_in_development_still_shows_the_link(app_env, make_user, caplog):
    account = make_user()
    development = create_app(env={**_console_mail(app_env), "APP_ENV": "development"})
    development.config["OUTBOX_DELIVERY"] = "inline"  # sent as the request ends, not by a sender thread
    with caplog.at_level(logging.INFO):
        response = development.test_client().post("/api/v1/users/reset-password-request",
                                                   json={"email": account.email}, buffered=True)
    assert response.status_code == 200
    assert "reset-password?token=" in "\n".join(record.getMessage() for record in caplog.records)
