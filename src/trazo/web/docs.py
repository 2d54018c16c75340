"""The flask-smorest Api, its settings and security schemes, and the interactive docs' files (docs/api.md)."""
import importlib.util
import os

from flask import Blueprint, send_from_directory
from werkzeug.exceptions import NotFound

from ..errors import Api

# The flask-smorest extension: create_app() binds it and registers every area's blueprint on it.
api = Api()
DOCS_ASSETS = "/docs-assets"


def docs_config(config):
    """flask-smorest settings: the three documentation routes exist only outside production."""
    if not config["DOCS_ENABLED"]:
        return {"OPENAPI_URL_PREFIX": None}
    return {
        "OPENAPI_URL_PREFIX": "/",
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "docs",
        "OPENAPI_SWAGGER_UI_URL": f"{DOCS_ASSETS}/swagger/",
        "OPENAPI_REDOC_PATH": "redoc",
        "OPENAPI_REDOC_URL": f"{DOCS_ASSETS}/redoc/redoc.standalone.js",
    }


def spec_kwargs():
    return {
        "components": {"securitySchemes": {
            "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
            "personalAccessToken": {
                "type": "http", "scheme": "bearer", "bearerFormat": "trz_ personal access token",
                "description": "A personal access token (POST /users/me/tokens), sent as `Authorization: Bearer "
                               "trz_...`. Only operations listing this scheme take it; `x-token-scope` says "
                               "which scope they need (`read`, or `write`, which includes read). Every "
                               "other operation answers 403 to it (docs/automation.md)."},
            "feedTicket": {
                "type": "apiKey", "in": "query", "name": "ticket",
                "description": "A one-use change feed ticket (POST /events/tickets), for EventSource, which "
                               "cannot send headers (docs/events.md)."}}},
        "security": [{"bearerAuth": []}],
    }


def _asset_folders():
    import swagger_ui_bundle

    folders = {"swagger": swagger_ui_bundle.swagger_ui_path}
    # The sidecar package only ships files (importing it would need Django): locate, don't import.
    sidecar = importlib.util.find_spec("drf_spectacular_sidecar")
    if sidecar and sidecar.submodule_search_locations:
        folders["redoc"] = os.path.join(sidecar.submodule_search_locations[0], "static",
                                        "drf_spectacular_sidecar", "redoc", "bundles")
    return folders


def register_docs_assets(app):
    """Swagger UI and ReDoc files from installed packages: no CDN, works offline."""
    if not app.config["DOCS_ENABLED"]:
        return
    folders = _asset_folders()
    assets = Blueprint("docs_assets", __name__, url_prefix=DOCS_ASSETS)

    @assets.route("/<kind>/<path:filename>")
    def asset(kind, filename):
        if kind not in folders:
            raise NotFound()
        return send_from_directory(folders[kind], filename)

    app.register_blueprint(assets)
