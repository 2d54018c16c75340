"""Fixtures of the projects area (the project, folder and diagram it works on: tests/conftest.py)."""
import pytest


@pytest.fixture
def tight_limit(app, monkeypatch):
    """Set one named rate limit (e.g. "EXPORT") for this test only."""

    def set_limit(name, value):
        monkeypatch.setitem(app.config, f"RATE_LIMIT_{name}", value)

    return set_limit
