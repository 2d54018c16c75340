"""Public diagram rendering routes."""
from flask_smorest import Blueprint

blp = Blueprint("render", __name__, description="Diagram rendering (public)")
