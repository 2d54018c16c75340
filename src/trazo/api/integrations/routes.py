"""Administrator integrations routes."""
from flask_smorest import Blueprint

blp = Blueprint("integrations", __name__, description="Administrator integrations")
