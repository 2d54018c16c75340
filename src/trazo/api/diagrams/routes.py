"""Diagrams and rendering routes."""
from flask_smorest import Blueprint

blp = Blueprint("diagrams", __name__, description="Diagrams and rendering")
