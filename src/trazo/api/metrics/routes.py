"""GET /metrics, outside the API prefix and the OpenAPI document: the Prometheus exposition for the
scraper (docs/operations.md, "Metrics"). Anyone else gets the 404 of an unknown path, whatever the
method, so the answer does not tell that the route exists."""
from flask import Blueprint, current_app

from ...extensions import limiter
from . import service

# Every method lands here (no automatic OPTIONS or 405 with an Allow header): all but an authorized
# GET/HEAD answer exactly as a path that does not exist.
ANY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

blp = Blueprint("metrics", __name__)
# An unknown path is not rate-limited either; the scraper polls at its own fixed pace.
limiter.exempt(blp)


@blp.route("/metrics", methods=ANY_METHOD, provide_automatic_options=False)
def scrape():
    body, content_type = service.scrape()
    return current_app.response_class(body, content_type=content_type)
