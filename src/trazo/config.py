"""Settings from the environment (listed in the README), built once per create_app() call."""
import base64
import binascii
import ipaddress
import json
import logging
import os
import secrets
from pathlib import Path

ENVIRONMENTS = ("production", "development", "testing")
REQUIRED_SECRETS = ("SECRET_KEY", "JWT_SECRET_KEY", "ENCRYPTION_KEYS")
TRANSLATION_DOMAINS = ("messages", "content", "sharing", "security", "ai", "chat", "billing")
MIN_SECRET_BYTES = 32
FERNET_KEY_BYTES = 32

log = logging.getLogger("trazo.config")


class ConfigError(RuntimeError):
    """A setting is missing or invalid; the service refuses to start."""


def _int(env, name, default):
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from exc


def _optional_int(env, name):
    raw = env.get(name)
    return None if raw in (None, "") else _int(env, name, None)


def _rate(env, name, default):
    """A fraction between 0 and 1 (a sampling rate)."""
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a number between 0 and 1, got {raw!r}") from exc
    if not 0 <= value <= 1:
        raise ConfigError(f"{name} must be a number between 0 and 1, got {raw!r}")
    return value


def _choice(env, name, choices, default):
    value = (env.get(name) or default).strip().lower()
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _bool(env, name, default):
    raw = env.get(name)
    if raw in (None, ""):
        return default
    return raw.strip().lower() in ("1", "true", "yes", "on")


def _list(raw):
    return [item.strip() for item in (raw or "").split(",") if item.strip()]


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


