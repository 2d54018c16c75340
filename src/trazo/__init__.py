"""Trazo: the backend of a diagrams-as-code service."""
import logging
import os
from pathlib import Path

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from . import web
from .auth import register_jwt_callbacks
from .cli import register_commands
from .config import load_config
from .errors import register_error_handlers
from .extensions import api as rest_api
from .extensions import babel, cors, db, jwt, limiter, migrate, oauth
from .i18n import select_locale
from .ratelimit import DEFAULT_LIMITS

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"


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
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    db.init_app(app)
    migrate.init_app(app, db, directory=str(MIGRATIONS))
    rest_api.init_app(app, spec_kwargs=web.spec_kwargs())
    jwt.init_app(app)
    limiter.init_app(app)
    babel.init_app(app, locale_selector=select_locale)
    cors.init_app(app, **web.cors_options(app.config))
    oauth.init_app(app)

    register_jwt_callbacks(jwt)
    register_error_handlers(app)
    web.register_request_hooks(app)
    web.register_docs_assets(app)

    from .api.health.routes import blp as health_blp
    from .api.users.routes import blp as users_blp

    prefix = app.config["API_V1_PREFIX"]
    rest_api.register_blueprint(health_blp)
    rest_api.register_blueprint(users_blp, url_prefix=f"{prefix}/users")

    register_commands(app)
    if app.config["TRUSTED_PROXY_COUNT"] > 0:
        hops = app.config["TRUSTED_PROXY_COUNT"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)
    return app
