"""Readiness checks of the service's dependencies."""
import logging

from flask import current_app
from sqlalchemy import text

from ...extensions import db, limiter

log = logging.getLogger(__name__)


def readiness():
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
