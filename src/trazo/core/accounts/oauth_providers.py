"""The OAuth providers in force: those configured in the settings, overridden by the active oauth
vendors of the integrations area. The HTTP conversations with them are in services/oauth."""
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from flask import current_app
from flask_babel import gettext as _

from ...errors import NotFound
from ...services.oauth.providers import GOOGLE, SUPPORTED, Defaults, build_provider
from ..vendors import active_oauth_configs


def _with_provider_parameter(uri, name):
    """The browser client reads the provider from its callback URL and assumes Google without it."""
    parts = urlsplit(uri)
    query = dict(parse_qsl(parts.query))
    query.setdefault("provider", name)
    return urlunsplit(parts._replace(query=urlencode(query)))


def defaults():
    """The settings every provider falls back on (services/oauth/providers.py Defaults)."""
    config = current_app.config
    return Defaults(google_metadata_url=config["GOOGLE_METADATA_URL"], github_oauth_base=config["GITHUB_OAUTH_BASE"],
                    github_api_base=config["GITHUB_API_BASE"], timeout=config["OAUTH_TIMEOUT"])


def vendor_provider(name, settings):
    """The Provider an oauth vendor's settings describe (with their own redirect_uri)."""
    return build_provider(name, settings, defaults())


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
            providers[name] = build_provider(name, {"client_id": client_id, "client_secret": secret}, defaults(),
                                             redirect_uri)
    for name, settings in active_oauth_configs().items():
        if name in SUPPORTED:
            providers[name] = vendor_provider(name, settings)
    return providers


def provider(name):
    found = configured_providers().get(name)
    if found is None:
        raise NotFound(_("OAuth provider not configured or inactive"))
    return found
