"""Trazo: the backend of a diagrams-as-code service."""
import os
from pathlib import Path

from werkzeug.middleware.proxy_fix import ProxyFix

from . import error_reports, logs, metrics, settings, transactions, web
from .api.ai import routes as ai_routes
from .api.audit import routes as audit_routes
from .api.billing import routes as billing_routes
from .api.chat import routes as chat_routes
from .api.comments import routes as comments_routes
from .api.diagrams import routes as diagrams_routes
from .api.events import routes as events_routes
from .api.files import routes as files_routes
from .api.folders import routes as folders_routes
from .api.health import routes as health_routes
from .api.integrations import routes as integrations_routes
from .api.invitations import routes as invitations_routes
from .api.mcp import routes as mcp_routes
from .api.metrics import routes as metrics_routes
from .api.mfa import routes as mfa_routes
from .api.oauth import routes as oauth_routes
from .api.oauth2 import connected as connected_apps_routes
from .api.oauth2 import routes as oauth2_routes
from .api.oauth2 import server as oauth2_server
from .api.projects import routes as projects_routes
from .api.prompt_history import routes as prompt_history_routes
from .api.render import routes as render_routes
from .api.revisions import routes as revisions_routes
from .api.search import routes as search_routes
from .api.shares import routes as shares_routes
from .api.tokens import routes as tokens_routes
from .api.users import routes as users_routes
from .api.workspaces import routes as workspaces_routes
from .cli import register_commands
from .config import load_config
from .core import events
from .core.content import revalidations
from .core.mail import delivery
from .errors import register_error_handlers
from .extensions import babel, cors, db, jwt, migrate
from .i18n import select_locale
from .ratelimit import init_limiter
from .web import api as rest_api

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


# Every blueprint and its URL prefix under API_PREFIX (None: the blueprint's own place, outside the prefix).
BLUEPRINTS = (
    (health_routes.blp, None),
    (users_routes.blp, "/users"),
    (tokens_routes.blp, "/users/me/tokens"),
    (connected_apps_routes.blp, "/users/me/connected-apps"),
    (mfa_routes.blp, "/mfa"),
    (oauth_routes.blp, "/oauth"),
    (projects_routes.blp, "/projects"),
    (folders_routes.project_folders_blp, "/projects"),
    (diagrams_routes.project_diagrams_blp, "/projects"),
    (files_routes.blp, "/projects"),
    (folders_routes.blp, "/folders"),
    (diagrams_routes.blp, "/diagrams"),
    (revisions_routes.blp, "/diagrams"),
    (ai_routes.diagram_blp, "/diagrams"),
    (render_routes.blp, "/diagrams"),
    (shares_routes.blp, "/shared-links"),
    (shares_routes.public_blp, "/shared"),
    (prompt_history_routes.blp, "/prompt-history"),
    (ai_routes.blp, "/ai"),
    (chat_routes.blp, "/chat-sessions"),
    (billing_routes.plans_blp, "/plans"),
    (billing_routes.subscriptions_blp, "/subscriptions"),
    (billing_routes.admin_plans_blp, "/admin/plans"),
    (billing_routes.webhooks_blp, "/webhooks"),
    (integrations_routes.blp, "/admin/integrations"),
    (audit_routes.blp, "/admin/audit-log"),
    (invitations_routes.workspace_blp, "/workspaces"),
    (invitations_routes.invitations_blp, "/invitations"),
    (invitations_routes.links_blp, "/invite-links"),
    (workspaces_routes.blp, "/workspaces"),
    (comments_routes.diagram_comments_blp, "/diagrams"),
    (comments_routes.blp, "/comments"),
    (events_routes.diagram_blp, "/diagrams"),
    (events_routes.workspace_blp, "/workspaces"),
    (events_routes.blp, "/events"),
    (search_routes.blp, "/search"),
)


def register_blueprints(prefix):
    for blueprint, path in BLUEPRINTS:
        rest_api.register_blueprint(blueprint, **({} if path is None else {"url_prefix": prefix + path}))


def create_app(overrides=None, env=None):
    """Build the application: config -> extensions -> auth -> errors -> blueprints -> CLI."""
    env = os.environ if env is None else env
    instance_path = os.path.abspath(settings.value(env, "INSTANCE_PATH"))
    app = web.Application(__name__, instance_path=instance_path, instance_relative_config=False)
    app.config.update(load_config(env, instance_path))
    app.config.update(web.docs_config(app.config))
    app.config.update(overrides or {})
    app.json.sort_keys = False
    app.session_interface = web.NoCookieSessions()
    logs.configure_logging(app.config["LOG_FORMAT"])
    error_reports.init_sentry(app.config["SENTRY_DSN"], app.config["SENTRY_ENVIRONMENT"],
                              app.config["SENTRY_TRACES_SAMPLE_RATE"], app.config["SERVICE_VERSION"])

    db.init_app(app)
    with app.app_context():
        transactions.watch(db.engine)  # reads in autocommit; statements counted for the retry
    migrate.init_app(app, db, directory=str(MIGRATIONS))
    rest_api.init_app(app, spec_kwargs=web.spec_kwargs())
    jwt.init_app(app)
    init_limiter(app)
    babel.init_app(app, locale_selector=select_locale)
    cors.init_app(app, **web.cors_options(app.config))

    register_error_handlers(app)
    web.register_request_hooks(app)
    delivery.init_app(app)  # outbox delivery after each commit (docs/operations.md)
    events.init_app(app)  # the change feed: events published after their commit (docs/events.md)
    revalidations.init_app(app)  # ended image links forgotten after each commit (docs/image-links.md)
    web.register_docs_assets(app)
    metrics.instrument(app)
    app.register_blueprint(metrics_routes.blp)  # outside the OpenAPI document
    app.register_blueprint(mcp_routes.blp)  # outside the OpenAPI document: JSON-RPC, not REST (docs/mcp.md)
    oauth2_server.init_app(app)
    app.register_blueprint(oauth2_routes.blp)  # outside the OpenAPI document: OAuth's own (docs/oauth-server.md)

    register_blueprints(app.config["API_V1_PREFIX"])

    register_commands(app)
    app.wsgi_app = web.answer_image_revalidations(app.wsgi_app, app)
    app.wsgi_app = web.answer_health_probes(app.wsgi_app, app.config)
    if app.config["TRUSTED_PROXY_COUNT"] > 0:
        hops = app.config["TRUSTED_PROXY_COUNT"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)
    # outermost: every answer carries X-Request-ID (the proxy's only behind a trusted proxy)
    app.wsgi_app = logs.RequestIds(app.wsgi_app, trust_incoming=app.config["TRUSTED_PROXY_COUNT"] > 0)
    return app
