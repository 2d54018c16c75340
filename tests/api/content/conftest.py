"""Fixtures of the content area: data made over HTTP and tight rate limits."""
import pytest

from ...helpers import create_diagram, create_folder, create_project


@pytest.fixture
def project(user):
    return create_project(user, name="Arquitectura", description="Main", emoji="🏗️")


@pytest.fixture
def folder(user, project):
    return create_folder(user, project["id"], name="Pagos", color="#10B981")


@pytest.fixture
def diagram(user, project):
    return create_diagram(user, project["id"], title="Login flow", description="How we log in")


@pytest.fixture
def tight_limit(app, monkeypatch):
    """Set one named rate limit (e.g. "EXPORT") for this test only."""

    def set_limit(name, value):
        monkeypatch.setitem(app.config, f"RATE_LIMIT_{name}", value)

    return set_limit
