"""The service's description and the readiness checks of its dependencies."""
import logging

from flask import current_app
from sqlalchemy import text

from ...extensions import db, limiter

log = logging.getLogger(__name__)


def service_info():
    """Name, greeting, version and environment, from the configuration."""
    config = current_app.config
    return {"name": config["SERVICE_NAME"], "message": f"Welcome to {config['SERVICE_NAME']}",
            "version": config["SERVICE_VERSION"], "environment": config["APP_ENV"], "status": "running"}


def readiness():
    """The report and its status: 200 when every dependency answers, 503 otherwise."""
    checks = _checks()
    ok = all(value == "ok" for value in checks.values())
    return {"status": "ok" if ok else "unavailable", "checks": checks}, 200 if ok else 503


def _checks():
    checks = {"database": "ok"}
    try:
        db.session.execute(text("SELECT 1"))
    except Exception:
        log.exception("database readiness check failed")
        checks["database"] = "unavailable"
    finally:
        db.session.rollback()
    if current_app.config.get("REDIS_URL"):
        checks["redis"] = "ok" if limiter.storage.check() else "unavailable"
    return checks
