"""The headers every answer carries, and the CORS options (docs/security.md)."""

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "X-XSS-Protection": "1; mode=block",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
PRODUCTION_HEADERS = {
    "Strict-Transport-Security": "max-age=63072000; includeSubDomains; preload",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
}


def security_headers(config):
    """The headers every response carries (HSTS and CSP only in production)."""
    headers = list(SECURITY_HEADERS.items())
    if config["ENV_PRODUCTION"]:
        headers += list(PRODUCTION_HEADERS.items())
    return headers


def cors_options(config):
    return {
        "origins": config["CORS_ORIGINS"],
        "supports_credentials": True,
        "methods": ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        "allow_headers": ["Authorization", "Content-Type", "Accept", "Accept-Language", "X-Share-Access",
                          "sentry-trace", "baggage", "X-Request-ID",
                          # the MCP endpoint's (docs/mcp.md): a browser client of an allowed origin sends them
                          "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Mcp-Session-Id"],
        "expose_headers": ["Content-Disposition", "Retry-After", "X-Request-ID", "X-Render-Warnings",
                           "WWW-Authenticate"],
        "max_age": 600,
    }
