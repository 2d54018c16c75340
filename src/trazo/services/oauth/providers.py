"""The OAuth providers we speak to (Google, GitHub) and how one is described: a Provider is built from
client credentials (settings or an oauth vendor's) and the operator's Defaults (endpoints and the
deadline of each call). Which providers are in force, and those defaults, are core's choice
(core/accounts/oauth_providers.py)."""
from dataclasses import dataclass

GOOGLE, GITHUB = "google", "github"
SUPPORTED = (GOOGLE, GITHUB)
DISPLAY_NAMES = {GOOGLE: "Google", GITHUB: "GitHub"}
GOOGLE_SCOPE = "openid email profile"
GITHUB_SCOPE = "read:user user:email"


@dataclass(frozen=True)
class Defaults:
    """The settings a provider falls back on: GOOGLE_METADATA_URL, GITHUB_OAUTH_BASE, GITHUB_API_BASE and the
    total deadline of every call to it (OAUTH_TIMEOUT)."""

    google_metadata_url: str
    github_oauth_base: str
    github_api_base: str
    timeout: float


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
    timeout: float = 10  # seconds, the total deadline of one call (Defaults.timeout)


def build_provider(name, settings, defaults, redirect_uri=None):
    """A Provider from client settings (client_id, client_secret and optional endpoints) and the operator's
    `defaults`; `redirect_uri` defaults to the settings' own (an oauth vendor's)."""
    if redirect_uri is None:
        redirect_uri = settings["redirect_uri"]
    if name == GOOGLE:
        return Provider(GOOGLE, settings["client_id"], settings["client_secret"], redirect_uri,
                        settings.get("allowed_scopes") or GOOGLE_SCOPE,
                        metadata_url=settings.get("metadata_url") or defaults.google_metadata_url,
                        timeout=defaults.timeout)
    return Provider(GITHUB, settings["client_id"], settings["client_secret"], redirect_uri, GITHUB_SCOPE,
                    oauth_base=(settings.get("oauth_base") or defaults.github_oauth_base).rstrip("/"),
                    api_base=(settings.get("api_base") or defaults.github_api_base).rstrip("/"),
                    timeout=defaults.timeout)
