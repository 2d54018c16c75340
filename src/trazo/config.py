"""The Flask config, built once per create_app() call from the settings declared in settings.py (listed in the
README) and the cross-checks between them (docs/operations.md, "Settings")."""
import base64
import binascii
import importlib.metadata
import json
import logging
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from .settings import ENVIRONMENTS, SETTINGS, ConfigError, read, split_list

__all__ = ["ENVIRONMENTS", "ConfigError", "load_config"]

REQUIRED_SECRETS = ("SECRET_KEY", "JWT_SECRET_KEY", "ENCRYPTION_KEYS")
TRANSLATION_DOMAINS = ("messages", "content", "sharing", "security", "ai", "chat", "billing")
MIN_SECRET_BYTES = 32
FERNET_KEY_BYTES = 32

log = logging.getLogger("trazo.config")


def _generated_secrets(instance_path):
    """Development secrets, generated once and kept under instance/ so restarts keep sessions."""
    path = Path(instance_path) / "dev-secrets.json"
    stored = {}
    if path.exists():
        stored = json.loads(path.read_text())
    wanted = {
        "SECRET_KEY": lambda: secrets.token_hex(32),
        "JWT_SECRET_KEY": lambda: secrets.token_hex(32),
        "ENCRYPTION_KEYS": lambda: base64.urlsafe_b64encode(os.urandom(32)).decode(),
    }
    changed = False
    for name, make in wanted.items():
        if not stored.get(name):
            stored[name] = make()
            changed = True
    if changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(stored))
        path.chmod(0o600)
    return stored


def _is_fernet_key(key):
    try:
        return len(base64.urlsafe_b64decode(key.encode("ascii"))) == FERNET_KEY_BYTES
    except (UnicodeEncodeError, binascii.Error, ValueError):
        return False


def _check_production_secrets(values):
    """Refuse short signing secrets and anything in ENCRYPTION_KEYS that is not a Fernet key;
    the message names the setting, never its value."""
    for name in ("SECRET_KEY", "JWT_SECRET_KEY"):
        if len(values[name].encode()) < MIN_SECRET_BYTES:
            raise ConfigError(f"{name} must be at least {MIN_SECRET_BYTES} bytes long in production")
    keys = split_list(values["ENCRYPTION_KEYS"])
    bad = [str(position) for position, key in enumerate(keys, 1) if not _is_fernet_key(key)]
    if not keys or bad:
        raise ConfigError("ENCRYPTION_KEYS must be a comma-separated list of Fernet keys (32 url-safe "
                          f"base64-encoded bytes); not a Fernet key: entry {', '.join(bad) or '1'}")


def _warn_about_console_email(email_backend, smtp_host):
    if email_backend != "smtp" or not smtp_host:
        log.warning("e-mail is not configured (SMTP_HOST is not set): messages are not delivered, only "
                    "their recipient and subject are logged, until an administrator sets an e-mail vendor")


