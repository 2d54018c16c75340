"""`GET /health` answered below Flask (docs/operations.md)."""
from ..api.health.routes import HEALTH_BODY
from .headers import security_headers


def answer_health_probes(wsgi_app, config):
    """Answer `GET /health` below Flask: load balancers poll it often and it has nothing to compute.

    The answer is the one the route gives (body and security headers). A request carrying an
    Origin header comes from a browser and goes through Flask, which adds its CORS headers.
    """
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(HEALTH_BODY))),
               *security_headers(config)]

    def probe_or_app(environ, start_response):
        if (environ.get("PATH_INFO") == "/health" and environ.get("REQUEST_METHOD") in ("GET", "HEAD")
                and "HTTP_ORIGIN" not in environ):
            start_response("200 OK", list(headers))
            return [b""] if environ["REQUEST_METHOD"] == "HEAD" else [HEALTH_BODY]
        return wsgi_app(environ, start_response)

    return probe_or_app
