"""HTTP plumbing around the views, one job per module (docs/operations.md):

- docs.py: the flask-smorest Api, its settings and security schemes, the interactive docs' assets;
- application.py: the Flask class (one retry on a dead pooled connection) and no cookie sessions;
- database.py: the answer when the database is away, SQLite pragmas;
- hooks.py: body limits and JSON checks before every view, security headers after it;
- headers.py: the security headers and the CORS options;
- health.py and image_revalidations.py: the answers given below Flask (health probes, 304s of image links).

create_app() (trazo/__init__.py) reads these names from here; modules import each other by module name.
"""
from .application import Application, NoCookieSessions
from .database import answer_database_unavailable, set_sqlite_pragmas
from .docs import DOCS_ASSETS, api, docs_config, register_docs_assets, spec_kwargs
from .headers import PRODUCTION_HEADERS, SECURITY_HEADERS, cors_options, security_headers
from .health import answer_health_probes
from .hooks import IMPORT_PATH, body_limit, register_request_hooks
from .image_revalidations import answer_image_revalidations

__all__ = [
    "DOCS_ASSETS", "IMPORT_PATH", "PRODUCTION_HEADERS", "SECURITY_HEADERS", "Application", "NoCookieSessions",
    "answer_database_unavailable", "answer_health_probes", "answer_image_revalidations", "api", "body_limit",
    "cors_options", "docs_config", "register_docs_assets", "register_request_hooks", "security_headers",
    "set_sqlite_pragmas", "spec_kwargs",
]
