"""Folders routes."""
from flask_smorest import Blueprint

blp = Blueprint("folders", __name__, description="Folders")