def load_config(env, instance_path):
    """Return the Flask config mapping for this environment; fail fast when production lacks secrets."""
    values = read(env, values={"INSTANCE_PATH": instance_path})
    app_env = values["APP_ENV"]
    production = app_env == "production"

    missing = [name for name in REQUIRED_SECRETS if not values[name]]
    if missing and production:
        raise ConfigError(f"missing required settings in production: {', '.join(missing)}")
    if production:
        _check_production_secrets(values)
        _check_metrics_token(values["METRICS_TOKEN"])
        _warn_about_console_email(values["EMAIL_BACKEND"], values["SMTP_HOST"])
    _check_outbox(values)
    _check_public_url(values["PUBLIC_URL"])
    generated = _generated_secrets(instance_path) if missing else {}

    def secret(name):
        return values[name] or generated[name]

    version = importlib.metadata.version("trazo")
    storage_uri = values["RATELIMIT_STORAGE_URI"]
    return {
        **{setting.name: values[setting.name] for setting in SETTINGS if setting.config},
        "ENV_PRODUCTION": production,
        "TESTING": app_env == "testing",
        "SERVICE_NAME": "Trazo",
        "SERVICE_VERSION": version,
        "SECRET_KEY": secret("SECRET_KEY"),
        "JWT_SECRET_KEY": secret("JWT_SECRET_KEY"),
        "ENCRYPTION_KEYS": split_list(secret("ENCRYPTION_KEYS")),
        "MFA_ACCESS_TOKEN_EXPIRES": 5 * 24 * 3600,
        "MFA_TOKEN_EXPIRES": 300,
        # Database
        "SQLALCHEMY_DATABASE_URI": values["DATABASE_URL"],
        "SQLALCHEMY_ENGINE_OPTIONS": _engine_options(values),
        "SQLALCHEMY_TRACK_MODIFICATIONS": False,
        # Request bodies
        "MAX_CONTENT_LENGTH": values["MAX_REQUEST_BODY_BYTES"],
        # Language
        "LANGUAGES": ("en", "es"),
        "BABEL_DEFAULT_LOCALE": values["DEFAULT_LANGUAGE"],
        "BABEL_DOMAIN": ";".join(TRANSLATION_DOMAINS),
        "BABEL_TRANSLATION_DIRECTORIES": ";".join(
            [str(Path(__file__).parent / "translations")] * len(TRANSLATION_DOMAINS)),
        # Rate limits
        "RATELIMIT_STRATEGY": "moving-window",
        "RATELIMIT_HEADERS_ENABLED": False,
        "RATELIMIT_KEY_PREFIX": "trazo",
        "REDIS_URL": storage_uri if storage_uri.startswith(("redis://", "rediss://")) else None,
        # OpenAPI (the docs routes are registered only outside production)
        "API_TITLE": "Trazo API",
        "API_VERSION": version,
        "OPENAPI_VERSION": "3.0.3",
        "DOCS_ENABLED": not production,
    }


def _check_public_url(url):
    """PUBLIC_URL is an origin: http(s)://host[:port], nothing after it (docs/mcp.md)."""
    if not url:
        return
    parts = urlsplit(url)
    try:
        port = parts.port  # a port that is not a number raises here
        valid = port != 0 and parts.scheme in ("http", "https") and bool(parts.hostname) and not (
            parts.path or parts.query or parts.fragment or parts.username or parts.password)
    except ValueError:
        valid = False
    if not valid:
        raise ConfigError("PUBLIC_URL must be an origin such as https://api.trazo.example (a scheme, a host and an "
                          "optional port, nothing after them)")


def _check_outbox(values):
    if values["OUTBOX_LEASE_SECONDS"] <= values["EMAIL_TIMEOUT"]:
        raise ConfigError("OUTBOX_LEASE_SECONDS must be greater than EMAIL_TIMEOUT: a sender must finish (or "
                          "give up) before another may take its message")
    if values["OUTBOX_RETRY_BASE_SECONDS"] < 1 or values["OUTBOX_MAX_ATTEMPTS"] < 1:
        raise ConfigError("OUTBOX_RETRY_BASE_SECONDS and OUTBOX_MAX_ATTEMPTS must be at least 1")


SQLITE_POOL_SIZE = 20


def _engine_options(values):
    if values["DATABASE_URL"].startswith("sqlite"):
        # One worker serves every request (in-memory limits): its pool keeps a connection per concurrent request
        # instead of opening and closing one (the pragmas, the search function) for each past the 5th.
        return {"connect_args": {"timeout": 30}, "pool_size": min(values["GUNICORN_THREADS"], SQLITE_POOL_SIZE),
                "max_overflow": 10}
    # No pre-ping by default: a statement that meets a dead connection is retried once instead
    # (web.Application, docs/operations.md); pre-ping costs a round trip per request.
    return {"pool_pre_ping": values["DATABASE_POOL_PRE_PING"], "pool_size": min(values["GUNICORN_THREADS"], 10),
            "max_overflow": 10, "pool_recycle": 1800}


def _check_metrics_token(token):
    if token and len(token) < MIN_SECRET_BYTES:
        raise ConfigError(f"METRICS_TOKEN must be at least {MIN_SECRET_BYTES} characters long in production")
