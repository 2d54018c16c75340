"""OAuth sign-in routes."""
from flask_smorest import Blueprint

blp = Blueprint("oauth", __name__, description="OAuth sign-in")
