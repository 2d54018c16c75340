"""Shared links: management by the owner and public access by token."""
from flask_smorest import Blueprint

blp = Blueprint("shared_links", __name__, description="Shared links (owner)")
public_blp = Blueprint("shared", __name__, description="Shared links (public access)")
