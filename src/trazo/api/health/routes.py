"""Service description, liveness and readiness (outside the API prefix)."""
import marshmallow as ma
from flask import current_app
from flask_smorest import Blueprint

from ...extensions import limiter
from ..common import BaseSchema
from . import service

blp = Blueprint("health", __name__, description="Service status")
limiter.exempt(blp)
PUBLIC = {"security": []}
HEALTH_BODY = b'{"status":"ok"}\n'


class ServiceInfoSchema(BaseSchema):
    name = ma.fields.String()
    message = ma.fields.String()
    version = ma.fields.String()
    environment = ma.fields.String()
    status = ma.fields.String()


class HealthSchema(BaseSchema):
    status = ma.fields.String()
    checks = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.String())


@blp.route("/")
@blp.doc(**PUBLIC)
@blp.response(200, ServiceInfoSchema)
def root():
    """Describe the service"""
    config = current_app.config
    return {"name": config["SERVICE_NAME"], "message": f"Welcome to {config['SERVICE_NAME']}",
            "version": config["SERVICE_VERSION"], "environment": config["APP_ENV"], "status": "running"}


@blp.route("/health")
@blp.doc(**PUBLIC)
@blp.response(200, HealthSchema)
def health():
    """Answer while the process is alive"""
    # Polled by load balancers: a ready-made body, no serialization work.
    return current_app.response_class(HEALTH_BODY, mimetype="application/json")


@blp.route("/health/ready")
@blp.doc(**PUBLIC)
@blp.response(200, HealthSchema)
@blp.alt_response(503, schema=HealthSchema, description="A dependency is down")
def ready():
    """Check the database (and Redis when configured)"""
    checks = service.readiness()
    ok = all(value == "ok" for value in checks.values())
    return {"status": "ok" if ok else "unavailable", "checks": checks}, 200 if ok else 503
