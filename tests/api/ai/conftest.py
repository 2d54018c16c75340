"""Fixtures of the AI area: users with a provider configured (the fake provider servers: tests/conftest.py)."""
import pytest

from ...helpers import add_provider


@pytest.fixture
def with_provider(user, fake_providers):
    """`user` with one OpenAI provider (the default, model gpt-test), added over HTTP."""
    add_provider(user, "openai", model="gpt-test")
    fake_providers.reset()
    return user
