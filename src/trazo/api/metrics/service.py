"""Who may read the metrics: the bearer METRICS_TOKEN (compared in constant time), or a client address
in METRICS_ALLOWED_NETWORKS (the address the rate limits use, after ProxyFix)."""
import hmac
import ipaddress

from flask import current_app, request
from werkzeug.exceptions import NotFound

from ...metrics import exposition
from ...ratelimit import client_address

READ_METHODS = ("GET", "HEAD")


def scrape():
    """(body, content type) of the exposition; the 404 of an unknown path to anyone not allowed."""
    if request.method not in READ_METHODS or not may_scrape():
        raise NotFound()
    return exposition()


def may_scrape():
    config = current_app.config
    return (_token_matches(config["METRICS_TOKEN"])
            or _address_allowed(config["METRICS_ALLOWED_NETWORKS"]))


def _token_matches(token):
    scheme, _, presented = request.headers.get("Authorization", "").partition(" ")
    if not token or scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(presented.strip().encode(), token.encode())


def _address_allowed(networks):
    if not networks:
        return False
    try:
        address = ipaddress.ip_address(client_address())
    except ValueError:  # "unknown" (no REMOTE_ADDR), a unix socket path
        return False
    if address.version == 6 and address.ipv4_mapped:
        address = address.ipv4_mapped
    return any(address in network for network in networks)
