"""Projects, export and import routes."""
from flask_smorest import Blueprint

blp = Blueprint("projects", __name__, description="Projects, export and import")
