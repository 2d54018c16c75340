"""Multi-factor authentication routes."""
from flask_smorest import Blueprint

blp = Blueprint("mfa", __name__, description="Multi-factor authentication")
