"""Prompt history routes."""
from flask_smorest import Blueprint

blp = Blueprint("prompt_history", __name__, description="Prompt history")
