"""Every setting the service reads from the environment, declared once: name, kind, default, section, one line of
doc (docs/operations.md, "Settings"). config.load_config and gunicorn.conf.py read this table; `make settings-doc`
writes README.md's settings table and .env.example from it; tests/platform/test_settings.py keeps them in step.

This module imports no module of ours: gunicorn.conf.py loads it on its own, without the application.
"""
import ipaddress
import multiprocessing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from limits import parse as parse_limit

STR, INT, OPTIONAL_INT, BOOL, RATE, CHOICE, LIST, NETWORKS, LIMIT = (
    "str", "int", "optional int", "bool", "rate", "choice", "list", "networks", "rate limit")
ENVIRONMENTS = ("production", "development", "testing")
TRUE_WORDS = ("1", "true", "yes", "on")


class ConfigError(RuntimeError):
    """A setting is missing or invalid; the service refuses to start."""


@dataclass(frozen=True)
class Setting:
    name: str
    kind: str
    default: Any  # the value when unset (or empty), or a function of the values read before it
    doc: str
    section: str = ""
    shown: str | None = None  # the default as README.md shows it, when not the value itself
    example: str | None = None  # its line in .env.example when not the default; "#..." writes it commented out
    choices: tuple = ()
    clean: Callable | None = None  # applied to a value read from the environment (lower case, no trailing /)
    keep_empty: bool = False  # an empty value is a value (only an unset one takes the default)
    config: bool = True  # a key of the Flask config under its own name

    def default_text(self):
        if self.shown is not None:
            return self.shown
        if self.default in (None, "", []):
            return "—"
        if isinstance(self.default, bool):
            return f"`{str(self.default).lower()}`"
        return f"`{self.default}`"


def _lower(text):
    return text.lower()


def _no_trailing_slash(text):
    return text.rstrip("/")


def split_list(raw):
    return [item.strip() for item in (raw or "").split(",") if item.strip()]


