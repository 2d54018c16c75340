"""Connection tests that exercise a vendor's credentials without side effects, each under the
total deadline of its integration (EMAIL_TIMEOUT, STRIPE_TIMEOUT, OAUTH_TIMEOUT)."""
import requests
from flask import current_app

from ...core.accounts.oauth_providers import vendor_provider
from ...services import outbound
from ...services.email.backends import EmailDeliveryError
from ...services.email.resend import ResendBackend
from ...services.email.smtp_check import check_smtp
from ...services.oauth import clients

TIMEOUT = (5, 10)
MAX_ANSWER_BYTES = 1 << 20
PROBE_CODE = "trazo-connection-test"
_stripe_http = outbound.session()


class CheckFailed(Exception):
    """The vendor refused or could not be reached; the text says why (never a secret)."""


def _resend(config):
    ResendBackend(config["from_email"], config["api_key"], config.get("api_base"),
                  current_app.config["EMAIL_TIMEOUT"]).check()


def _smtp(config):
    check_smtp(config["host"], config.get("port", 25), config.get("username", ""), config.get("password", ""),
               config.get("starttls", False), current_app.config["SMTP_TIMEOUT"], current_app.config["EMAIL_TIMEOUT"])


def _stripe(config):
    base = (config.get("api_base") or current_app.config["STRIPE_API_BASE"]).rstrip("/")
    try:
        response = outbound.request(_stripe_http, "GET", f"{base}/v1/balance", integration="payments", timeout=TIMEOUT,
                                    seconds=current_app.config["STRIPE_TIMEOUT"], max_bytes=MAX_ANSWER_BYTES,
                                    headers={"Authorization": f"Bearer {config['secret_key']}"})
    except requests.RequestException as exc:
        raise CheckFailed(f"Stripe at {base} is unreachable ({exc.__class__.__name__})") from exc
    if response.status_code != 200:
        raise CheckFailed(f"Stripe answered HTTP {response.status_code} to GET /v1/balance")


def _google(config):
    """Discovery, then the token endpoint with a made-up code: valid client credentials get
    `invalid_grant` (the code is wrong), invalid ones get `invalid_client`."""
    provider = vendor_provider("google", config)
    token_url = clients.discovery(provider.metadata_url, provider.timeout)["token_endpoint"]
    response = clients.call("POST", token_url, provider.timeout, headers={"Accept": "application/json"}, data={
        "grant_type": "authorization_code", "code": PROBE_CODE, "redirect_uri": provider.redirect_uri,
        "client_id": provider.client_id, "client_secret": provider.client_secret})
    body = clients.json_of(response)
    error = body.get("error") if isinstance(body, dict) else None
    if error != "invalid_grant":
        raise CheckFailed(f"Google token endpoint answered HTTP {response.status_code} ({error or 'no error code'})")


def _github(config):
    """GitHub's "check a token" API authenticates the app itself (Basic client id + secret): an
    unknown token answers 404 when the credentials are right, 401 when they are wrong."""
    provider = vendor_provider("github", config)
    response = clients.call("POST", f"{provider.api_base}/applications/{provider.client_id}/token", provider.timeout,
                            auth=(provider.client_id, provider.client_secret),
                            headers={"Accept": "application/vnd.github+json"}, json={"access_token": PROBE_CODE})
    if response.status_code not in (200, 404, 422):
        raise CheckFailed(f"GitHub answered HTTP {response.status_code} to the app credentials check")


CHECKS = {"resend": _resend, "smtp": _smtp, "stripe": _stripe, "google": _google, "github": _github}


def run_check(vendor_type, config):
    """Raise CheckFailed unless the vendor accepts the configuration."""
    try:
        CHECKS[vendor_type](config)
    except EmailDeliveryError as exc:
        raise CheckFailed(str(exc)) from exc
    except (clients.ProviderUnavailable, clients.ProviderRefused, KeyError) as exc:
        raise CheckFailed(str(exc) or exc.__class__.__name__) from exc
