"""Fixtures of the AI area: the fake provider servers and users with a provider configured."""
import pytest

from .providers import add_provider, fake_providers, provider_servers  # noqa: F401  (fixtures)


@pytest.fixture
def with_provider(user, fake_providers):  # noqa: F811
    """`user` with one OpenAI provider (the default, model gpt-test), added over HTTP."""
    add_provider(user, "openai", model="gpt-test")
    fake_providers.reset()
    return user
