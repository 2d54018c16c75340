"""AI repair and conversion of diagrams routes."""
from flask_smorest import Blueprint

blp = Blueprint("diagram_ai", __name__, description="AI repair and conversion of diagrams")
