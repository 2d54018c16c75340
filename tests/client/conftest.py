"""Fixtures of the client replay: browsers with addresses of their own, and the real local servers
(AI providers, Stripe, Kroki, OpenID provider: tests/conftest.py, tests/fakes/) set up as the replay needs."""
import itertools

import pytest

from trazo.services.render import cache as render_cache

from ..helpers import PASSWORD, ApiClient
from .browser import Browser

_addresses = itertools.count(1)


@pytest.fixture
def browser(app):
    """A new browser tab (English UI unless told otherwise)."""

    def open_tab(language="en"):
        number = next(_addresses)
        return Browser(ApiClient(app.test_client(), f"10.9.{number // 250 % 250}.{number % 250 + 1}"), language)

    return open_tab


@pytest.fixture
def signed_up(browser):
    """Sign up through the client (register, then log in, then load the user), as AuthContext does."""

    def sign_up(email, password=PASSWORD, full_name="Ada Lovelace", language="en"):
        tab = browser(language)
        response = tab.public("POST", "/users/register", json={"email": email, "password": password,
                                                               "full_name": full_name})
        assert response.status_code == 201, response.get_json()
        tab.user = tab.sign_in(email, password)
        return tab

    return sign_up


@pytest.fixture
def owner(signed_up):
    """The installation's admin (the first account)."""
    return signed_up("owner@example.com", full_name="Owner")


@pytest.fixture
def ada(owner, signed_up):
    """A regular account, signed in."""
    return signed_up("ada@example.com")


@pytest.fixture
def kroki(app, kroki_server, configure):
    """Rendering through the Kroki-protocol server on 127.0.0.1."""
    kroki_server.reset()
    configure(RENDER_BACKEND="kroki", KROKI_URL=kroki_server.url, RENDER_TIMEOUT=5)
    yield kroki_server
    render_cache.clear(app.config.get("REDIS_URL"))


@pytest.fixture
def google(google_server, configure):
    """Google sign-in configured by settings, against the OpenID provider on 127.0.0.1."""
    google_server.reset(sub="google-sub-7", email="grace@example.com", email_verified=True, name="Grace Hopper")
    configure(GOOGLE_CLIENT_ID=google_server.client_id, GOOGLE_CLIENT_SECRET=google_server.client_secret,
              GOOGLE_METADATA_URL=google_server.metadata_url,
              OAUTH_REDIRECT_URI="http://localhost:5173/oauth/callback")
    return google_server
