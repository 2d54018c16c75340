"""Audit log (administrators) routes."""
from flask_smorest import Blueprint

blp = Blueprint("audit", __name__, description="Audit log (administrators)")
