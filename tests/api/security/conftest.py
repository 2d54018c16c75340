"""Fixtures of the security area: fake providers on 127.0.0.1 and settings pointed at them."""
import pytest

from .fakes import GitHubProvider, OidcProvider, ResendApi, StripeApi


@pytest.fixture
def settings(configure):
    """Change app settings for one test; they are restored afterwards."""
    return configure


@pytest.fixture(scope="session")
def google_server():
    server = OidcProvider().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def github_server():
    server = GitHubProvider().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def resend_server():
    server = ResendApi().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def stripe_server():
    server = StripeApi().start()
    yield server
    server.stop()


@pytest.fixture
def google(google_server, settings):
    """Google sign-in configured by settings, against the local OpenID provider."""
    google_server.reset(sub="google-sub-1", email="ada@example.com", email_verified=True, name="Ada Lovelace")
    settings(GOOGLE_CLIENT_ID=google_server.client_id, GOOGLE_CLIENT_SECRET=google_server.client_secret,
             GOOGLE_METADATA_URL=google_server.metadata_url, OAUTH_REDIRECT_URI="http://localhost:5173/oauth/callback")
    return google_server


@pytest.fixture
def github(github_server, settings):
    """GitHub sign-in configured by settings, against the local GitHub."""
    github_server.reset(id=4242, login="octo", name="Octo Cat",
                        emails=[{"email": "octo@example.com", "primary": True, "verified": True}])
    settings(GITHUB_CLIENT_ID=github_server.client_id, GITHUB_CLIENT_SECRET=github_server.client_secret,
             GITHUB_OAUTH_BASE=github_server.url, GITHUB_API_BASE=github_server.url,
             OAUTH_REDIRECT_URI="http://localhost:5173/oauth/callback")
    return github_server


@pytest.fixture
def resend(resend_server):
    resend_server.requests.clear()
    return resend_server


@pytest.fixture
def stripe_api(stripe_server):
    stripe_server.requests.clear()
    return stripe_server
