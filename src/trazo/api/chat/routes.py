"""AI chat sessions routes."""
from flask_smorest import Blueprint

blp = Blueprint("chat_sessions", __name__, description="AI chat sessions")
