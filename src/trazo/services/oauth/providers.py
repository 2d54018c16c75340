"""Which OAuth providers are configured, and how: an active admin oauth vendor wins over settings."""
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from flask import current_app
from flask_babel import gettext as _

from ...core.vendors import active_oauth_configs
from ...errors import NotFound

GOOGLE, GITHUB = "google", "github"
SUPPORTED = (GOOGLE, GITHUB)
DISPLAY_NAMES = {GOOGLE: "Google", GITHUB: "GitHub"}
GOOGLE_SCOPE = "openid email profile"
GITHUB_SCOPE = "read:user user:email"


@dataclass(frozen=True)
class Provider:
    name: str
    client_id: str
    client_secret: str
    redirect_uri: str
    scope: str
    metadata_url: str = ""  # OpenID Connect providers
    oauth_base: str = ""  # GitHub: authorize and token endpoints
    api_base: str = ""  # GitHub: /user and /user/emails


def _with_provider_parameter(uri, name):
    """The browser client reads the provider from its callback URL and assumes Google without it."""
    parts = urlsplit(uri)
    query = dict(parse_qsl(parts.query))
    query.setdefault("provider", name)
    return urlunsplit(parts._replace(query=urlencode(query)))


def _build(name, settings, redirect_uri):
    config = current_app.config
    if name == GOOGLE:
        return Provider(GOOGLE, settings["client_id"], settings["client_secret"], redirect_uri,
                        settings.get("allowed_scopes") or GOOGLE_SCOPE,
                        metadata_url=settings.get("metadata_url") or config["GOOGLE_METADATA_URL"])
    return Provider(GITHUB, settings["client_id"], settings["client_secret"], redirect_uri, GITHUB_SCOPE,
                    oauth_base=(settings.get("oauth_base") or config["GITHUB_OAUTH_BASE"]).rstrip("/"),
                    api_base=(settings.get("api_base") or config["GITHUB_API_BASE"]).rstrip("/"))


def configured_providers():
    """{name: Provider} of every provider that can be used now."""
    config = current_app.config
    providers = {}
    for name in SUPPORTED:
        client_id, secret = config[f"{name.upper()}_CLIENT_ID"], config[f"{name.upper()}_CLIENT_SECRET"]
        if client_id and secret:
            redirect_uri = config["OAUTH_REDIRECT_URI"]
            if name != GOOGLE:
                redirect_uri = _with_provider_parameter(redirect_uri, name)
            providers[name] = _build(name, {"client_id": client_id, "client_secret": secret}, redirect_uri)
    for name, settings in active_oauth_configs().items():
        if name in SUPPORTED:
            providers[name] = _build(name, settings, settings["redirect_uri"])
    return providers


def provider(name):
    found = configured_providers().get(name)
    if found is None:
        raise NotFound(_("OAuth provider not configured or inactive"))
    return found


def build_provider(name, settings):
    """A Provider from an oauth vendor's settings (the admin connection test)."""
    return _build(name, settings, settings["redirect_uri"])
