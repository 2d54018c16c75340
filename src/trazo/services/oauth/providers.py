"""The OAuth providers we speak to (Google, GitHub) and how one is described: a Provider is built from
client credentials (settings or an oauth vendor's) and the settings' default endpoints. Which
providers are in force is core's choice (core/oauth.py)."""
from dataclasses import dataclass

from flask import current_app

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


def build_provider(name, settings, redirect_uri=None):
    """A Provider from client settings (client_id, client_secret and optional endpoints);
    `redirect_uri` defaults to the settings' own (an oauth vendor's)."""
    config = current_app.config
    if redirect_uri is None:
        redirect_uri = settings["redirect_uri"]
    if name == GOOGLE:
        return Provider(GOOGLE, settings["client_id"], settings["client_secret"], redirect_uri,
                        settings.get("allowed_scopes") or GOOGLE_SCOPE,
                        metadata_url=settings.get("metadata_url") or config["GOOGLE_METADATA_URL"])
    return Provider(GITHUB, settings["client_id"], settings["client_secret"], redirect_uri, GITHUB_SCOPE,
                    oauth_base=(settings.get("oauth_base") or config["GITHUB_OAUTH_BASE"]).rstrip("/"),
                    api_base=(settings.get("api_base") or config["GITHUB_API_BASE"]).rstrip("/"))
