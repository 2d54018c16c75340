"""Service description, liveness and readiness (outside the API prefix)."""
from flask import current_app

from ...extensions import limiter
from ..blueprint import PUBLIC, Blueprint
from . import service
from .schemas import HealthSchema, ServiceInfoSchema

blp = Blueprint("health", __name__, description="Service status", rate_limited=False)
limiter.exempt(blp)
HEALTH_BODY = b'{"status":"ok"}\n'


@blp.route("/", auth=PUBLIC)
@blp.response(200, ServiceInfoSchema)
def root():
    """Describe the service"""
    return service.service_info()


@blp.route("/health", auth=PUBLIC)
@blp.response(200, HealthSchema)
def health():
    """Answer while the process is alive"""
    # Polled by load balancers: a ready-made body, no serialization work.
    return current_app.response_class(HEALTH_BODY, mimetype="application/json")


@blp.route("/health/ready", auth=PUBLIC)
@blp.response(200, HealthSchema)
@blp.alt_response(503, schema=HealthSchema, description="A dependency is down")
def ready():
    """Check the database (and Redis when configured)"""
    return service.readiness()
