"""Trazo: the backend of a diagrams-as-code service."""
import logging
import os
from pathlib import Path

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from . import web
from .cli import register_commands
from .config import load_config
from .errors import register_error_handlers
from .extensions import babel, cors, db, jwt, migrate, oauth
from .i18n import select_locale
from .ratelimit import DEFAULT_LIMITS, init_limiter
from .web import api as rest_api

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


def register_blueprints(prefix):
    """One line per API area (every area under the API prefix except health)."""
    from .api.ai.routes import blp as ai_blp
    from .api.ai.routes import diagram_blp as diagram_ai_blp
    from .api.audit.routes import blp as audit_blp
    from .api.billing.routes import admin_plans_blp, plans_blp, subscriptions_blp, webhooks_blp
    from .api.chat.routes import blp as chat_blp
    from .api.diagrams.routes import blp as diagrams_blp
    from .api.diagrams.routes import project_diagrams_blp
    from .api.folders.routes import blp as folders_blp
    from .api.folders.routes import project_folders_blp
    from .api.health.routes import blp as health_blp
    from .api.integrations.routes import blp as integrations_blp
    from .api.mfa.routes import blp as mfa_blp
    from .api.oauth.routes import blp as oauth_blp
    from .api.projects.routes import blp as projects_blp
    from .api.prompt_history.routes import blp as prompts_blp
    from .api.render.routes import blp as render_blp
    from .api.shares.routes import blp as shared_links_blp
    from .api.shares.routes import public_blp as shared_public_blp
    from .api.users.routes import blp as users_blp

    rest_api.register_blueprint(health_blp)
    rest_api.register_blueprint(users_blp, url_prefix=f"{prefix}/users")
    rest_api.register_blueprint(mfa_blp, url_prefix=f"{prefix}/mfa")
    rest_api.register_blueprint(oauth_blp, url_prefix=f"{prefix}/oauth")
    rest_api.register_blueprint(projects_blp, url_prefix=f"{prefix}/projects")
    rest_api.register_blueprint(project_folders_blp, url_prefix=f"{prefix}/projects")
    rest_api.register_blueprint(project_diagrams_blp, url_prefix=f"{prefix}/projects")
    rest_api.register_blueprint(folders_blp, url_prefix=f"{prefix}/folders")
    rest_api.register_blueprint(diagrams_blp, url_prefix=f"{prefix}/diagrams")
    rest_api.register_blueprint(diagram_ai_blp, url_prefix=f"{prefix}/diagrams")
    rest_api.register_blueprint(render_blp, url_prefix=f"{prefix}/diagrams")
    rest_api.register_blueprint(shared_links_blp, url_prefix=f"{prefix}/shared-links")
    rest_api.register_blueprint(shared_public_blp, url_prefix=f"{prefix}/shared")
    rest_api.register_blueprint(prompts_blp, url_prefix=f"{prefix}/prompt-history")
    rest_api.register_blueprint(ai_blp, url_prefix=f"{prefix}/ai")
    rest_api.register_blueprint(chat_blp, url_prefix=f"{prefix}/chat-sessions")
    rest_api.register_blueprint(plans_blp, url_prefix=f"{prefix}/plans")
    rest_api.register_blueprint(subscriptions_blp, url_prefix=f"{prefix}/subscriptions")
    rest_api.register_blueprint(admin_plans_blp, url_prefix=f"{prefix}/admin/plans")
    rest_api.register_blueprint(webhooks_blp, url_prefix=f"{prefix}/webhooks")
    rest_api.register_blueprint(integrations_blp, url_prefix=f"{prefix}/admin/integrations")
    rest_api.register_blueprint(audit_blp, url_prefix=f"{prefix}/admin/audit-log")


def create_app(overrides=None, env=None):
    """Build the application: config -> extensions -> auth -> errors -> blueprints -> CLI."""
    env = os.environ if env is None else env
    instance_path = os.path.abspath(env.get("INSTANCE_PATH") or "instance")
    app = Flask(__name__, instance_path=instance_path, instance_relative_config=False)
    app.config.update(DEFAULT_LIMITS)
    app.config.update(load_config(env, instance_path))
    app.config.update(web.docs_config(app.config))
    app.config.update(overrides or {})
    app.json.sort_keys = False
    app.session_interface = web.NoCookieSessions()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    db.init_app(app)
    migrate.init_app(app, db, directory=str(MIGRATIONS))
    rest_api.init_app(app, spec_kwargs=web.spec_kwargs())
    jwt.init_app(app)
    init_limiter(app)
    babel.init_app(app, locale_selector=select_locale)
    cors.init_app(app, **web.cors_options(app.config))
    oauth.init_app(app)

    register_error_handlers(app)
    web.register_request_hooks(app)
    web.register_docs_assets(app)

    register_blueprints(app.config["API_V1_PREFIX"])

    register_commands(app)
    app.wsgi_app = web.answer_health_probes(app.wsgi_app, app.config)
    if app.config["TRUSTED_PROXY_COUNT"] > 0:
        hops = app.config["TRUSTED_PROXY_COUNT"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)
    return app