def _check_production_secrets(env):
    """Refuse short signing secrets and anything in ENCRYPTION_KEYS that is not a Fernet key;
    the message names the setting, never its value."""
    for name in ("SECRET_KEY", "JWT_SECRET_KEY"):
        if len(env[name].encode()) < MIN_SECRET_BYTES:
            raise ConfigError(f"{name} must be at least {MIN_SECRET_BYTES} bytes long in production")
    keys = _list(env["ENCRYPTION_KEYS"])
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
    app_env = (env.get("APP_ENV") or "production").strip().lower()
    if app_env not in ENVIRONMENTS:
        raise ConfigError(f"APP_ENV must be one of {', '.join(ENVIRONMENTS)}, got {app_env!r}")
    production = app_env == "production"

    missing = [name for name in REQUIRED_SECRETS if not env.get(name)]
    if missing and production:
        raise ConfigError(f"missing required settings in production: {', '.join(missing)}")
    if production:
        _check_production_secrets(env)
    generated = _generated_secrets(instance_path) if missing else {}

    def secret(name):
        return env.get(name) or generated[name]

    frontend_url = (env.get("FRONTEND_URL") or "http://localhost:5173").rstrip("/")
    smtp_host = env.get("SMTP_HOST") or ""
    database_url = env.get("DATABASE_URL") or f"sqlite:///{Path(instance_path) / 'trazo.db'}"
    storage_uri = env.get("RATELIMIT_STORAGE_URI") or "memory://"
    max_body = _int(env, "MAX_REQUEST_BODY_BYTES", 5 * 1024 * 1024)
    email_backend = (env.get("EMAIL_BACKEND") or ("smtp" if smtp_host else "console")).lower()
    if production:
        _warn_about_console_email(email_backend, smtp_host)

    return {
        "APP_ENV": app_env,
        "ENV_PRODUCTION": production,
        "TESTING": app_env == "testing",
        "SERVICE_NAME": "Trazo",
        "SERVICE_VERSION": "0.1.0",
        "API_V1_PREFIX": env.get("API_V1_PREFIX") or "/api/v1",
        "SECRET_KEY": secret("SECRET_KEY"),
        "JWT_SECRET_KEY": secret("JWT_SECRET_KEY"),
        "ENCRYPTION_KEYS": _list(secret("ENCRYPTION_KEYS")),
        "ACCESS_TOKEN_EXPIRES": _int(env, "ACCESS_TOKEN_EXPIRES", 2 * 24 * 3600),
        "MFA_ACCESS_TOKEN_EXPIRES": 5 * 24 * 3600,
        "MFA_TOKEN_EXPIRES": 300,
        "RECENT_SIGN_IN_SECONDS": _int(env, "RECENT_SIGN_IN_SECONDS", 15 * 60),
        "RESET_MAIL_COOLDOWN_SECONDS": _int(env, "RESET_MAIL_COOLDOWN_SECONDS", 60),
        # Database
        "SQLALCHEMY_DATABASE_URI": database_url,
        "SQLALCHEMY_ENGINE_OPTIONS": _engine_options(database_url, env),
        "SQLALCHEMY_TRACK_MODIFICATIONS": False,
        # Request bodies
        "MAX_CONTENT_LENGTH": max_body,
        "MAX_REQUEST_BODY_BYTES": max_body,
        "MAX_IMPORT_UPLOAD_BYTES": _int(env, "MAX_IMPORT_UPLOAD_BYTES", 20 * 1024 * 1024),
        "MAX_DIAGRAM_CONTENT_BYTES": _int(env, "MAX_DIAGRAM_CONTENT_BYTES", 1024 * 1024),
        "MAX_SKETCH_CONTENT_BYTES": _int(env, "MAX_SKETCH_CONTENT_BYTES", 5 * 1024 * 1024),
        # Language
        "DEFAULT_LANGUAGE": (env.get("DEFAULT_LANGUAGE") or "en").lower(),
        "LANGUAGES": ("en", "es"),
        "BABEL_DEFAULT_LOCALE": (env.get("DEFAULT_LANGUAGE") or "en").lower(),
        "BABEL_DOMAIN": ";".join(TRANSLATION_DOMAINS),
        "BABEL_TRANSLATION_DIRECTORIES": ";".join(
            [str(Path(__file__).parent / "translations")] * len(TRANSLATION_DOMAINS)),
        # Web
        "FRONTEND_URL": frontend_url,
        "CORS_ORIGINS": _list(env.get("CORS_ORIGINS")) or [frontend_url],
        "TRUSTED_PROXY_COUNT": _int(env, "TRUSTED_PROXY_COUNT", 0),
        # Rate limits
        "RATELIMIT_ENABLED": _bool(env, "RATELIMIT_ENABLED", True),
        "RATELIMIT_STORAGE_URI": storage_uri,
        "RATELIMIT_STRATEGY": "moving-window",
        "RATELIMIT_HEADERS_ENABLED": False,
        "RATELIMIT_KEY_PREFIX": "trazo",
        "REDIS_URL": storage_uri if storage_uri.startswith(("redis://", "rediss://")) else None,
        # E-mail
        "EMAIL_BACKEND": email_backend,
        "SMTP_HOST": smtp_host,
        "SMTP_PORT": _int(env, "SMTP_PORT", 25),
        "SMTP_USERNAME": env.get("SMTP_USERNAME") or "",
        "SMTP_PASSWORD": env.get("SMTP_PASSWORD") or "",
        "SMTP_STARTTLS": _bool(env, "SMTP_STARTTLS", False),
        "SMTP_TIMEOUT": _int(env, "SMTP_TIMEOUT", 15),
        "EMAIL_TIMEOUT": _int(env, "EMAIL_TIMEOUT", 30),
        "MAIL_FROM": env.get("MAIL_FROM") or "Trazo <noreply@localhost>",
        # Rendering
        # auto: this host's engines, then Kroki for the rest only when KROKI_URL is set (docs/rendering.md).
        "RENDER_BACKEND": (env.get("RENDER_BACKEND") or "auto").lower(),
        "KROKI_URL": (env.get("KROKI_URL") or "").rstrip("/"),
        "RENDER_TIMEOUT": _int(env, "RENDER_TIMEOUT", 30),
        "PLANTUML_JAR": env.get("PLANTUML_JAR") or "",
        "RENDER_MAX_SVG_BYTES": _int(env, "RENDER_MAX_SVG_BYTES", 10 * 1024 * 1024),
        "RENDER_MAX_SOURCE_BYTES": _int(env, "RENDER_MAX_SOURCE_BYTES", 100_000),
        "RENDER_MAX_GRAPH_EDGES": _int(env, "RENDER_MAX_GRAPH_EDGES", 2000),
        "RENDER_CPU_SECONDS": _int(env, "RENDER_CPU_SECONDS", 10),
        "RENDER_MEMORY_MB": _int(env, "RENDER_MEMORY_MB", 512),
        # A worker's rendering capacity and one client's share of it (docs/rendering.md, "Fair shares"):
        # local engine processes, Mermaid pages, PNG rasterizations (2 per worker).
        "RENDER_SLOTS": _int(env, "RENDER_SLOTS", 6),
        "RENDER_SLOTS_PER_CLIENT": _int(env, "RENDER_SLOTS_PER_CLIENT", 2),
        "MERMAID_PAGES": _int(env, "MERMAID_PAGES", 2),
        "MERMAID_PAGES_PER_CLIENT": _int(env, "MERMAID_PAGES_PER_CLIENT", 1),
        "RENDER_PNG_SLOTS_PER_CLIENT": _int(env, "RENDER_PNG_SLOTS_PER_CLIENT", 1),
        # Pixels a PNG may need (its canvas, or the regions its filters fill); 4096 x 4096.
        "RENDER_MAX_PNG_PIXELS": _int(env, "RENDER_MAX_PNG_PIXELS", 16_777_216),
        # Hosts D2 icon URLs may reach although their address is not public ("host" or "host:port";
        # docs/rendering.md, "Icons"); every other private, loopback or link-local address is refused.
        "RENDER_ICON_ALLOWED_PRIVATE_HOSTS": _list(env.get("RENDER_ICON_ALLOWED_PRIVATE_HOSTS")),
        # An export with images draws until this deadline, and at most this many images the cache lacks.
        "EXPORT_IMAGES_SECONDS": _int(env, "EXPORT_IMAGES_SECONDS", 60),
        "EXPORT_IMAGE_RENDERS": _int(env, "EXPORT_IMAGE_RENDERS", 50),
        # AI
        "OPENAI_BASE_URL": env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1",
        "ANTHROPIC_BASE_URL": env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com/v1",
        "GEMINI_BASE_URL": env.get("GEMINI_BASE_URL") or "https://generativelanguage.googleapis.com/v1beta",
        "DEEPSEEK_BASE_URL": env.get("DEEPSEEK_BASE_URL") or "https://api.deepseek.com/v1",
        "MINIMAX_BASE_URL": env.get("MINIMAX_BASE_URL") or "https://api.minimax.io/v1",
        "AI_TIMEOUT": _int(env, "AI_TIMEOUT", 120),
        "AI_MAX_RESPONSE_BYTES": _int(env, "AI_MAX_RESPONSE_BYTES", 4 * 1024 * 1024),
        "AI_ALLOWED_PRIVATE_HOSTS": _list(env.get("AI_ALLOWED_PRIVATE_HOSTS")),
        # Payments
        "STRIPE_SECRET_KEY": env.get("STRIPE_SECRET_KEY") or "",
        "STRIPE_WEBHOOK_SECRET": env.get("STRIPE_WEBHOOK_SECRET") or "",
        "STRIPE_PUBLISHABLE_KEY": env.get("STRIPE_PUBLISHABLE_KEY") or "",
        "STRIPE_API_BASE": (env.get("STRIPE_API_BASE") or "https://api.stripe.com").rstrip("/"),
        "STRIPE_TIMEOUT": _int(env, "STRIPE_TIMEOUT", 30),
        "FREE_PLAN_MAX_PROJECTS": _optional_int(env, "FREE_PLAN_MAX_PROJECTS"),
        "FREE_PLAN_MAX_DIAGRAMS": _optional_int(env, "FREE_PLAN_MAX_DIAGRAMS"),
        "FREE_PLAN_MAX_STORAGE_MB": _int(env, "FREE_PLAN_MAX_STORAGE_MB", 100),
        "FREE_PLAN_MAX_REVISIONS_PER_DIAGRAM": _int(env, "FREE_PLAN_MAX_REVISIONS_PER_DIAGRAM", 50),
        "FREE_PLAN_MAX_LABELLED_REVISIONS_PER_DIAGRAM": _int(env, "FREE_PLAN_MAX_LABELLED_REVISIONS_PER_DIAGRAM", 20),
        # What one row costs the database (measured: docs/security.md), counted in the storage figure per
        # diagram, folder and revision on top of their content (core/quotas.py).
        "STORAGE_OVERHEAD_DIAGRAM_BYTES": _int(env, "STORAGE_OVERHEAD_DIAGRAM_BYTES", 600),
        "STORAGE_OVERHEAD_FOLDER_BYTES": _int(env, "STORAGE_OVERHEAD_FOLDER_BYTES", 250),
        "STORAGE_OVERHEAD_REVISION_BYTES": _int(env, "STORAGE_OVERHEAD_REVISION_BYTES", 500),
        # Saves by one author within this many seconds of the newest unlabelled revision amend it.
        "REVISION_COALESCE_SECONDS": _int(env, "REVISION_COALESCE_SECONDS", 600),
        # OAuth
        "GOOGLE_CLIENT_ID": env.get("GOOGLE_CLIENT_ID") or "",
        "GOOGLE_CLIENT_SECRET": env.get("GOOGLE_CLIENT_SECRET") or "",
        "GITHUB_CLIENT_ID": env.get("GITHUB_CLIENT_ID") or "",
        "GITHUB_CLIENT_SECRET": env.get("GITHUB_CLIENT_SECRET") or "",
        "OAUTH_REDIRECT_URI": env.get("OAUTH_REDIRECT_URI") or f"{frontend_url}/oauth/callback",
        "GOOGLE_METADATA_URL": env.get("GOOGLE_METADATA_URL")
        or "https://accounts.google.com/.well-known/openid-configuration",
        "GITHUB_API_BASE": (env.get("GITHUB_API_BASE") or "https://api.github.com").rstrip("/"),
        "GITHUB_OAUTH_BASE": (env.get("GITHUB_OAUTH_BASE") or "https://github.com").rstrip("/"),
        "OAUTH_TIMEOUT": _int(env, "OAUTH_TIMEOUT", 20),
        # Logs and error reporting (docs/operations.md): LOG_FORMAT text or json (one object per line);
        # Sentry only when SENTRY_DSN is set.
        "LOG_FORMAT": _choice(env, "LOG_FORMAT", ("text", "json"), "text"),
        "SENTRY_DSN": env.get("SENTRY_DSN") or "",
        "SENTRY_ENVIRONMENT": env.get("SENTRY_ENVIRONMENT") or app_env,
        "SENTRY_TRACES_SAMPLE_RATE": _rate(env, "SENTRY_TRACES_SAMPLE_RATE", 0.0),
        # Metrics (docs/operations.md, "Metrics"): GET /metrics answers the bearer METRICS_TOKEN or a client
        # address in METRICS_ALLOWED_NETWORKS (CIDRs); with neither set it is a 404 like any unknown path.
        "METRICS_TOKEN": _metrics_token(env, production),
        "METRICS_ALLOWED_NETWORKS": _networks(env, "METRICS_ALLOWED_NETWORKS"),
        # E-mail outbox (core/outbox.py, docs/operations.md): who sends after the commit (thread: a sender
        # thread per worker; inline: the request, as it ends; external: only `flask mail deliver`), how often
        # senders look for due messages, retries (doubling from the base, capped at an hour), and the lease
        # of a claimed message, longer than EMAIL_TIMEOUT.
        "OUTBOX_DELIVERY": _choice(env, "OUTBOX_DELIVERY", ("thread", "inline", "external"),
                                   "inline" if app_env == "testing" else "thread"),
        "OUTBOX_POLL_SECONDS": _int(env, "OUTBOX_POLL_SECONDS", 5),
        "OUTBOX_RETRY_BASE_SECONDS": _int(env, "OUTBOX_RETRY_BASE_SECONDS", 30),
        "OUTBOX_MAX_ATTEMPTS": _int(env, "OUTBOX_MAX_ATTEMPTS", 8),
        "OUTBOX_LEASE_SECONDS": _int(env, "OUTBOX_LEASE_SECONDS", 120),
        # Retention (`flask prune`, core/retention.py): days rows are kept.
        "OUTBOX_RETENTION_DAYS": _int(env, "OUTBOX_RETENTION_DAYS", 7),
        "OUTBOX_FAILED_RETENTION_DAYS": _int(env, "OUTBOX_FAILED_RETENTION_DAYS", 30),
        "WEBHOOK_EVENTS_RETENTION_DAYS": _int(env, "WEBHOOK_EVENTS_RETENTION_DAYS", 90),
        "SHARE_ACCESS_LOG_RETENTION_DAYS": _int(env, "SHARE_ACCESS_LOG_RETENTION_DAYS", 90),
        "AUDIT_LOG_RETENTION_DAYS": _int(env, "AUDIT_LOG_RETENTION_DAYS", 90),
        # Passwords: argon2id with OWASP's recommended cost (19 MiB, 2 passes); tests lower it. Hashes
        # made with other parameters are upgraded at the next successful login.
        "ARGON2_TIME_COST": _int(env, "ARGON2_TIME_COST", 2),
        "ARGON2_MEMORY_COST": _int(env, "ARGON2_MEMORY_COST", 19 * 1024),
        "ARGON2_PARALLELISM": _int(env, "ARGON2_PARALLELISM", 1),
        "ARGON2_MAX_CONCURRENCY": _int(env, "ARGON2_MAX_CONCURRENCY", 4),
        # OpenAPI (the docs routes are registered only outside production)
        "API_TITLE": "Trazo API",
        "API_VERSION": "0.1.0",
        "OPENAPI_VERSION": "3.0.3",
        "DOCS_ENABLED": not production,
    }


def _engine_options(database_url, env):
    if database_url.startswith("sqlite"):
        return {"connect_args": {"timeout": 30}}
    threads = _int(env, "GUNICORN_THREADS", 128)
    # No pre-ping by default: a statement that meets a dead connection is retried once instead
    # (web.Application, docs/operations.md); pre-ping costs a round trip per request.
    return {"pool_pre_ping": _bool(env, "DATABASE_POOL_PRE_PING", False), "pool_size": min(threads, 10),
            "max_overflow": 10, "pool_recycle": 1800}


def _metrics_token(env, production):
    token = env.get("METRICS_TOKEN") or ""
    if production and token and len(token) < MIN_SECRET_BYTES:
        raise ConfigError(f"METRICS_TOKEN must be at least {MIN_SECRET_BYTES} characters long in production")
    return token


def _networks(env, name):
    """A comma-separated list of CIDRs (a bare address is its own /32 or /128) as network objects."""
    networks = []
    for item in _list(env.get(name)):
        try:
            networks.append(ipaddress.ip_network(item))
        except ValueError as exc:
            raise ConfigError(f"{name}: {item!r} is not a network in CIDR notation (e.g. 10.0.0.0/8), "
                              "or has host bits set") from exc
    return tuple(networks)
