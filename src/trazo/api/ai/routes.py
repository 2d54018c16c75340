"""AI providers and generation routes."""
from flask_smorest import Blueprint

blp = Blueprint("ai", __name__, description="AI providers and generation")