def _integer(name, raw):
    try:
        return int(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from exc


def _rate(name, raw):
    """A fraction between 0 and 1 (a sampling rate)."""
    try:
        value = float(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a number between 0 and 1, got {raw!r}") from exc
    if not 0 <= value <= 1:
        raise ConfigError(f"{name} must be a number between 0 and 1, got {raw!r}")
    return value


def _choice(setting, raw):
    value = raw.strip().lower()
    if value not in setting.choices:
        raise ConfigError(f"{setting.name} must be one of {', '.join(setting.choices)}, got {value!r}")
    return value


def _networks(name, raw):
    """A comma-separated list of CIDRs (a bare address is its own /32 or /128) as network objects."""
    networks = []
    for item in split_list(raw):
        try:
            networks.append(ipaddress.ip_network(item))
        except ValueError as exc:
            raise ConfigError(f"{name}: {item!r} is not a network in CIDR notation (e.g. 10.0.0.0/8), "
                              "or has host bits set") from exc
    return tuple(networks)


def _limit(name, raw):
    try:
        parse_limit(raw)
    except ValueError as exc:
        raise ConfigError(f"{name} must be a rate limit such as 10/minute or 2/10 minutes, got {raw!r}") from exc
    return raw


PARSERS = {
    STR: lambda setting, raw: setting.clean(raw) if setting.clean else raw,
    INT: lambda setting, raw: _integer(setting.name, raw),
    OPTIONAL_INT: lambda setting, raw: _integer(setting.name, raw),
    BOOL: lambda setting, raw: raw.strip().lower() in TRUE_WORDS,
    RATE: lambda setting, raw: _rate(setting.name, raw),
    CHOICE: _choice,
    LIST: lambda setting, raw: split_list(raw),
    NETWORKS: lambda setting, raw: _networks(setting.name, raw),
    LIMIT: lambda setting, raw: _limit(setting.name, raw),
}


def parse(setting, env, values):
    """The value of `setting` in `env`; its default when unset or empty (or an empty list)."""
    raw = env.get(setting.name)
    if raw is not None and (raw != "" or setting.keep_empty):
        value = PARSERS[setting.kind](setting, raw)
        if value != [] or setting.kind != LIST:
            return value
    if callable(setting.default):
        return setting.default(values)
    return list(setting.default) if isinstance(setting.default, list) else setting.default


def read(env, names=None, values=None):
    """{name: value} of every declared setting (or of `names`), in the table's order: a default may depend on
    the settings declared before it. `values` holds the ones already known (e.g. INSTANCE_PATH made absolute)."""
    values = dict(values or {})
    for setting in SETTINGS:
        if setting.name not in values and (names is None or setting.name in names):
            values[setting.name] = parse(setting, env, values)
    return values


def value(env, name):
    """One setting's value, for a reader outside load_config (gunicorn.conf.py, metrics.py, create_app)."""
    return read(env, names=(name,))[name]


def _section(title, *settings):
    return [Setting(**{**vars(setting), "section": title}) for setting in settings]


def _web_concurrency(values):
    shared_limits = values["RATELIMIT_STORAGE_URI"].startswith(("redis", "rediss"))
    return min(4, multiprocessing.cpu_count() * 2) if shared_limits else 1


def _limit_setting(name, default, doc):
    return Setting(name, LIMIT, default, doc)


S = Setting
SETTINGS = [
    *_section(
        "General",
        S("APP_ENV", CHOICE, "production", "`production`, `development` or `testing`; docs only outside production",
          shown="`production` (`development` under `make run`)", choices=ENVIRONMENTS),
        S("INSTANCE_PATH", STR, "instance", "folder of the SQLite database and the development secrets",
          config=False, example="#instance"),
        S("API_V1_PREFIX", STR, "/api/v1", "path prefix of every API route (docs/api.md)"),
        S("DEFAULT_LANGUAGE", STR, "en", "when `Accept-Language` names neither `en` nor `es`", clean=_lower),
    ),
    *_section(
        "Database",
        S("DATABASE_URL", STR, lambda values: f"sqlite:///{Path(values['INSTANCE_PATH']) / 'trazo.db'}",
          "SQLAlchemy URL; `postgresql+psycopg://...` in production", shown="`sqlite:///instance/trazo.db`",
          example="postgresql+psycopg://trazo:change-me@127.0.0.1:5432/trazo", config=False),
        S("DATABASE_POOL_PRE_PING", BOOL, False,
          "test each pooled PostgreSQL connection before use (one round trip per request). Off, a statement that "
          "meets a connection broken by a database restart is retried once on a fresh one when safe (a read, or a "
          "write that has run nothing yet; else 503 with `Retry-After`), see docs/operations.md; turn it on behind "
          "a pooler (pgbouncer) or firewall that drops idle connections without a word",
          example="#false", config=False),
    ),
    *_section(
        "Secrets and sign-in",
        S("SECRET_KEY", STR, None, "required in production, which refuses one shorter than 32 bytes: "
          "`python3 -c 'import secrets;print(secrets.token_hex(32))'`", shown="generated in development",
          example="change-me-64-hex-characters", config=False),
        S("JWT_SECRET_KEY", STR, None, "signs access tokens; required in production, which refuses one shorter "
          "than 32 bytes", shown="generated in development", example="change-me-64-hex-characters", config=False),
        S("ENCRYPTION_KEYS", STR, None, "comma-separated list of Fernet keys, the first encrypts; required in "
          "production, which refuses an entry that is not a Fernet key: "
          "`python3 -c 'import base64,os;print(base64.urlsafe_b64encode(os.urandom(32)).decode())'`",
          shown="generated in development", example="", config=False),
        S("ACCESS_TOKEN_EXPIRES", INT, 2 * 24 * 3600, "access-token lifetime in seconds"),
        S("RECENT_SIGN_IN_SECONDS", INT, 15 * 60, "MFA changes, new recovery codes and deleting the account need "
          "the current password or a sign-in at most this many seconds old"),
        S("RESET_MAIL_COOLDOWN_SECONDS", INT, 60, "at most one password-reset e-mail per account in this many "
          "seconds, whoever asks (later requests get the same answer and send nothing); `0` turns the cooldown off"),
        S("ARGON2_TIME_COST", INT, 2, "password hashing (argon2id): passes"),
        S("ARGON2_MEMORY_COST", INT, 19 * 1024, "password hashing: memory in KiB (OWASP's recommended cost)"),
        S("ARGON2_PARALLELISM", INT, 1, "password hashing: lanes"),
        S("ARGON2_MAX_CONCURRENCY", INT, 2, "password hashes computed at once per worker, each holding "
          "ARGON2_MEMORY_COST KiB while it runs"),
        S("OAUTH2_ACCESS_TOKEN_SECONDS", INT, 30 * 60, "lifetime of the access tokens the authorization server "
          "issues for the MCP endpoint (docs/oauth-server.md); capped under an hour"),
        S("OAUTH2_REFRESH_TOKEN_DAYS", INT, 30, "lifetime of an OAuth refresh token; each use replaces it"),
        S("OAUTH2_CLIENT_DOCUMENT_TIMEOUT", INT, 5, "total deadline of fetching a client's metadata document "
          "(its client_id URL), in seconds"),
        S("OAUTH2_CLIENT_DOCUMENT_CACHE_SECONDS", INT, 3600, "how long a fetched client metadata document is "
          "used before it is fetched again"),
        S("OAUTH2_CLIENT_DOCUMENT_PRIVATE_HOSTS", LIST, [], "comma-separated `host` or `host:port` entries whose "
          "client metadata documents may be on a private address, and over plain http (development, tests); "
          "every other document URL must be https on a public address"),
        S("OAUTH2_SESSION_SECONDS", INT, 10 * 60, "lifetime of the sign-in and consent pages' own cookie (scoped to "
          "`/oauth2`)"),
    ),
    *_section(
        "Web",
        S("FRONTEND_URL", STR, "http://localhost:5173", "the SPA's origin: links in e-mails",
          clean=_no_trailing_slash, example="https://app.trazo.example"),
        S("CORS_ORIGINS", LIST, lambda values: [values["FRONTEND_URL"]], "SPA origins (comma-separated)",
          shown="`FRONTEND_URL`", example="https://app.trazo.example"),
        S("PUBLIC_URL", STR, "", "this service's own public origin (e.g. `https://api.trazo.example`): the absolute "
          "URLs of `/mcp` and its OAuth protected-resource metadata, and an `Origin` `/mcp` accepts besides "
          "`CORS_ORIGINS`; empty: the origin each request names (its `Host`, and behind `TRUSTED_PROXY_COUNT` "
          "the proxy's `X-Forwarded-Host` and `-Proto`), see docs/mcp.md", clean=_no_trailing_slash,
          example="https://api.trazo.example"),
        S("TRUSTED_PROXY_COUNT", INT, 0, "`X-Forwarded-For` hops to trust (1 behind one nginx); above 0 the "
          "proxy's `X-Request-ID` is kept too (otherwise every id is generated); then keep `HOST` on `127.0.0.1`, "
          "see below", example="1"),
        S("MAX_REQUEST_BODY_BYTES", INT, 5 * 1024 * 1024, "largest request body (413)"),
        S("MAX_IMPORT_UPLOAD_BYTES", INT, 20 * 1024 * 1024, "largest import upload (413)"),
        S("MAX_DIAGRAM_CONTENT_BYTES", INT, 1024 * 1024, "UTF-8 size cap of one text diagram's content (422)"),
        S("MAX_SKETCH_CONTENT_BYTES", INT, 5 * 1024 * 1024, "UTF-8 size cap of one freehand sketch's content (422)"),
    ),
    *_section(
        "E-mail",
        S("SMTP_HOST", STR, "", "SMTP server", example="smtp.example.com"),
        S("SMTP_PORT", INT, 25, "SMTP port", example="587"),
        S("SMTP_USERNAME", STR, "", "SMTP user"),
        S("SMTP_PASSWORD", STR, "", "SMTP password"),
        S("SMTP_STARTTLS", BOOL, False, "STARTTLS on the SMTP connection", example="true"),
        S("SMTP_TIMEOUT", INT, 15, "deadline of each SMTP socket operation (seconds)"),
        S("EMAIL_BACKEND", STR, lambda values: "smtp" if values["SMTP_HOST"] else "console",
          "`console` logs e-mails (in production only recipient and subject, never the body with its links and "
          "codes, and a warning at start-up), `smtp` sends them", shown="`console` (`smtp` when `SMTP_HOST` is set)",
          clean=_lower, example="smtp"),
        S("EMAIL_TIMEOUT", INT, 30, "total deadline of one e-mail delivery or e-mail vendor test (SMTP or Resend), "
          "in seconds"),
        S("MAIL_FROM", STR, "Trazo <noreply@localhost>", "sender of the service's e-mail",
          example="Trazo <noreply@trazo.example>"),
        S("OUTBOX_DELIVERY", CHOICE, lambda values: "inline" if values["APP_ENV"] == "testing" else "thread",
          "who sends e-mail after the commit that wrote it: `thread` (a sender thread in each web worker), "
          "`inline` (the request, as it ends), `external` (only `flask mail deliver`); see docs/operations.md",
          shown="`thread` (`inline` under `APP_ENV=testing`)", choices=("thread", "inline", "external"),
          example="thread"),
        S("OUTBOX_POLL_SECONDS", INT, 5, "how often senders look for due e-mail (retries, messages a dead process "
          "claimed)"),
        S("OUTBOX_RETRY_BASE_SECONDS", INT, 30, "first retry delay of an e-mail not delivered (doubling, capped at "
          "an hour, with jitter)"),
        S("OUTBOX_MAX_ATTEMPTS", INT, 8, "attempts before an e-mail is given up (`failed`)"),
        S("OUTBOX_LEASE_SECONDS", INT, 120, "how long a claimed message stays with its sender (must exceed "
          "`EMAIL_TIMEOUT`)"),
    ),
    *_section(
        "Rendering",
        S("RENDER_BACKEND", STR, "auto", "who draws diagrams: `auto` (this host's engines, then Kroki for the "
          "other types when `KROKI_URL` is set, else 503 naming the types this server draws), `local` (this host's "
          "engines only) or `kroki`; see \"Rendering engines\" below and docs/rendering.md", clean=_lower),
        S("KROKI_URL", STR, "", "a Kroki server for the types no engine here draws (with `kroki`, for all); empty: "
          "no diagram source leaves this host", clean=_no_trailing_slash),
        S("RENDER_TIMEOUT", INT, 30, "seconds one render may take, Kroki call or local engine, waiting for a slot "
          "included (504 beyond); a D2 drawing's icon fetches end within it too"),
        S("PLANTUML_JAR", STR, "", "another PlantUML jar (used even when its version is not the pinned one, with a "
          "warning in the log)", shown="the pinned jar `make install` puts in `engines/plantuml`", example="#"),
        S("RENDER_MAX_SVG_BYTES", INT, 10 * 1024 * 1024, "largest SVG an engine may answer"),
        S("RENDER_MAX_SOURCE_BYTES", INT, 100_000, "largest source `POST /diagrams/render` accepts (422 beyond)"),
        S("RENDER_MAX_GRAPH_EDGES", INT, 2000, "most edges a Graphviz source may draw (400 beyond)"),
        S("RENDER_CPU_SECONDS", INT, 10, "CPU seconds of each local rendering process (a Mermaid page's renderer "
          "too, per render); a render past them answers 400"),
        S("RENDER_MEMORY_MB", INT, 512, "memory of each local rendering process (address space for Graphviz, "
          "committed memory for Java, D2 and Node, with half of it as their heap; resident memory for a Mermaid "
          "page, docs/mermaid-engine.md); a render past it answers 400. Keep it at 256 or more: the JVM and Node "
          "need it to start"),
        S("RENDER_SLOTS", INT, 6, "local engine processes at once per worker (docs/rendering.md, \"Fair shares\")"),
        S("RENDER_SLOTS_PER_CLIENT", INT, 2, "engine processes one client (its address; its user when signed in) "
          "may hold: past its share a render is a 503 with `Retry-After` at once"),
        S("MERMAID_PAGES", INT, 2, "Mermaid pages per worker (docs/mermaid-engine.md)"),
        S("MERMAID_PAGES_PER_CLIENT", INT, 1, "Mermaid pages one client may hold"),
        S("MERMAID_CHROMIUM", STR, "", "a browser other than the first of chromium, chromium-browser, "
          "google-chrome on PATH", shown="found on `PATH`", example="#"),
        S("MERMAID_ENGINE_DIR", STR, "", "another engines/mermaid (its npm packages)", shown="`engines/mermaid`",
          example="#"),
        S("RENDER_PNG_SLOTS_PER_CLIENT", INT, 1, "PNG rasterizations one client may hold (of two per worker)"),
        S("RENDER_MAX_PNG_PIXELS", INT, 16_777_216, "pixels a PNG image may need (its canvas, or the regions its "
          "filters fill; 4096 x 4096); beyond it the PNG is a 400 before resvg starts (docs/image-links.md, \"PNG\")"),
        S("RENDER_ICON_ALLOWED_PRIVATE_HOSTS", LIST, [], "comma-separated `host` or `host:port` entries that D2 "
          "icon URLs may reach although private (an icon server on the LAN); the server fetches icons from public "
          "addresses only otherwise (docs/rendering.md, \"Icons\")"),
        S("EXPORT_IMAGES_SECONDS", INT, 60, "an export with `include_images=true` draws until this deadline; the "
          "rest are listed in its manifest with the reason (docs/export-format.md, \"Images\")"),
        S("EXPORT_IMAGE_RENDERS", INT, 50, "most images the render cache lacks one export with images draws"),
    ),
    *_section(
        "AI",
        S("OPENAI_BASE_URL", STR, "https://api.openai.com/v1", "OpenAI endpoint"),
        S("ANTHROPIC_BASE_URL", STR, "https://api.anthropic.com/v1", "Anthropic endpoint"),
        S("GEMINI_BASE_URL", STR, "https://generativelanguage.googleapis.com/v1beta", "Gemini endpoint"),
        S("DEEPSEEK_BASE_URL", STR, "https://api.deepseek.com/v1", "DeepSeek endpoint"),
        S("MINIMAX_BASE_URL", STR, "https://api.minimax.io/v1", "MiniMax endpoint"),
        S("AI_TIMEOUT", INT, 120, "total deadline of one AI call, connection, headers and the whole answer "
          "(streamed chat replies included), in seconds; 504 `timeout` when it passes"),
        S("AI_MAX_RESPONSE_BYTES", INT, 4 * 1024 * 1024, "most bytes read from one AI answer (plain or streamed); "
          "beyond it the call fails with 502 `provider_error`"),
        S("AI_ALLOWED_PRIVATE_HOSTS", LIST, [], "comma-separated `host` or `host:port` entries (e.g. "
          "`localhost:11434,10.0.0.5`) that users' Ollama / OpenAI-compatible base URLs may reach although "
          "private; every other non-public address (loopback, private ranges, link-local, ...) is refused. The "
          "operator's `*_BASE_URL` settings are trusted"),
    ),
    *_section(
        "Payments and plans",
        S("STRIPE_SECRET_KEY", STR, "", "Stripe secret key (payments)"),
        S("STRIPE_WEBHOOK_SECRET", STR, "", "Stripe webhook signing secret"),
        S("STRIPE_PUBLISHABLE_KEY", STR, "", "Stripe publishable key"),
        S("STRIPE_API_BASE", STR, "https://api.stripe.com", "Stripe endpoint", clean=_no_trailing_slash),
        S("STRIPE_TIMEOUT", INT, 30, "total deadline of one Stripe call, headers and body (seconds); 504 when it "
          "passes"),
        S("FREE_PLAN_MAX_PROJECTS", OPTIONAL_INT, None, "projects of the FREE plan when first created",
          shown="unlimited"),
        S("FREE_PLAN_MAX_DIAGRAMS", OPTIONAL_INT, None, "diagrams of the FREE plan when first created",
          shown="unlimited"),
        S("FREE_PLAN_MAX_STORAGE_MB", INT, 100, "storage quota of the FREE plan when first created (MiB of diagram "
          "content, descriptions and compressed history, plus the rows' overhead below; negative = unlimited)"),
        S("FREE_PLAN_MAX_REVISIONS_PER_DIAGRAM", INT, 50, "revisions the FREE plan keeps per diagram when first "
          "created (the oldest unlabelled ones are pruned past it; negative = unlimited); docs/history.md"),
        S("INVITATION_EXPIRY_DAYS", INT, 7, "days an e-mailed workspace invitation stays valid (docs/teams.md)"),
        S("FREE_PLAN_MAX_MEMBERS", OPTIONAL_INT, None, "members of each team workspace on the FREE plan when first "
          "created, owners included (docs/teams.md)", shown="unlimited"),
        S("FREE_PLAN_MAX_LABELLED_REVISIONS_PER_DIAGRAM", INT, 20, "named revisions a diagram may hold on the FREE "
          "plan when first created (they are never pruned; one more answers 409; negative = unlimited); "
          "docs/history.md"),
        S("STORAGE_OVERHEAD_DIAGRAM_BYTES", INT, 600, "bytes each diagram counts in the storage figure besides its "
          "content: about what its row and indexes cost the database (measured on PostgreSQL and SQLite, "
          "docs/security.md); computed, never stored, so a change applies at once"),
        S("STORAGE_OVERHEAD_FOLDER_BYTES", INT, 250, "the same for each folder"),
        S("STORAGE_OVERHEAD_REVISION_BYTES", INT, 500, "the same for each revision"),
        S("REVISION_COALESCE_SECONDS", INT, 600, "saves by the same author within this many seconds of the newest "
          "unlabelled revision's creation amend it instead of adding one (autosave); docs/history.md"),
    ),
    *_section(
        "Streams and the change feed",
        S("SSE_KEEPALIVE_SECONDS", INT, 15, "seconds between keep-alive comments on an open stream (chat replies "
          "and the change feed)"),
        S("SSE_ACCESS_CHECK_SECONDS", INT, 10, "seconds between checks that an open stream's caller may still read "
          "what it follows (a removed member's stream ends within it; docs/teams.md, docs/events.md)"),
        S("EVENT_REPLAY_SECONDS", INT, 600, "how long the change feed keeps events for reconnecting streams "
          "(`Last-Event-ID`); older ones answer a `reset` event (docs/events.md)"),
        S("EVENT_TICKET_SECONDS", INT, 60, "how long a one-use change feed ticket (for `EventSource`) is valid"),
        S("EVENT_STREAMS_PER_WORKER", INT, 512, "most change feed streams one worker holds open (each holds a "
          "thread: keep it 64 below `GUNICORN_THREADS`, those serve requests); beyond it 503 with Retry-After "
          "(docs/events.md, \"Capacity\")"),
        S("EVENT_STREAMS_PER_USER", INT, 10, "most change feed streams one user holds open on one worker"),
    ),
    *_section(
        "OAuth",
        S("GOOGLE_CLIENT_ID", STR, "", "Google sign-in client id"),
        S("GOOGLE_CLIENT_SECRET", STR, "", "Google sign-in client secret"),
        S("GITHUB_CLIENT_ID", STR, "", "GitHub sign-in client id"),
        S("GITHUB_CLIENT_SECRET", STR, "", "GitHub sign-in client secret"),
        S("OAUTH_REDIRECT_URI", STR, lambda values: f"{values['FRONTEND_URL']}/oauth/callback",
          "where providers send the browser back", shown="`FRONTEND_URL/oauth/callback`",
          example="https://app.trazo.example/oauth/callback"),
        S("GOOGLE_METADATA_URL", STR, "https://accounts.google.com/.well-known/openid-configuration",
          "Google's OpenID discovery document"),
        S("GITHUB_API_BASE", STR, "https://api.github.com", "GitHub API endpoint", clean=_no_trailing_slash),
        S("GITHUB_OAUTH_BASE", STR, "https://github.com", "GitHub sign-in endpoint", clean=_no_trailing_slash),
        S("OAUTH_TIMEOUT", INT, 20, "total deadline of one call to an OAuth provider (discovery, token exchange, "
          "user info, vendor test), in seconds"),
    ),
    *_section(
        "Logs and metrics",
        S("LOG_FORMAT", CHOICE, "text", "`text` (one line per record, control characters escaped) or `json`: one "
          "JSON object per line (timestamp, level, logger, message, `request_id`, exception) for the service and "
          "for gunicorn's access and error logs; see docs/operations.md", choices=("text", "json")),
        S("SENTRY_DSN", STR, "", "error reports to Sentry (off while empty), tagged with the request id; no request "
          "bodies, credentials, cookies or query strings are sent, and share tokens and files API paths are cut as "
          "in the logs"),
        S("SENTRY_ENVIRONMENT", STR, lambda values: values["APP_ENV"], "the environment Sentry reports name",
          shown="`APP_ENV`", example=""),
        S("SENTRY_TRACES_SAMPLE_RATE", RATE, 0.0, "share of requests sent as performance traces (0 to 1)",
          shown="`0`", example="0"),
        S("METRICS_TOKEN", STR, "", "bearer token of `GET /metrics` (Prometheus text format, outside `/api/v1`); "
          "production refuses one shorter than 32 characters. Without it and without `METRICS_ALLOWED_NETWORKS`, "
          "`/metrics` answers 404 like an unknown path; see docs/operations.md"),
        S("METRICS_ALLOWED_NETWORKS", NETWORKS, (), "comma-separated CIDRs (e.g. `10.0.5.0/24`) whose clients read "
          "`/metrics` without the token (the client address the rate limits use, after `TRUSTED_PROXY_COUNT`); the "
          "service refuses to start on an invalid one", example=""),
    ),
    *_section(
        "Retention",
        S("OUTBOX_RETENTION_DAYS", INT, 7, "`flask prune` deletes sent e-mail (metadata only) after this many days"),
        S("OUTBOX_FAILED_RETENTION_DAYS", INT, 30, "`flask prune` deletes given-up e-mail after this many days"),
        S("WEBHOOK_EVENTS_RETENTION_DAYS", INT, 90, "`flask prune` deletes payment webhook events after this many "
          "days"),
        S("SHARE_ACCESS_LOG_RETENTION_DAYS", INT, 90, "`flask prune` deletes shared-link visits after this many days"),
        S("AUDIT_LOG_RETENTION_DAYS", INT, 90, "`flask prune` deletes audit entries after this many days"),
    ),
    *_section(
        "Rate limits",
        S("RATELIMIT_ENABLED", BOOL, True, "switch every rate limit off (the login lockout stays on)"),
        S("RATELIMIT_STORAGE_URI", STR, "memory://", "`redis://host:6379/0` in production (limits shared by all "
          "workers)", example="redis://127.0.0.1:6379/0"),
        _limit_setting("RATE_LIMIT_LOGIN", "10/minute", "sign-ins per address (docs/api.md, \"Rate limits\")"),
        _limit_setting("RATE_LIMIT_REGISTER", "20/hour", "registrations per address"),
        _limit_setting("RATE_LIMIT_OAUTH2_REGISTER", "10/hour", "OAuth client registrations per address "
                       "(docs/oauth-server.md)"),
        _limit_setting("RATE_LIMIT_OAUTH2_TOKEN", "60/minute", "OAuth token and revocation requests per address"),
        _limit_setting("RATE_LIMIT_RESET_REQUEST", "10/hour", "password-reset requests per address"),
        _limit_setting("RATE_LIMIT_RESET_CONFIRM", "10/hour", "password-reset confirmations per address"),
        _limit_setting("RATE_LIMIT_MFA_VERIFY", "10/5 minutes", "second-factor codes per address"),
        _limit_setting("RATE_LIMIT_OAUTH_CALLBACK", "10/minute", "OAuth callbacks per address"),
        _limit_setting("RATE_LIMIT_RENDER", "60/minute", "renders per address"),
        _limit_setting("RATE_LIMIT_RENDER_SECONDS", "60/minute", "seconds of engine time one client's renders and "
                       "PNG rasterizations the caches cannot answer may hold, per address and per user: 429 before "
                       "a render once spent, charged after with the seconds held (docs/rendering.md, \"Limits\")"),
        _limit_setting("RATE_LIMIT_SHARED_PUBLIC", "60/minute", "requests per address to the public shared-link "
                       "routes together"),
        _limit_setting("RATE_LIMIT_SHARED_IMAGE", "300/minute", "image requests per address (docs/image-links.md)"),
        _limit_setting("RATE_LIMIT_EXPORT", "30/minute", "exports per user"),
        _limit_setting("RATE_LIMIT_EXPORT_IMAGES", "2/10 minutes", "exports with `include_images=true` per user, on "
                       "top of `RATE_LIMIT_EXPORT`"),
        _limit_setting("RATE_LIMIT_REVISION_DIFF", "30/minute", "revision comparisons per user"),
        _limit_setting("RATE_LIMIT_REVISION_RESTORE", "30/minute", "revision restores per user"),
        _limit_setting("RATE_LIMIT_REVISION_LABEL", "30/minute", "revision namings per user (`POST` and `PUT` "
                       "together)"),
        _limit_setting("RATE_LIMIT_EXPORT_SUMMARY", "60/minute", "export summaries per user"),
        _limit_setting("RATE_LIMIT_IMPORT", "20/minute", "imports per user"),
        _limit_setting("RATE_LIMIT_IMPORT_PREVIEW", "60/minute", "import previews per user"),
        _limit_setting("RATE_LIMIT_FILES_SYNC", "20/minute", "files API syncs per user, dry runs included "
                       "(docs/files-api.md)"),
        _limit_setting("RATE_LIMIT_CREATIONS", "1000/hour", "diagrams and folders one user creates, whatever the "
                       "route (a request spends what it creates and is refused whole past it; one request creates at "
                       "most 1,000: 500 files and their folders; dry runs spend nothing)"),
        _limit_setting("RATE_LIMIT_AI", "30/minute", "AI requests and chat sends per user"),
        _limit_setting("RATE_LIMIT_PERSONAL_TOKEN", "600/minute", "requests per personal access token, on top of "
                       "the route's own limit"),
        _limit_setting("RATE_LIMIT_PERSONAL_TOKEN_CREATE", "10/hour", "personal access tokens created per user"),
        _limit_setting("RATE_LIMIT_INVITATIONS", "50/hour", "workspace invitations and invite links one user "
                       "creates (docs/teams.md)"),
        _limit_setting("RATE_LIMIT_INVITE_TOKENS", "30/minute", "invitation and invite-link token lookups, accepts "
                       "and joins per address"),
        _limit_setting("RATE_LIMIT_EVENT_STREAMS", "60/minute", "change feed streams one user opens and tickets "
                       "they ask for (docs/events.md)"),
        _limit_setting("RATE_LIMIT_COMMENTS", "60/minute", "comments one user writes: new threads, replies and "
                       "edits (docs/comments.md)"),
        _limit_setting("RATE_LIMIT_MCP", "300/minute", "`/mcp` requests per personal access token, on top of "
                       "`RATE_LIMIT_PERSONAL_TOKEN`; each tool also spends the per-user limit of the route it "
                       "stands for (docs/mcp.md, \"Limits\")"),
        _limit_setting("RATE_LIMIT_SEARCH", "120/minute", "searches per user, their personal access tokens "
                       "included (docs/search.md)"),
    ),
    *_section(
        "Server",
        S("HOST", STR, "127.0.0.1", "where gunicorn binds", config=False),
        S("PORT", INT, 8000, "the port gunicorn binds", config=False),
        S("WEB_CONCURRENCY", INT, _web_concurrency, "gunicorn workers", config=False,
          shown="1 worker with `memory://` (2×cores up to 4 with Redis)", example="#"),
        S("GUNICORN_THREADS", INT, 576, "threads per worker: each open stream (chat reply, change feed) holds one "
          "thread (docs/events.md, \"Capacity\"); the database pool keeps at most 10 of their connections",
          config=False),
        S("GUNICORN_TIMEOUT", INT, 60, "seconds a silent worker lives before gunicorn restarts it", config=False),
        S("GUNICORN_GRACEFUL_TIMEOUT", INT, 30, "seconds a worker has to finish its requests at a restart",
          config=False),
        S("GUNICORN_KEEPALIVE", INT, 5, "seconds an idle keep-alive connection stays open", config=False),
        S("GUNICORN_MAX_REQUESTS", INT, 0, "requests after which a worker is replaced (0: never)", config=False),
        S("GUNICORN_MAX_REQUESTS_JITTER", INT, 0, "random extra requests added to `GUNICORN_MAX_REQUESTS`",
          config=False),
        S("GUNICORN_ACCESSLOG", STR, "-", "where the access log goes (`-`: standard output; empty: no access log)",
          keep_empty=True, config=False),
        S("GUNICORN_LOGLEVEL", STR, "info", "gunicorn's log level", keep_empty=True, config=False),
        S("FORWARDED_ALLOW_IPS", STR, "127.0.0.1", "addresses whose forwarded headers gunicorn trusts",
          keep_empty=True, config=False),
        S("PROMETHEUS_MULTIPROC_DIR", STR, "", "where gunicorn's workers keep their metrics for `/metrics` to add "
          "up; emptied at start (set by `gunicorn.conf.py`, never needed by hand)", config=False,
          shown="a new temporary directory", example="#/run/trazo-metrics"),
    ),
]
BY_NAME = {setting.name: setting for setting in SETTINGS}
